// The packages as a user gets them: every workspace package is packed, the tarballs are installed
// with plain npm into a scratch project outside the repository, and used from there: a consumer
// type-checked under `nodenext` and `bundler` and run as compiled JavaScript with plain node, every
// public module of every library imported, publint and attw on each tarball, and the command
// installed globally from its tarball and run. `npm run test:tarball` (run by .ci/run).
//
// Packages are found from the root's workspaces, so a package added later is packed, installed,
// linted and imported here with nothing but its own package.json.
import assert from "node:assert/strict"
import { execFile, execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { after, before, describe, test } from "node:test"
import { fileURLToPath, pathToFileURL } from "node:url"
import { promisify } from "node:util"

const run = promisify(execFile)
const root = join(dirname(fileURLToPath(import.meta.url)), "../..")
const here = dirname(fileURLToPath(import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), "fallback-tarball-"))
const tarballs = join(scratch, "tarballs")
const app = join(scratch, "app")
const global = join(scratch, "global")
const npm = process.platform === "win32" ? "npm.cmd" : "npm"
const minute = 60_000

/** The workspace packages that are published: each one's folder and package.json. */
const workspaces = () => {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
  return manifest.workspaces.flatMap((pattern) => {
    const parent = join(root, pattern.replace(/\/\*$/, ""))
    const folders = pattern.endsWith("/*")
      ? readdirSync(parent, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) =>
        join(parent, entry.name)
      )
      : [parent]
    return folders.filter((folder) => existsSync(join(folder, "package.json"))).map((folder) => ({
      folder,
      manifest: JSON.parse(readFileSync(join(folder, "package.json"), "utf8"))
    })).filter(({ manifest }) => manifest.private !== true)
  })
}

/** The version of a package the repository installed, so the scratch project gets the same. */
const installed = (name) => JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")).version

const packages = workspaces()
const libraries = packages.filter(({ manifest }) => manifest.exports?.["."] !== undefined)
const commands = packages.filter(({ manifest }) => manifest.bin !== undefined)
/** name → the tarball's path and what npm pack said of it. */
const packed = new Map()

const sh = (command, args, options = {}) =>
  run(command, args, { maxBuffer: 64 * 1024 * 1024, ...options }).catch((error) => {
    throw new Error(`${command} ${args.join(" ")} failed (${error.code}):\n${error.stdout}\n${error.stderr}`)
  })

before(async () => {
  mkdirSync(tarballs)
  const { stdout } = await sh(
    npm,
    ["pack", "--json", "--pack-destination", tarballs, ...packages.flatMap(({ manifest }) => ["-w", manifest.name])],
    { cwd: root }
  )
  // npm pack prints the prepack scripts' output before the JSON
  for (const entry of JSON.parse(stdout.slice(stdout.indexOf("\n[") + 1))) {
    packed.set(entry.name, { ...entry, path: join(tarballs, entry.filename) })
  }
  console.log(
    ["tarball                               size      unpacked  files"].concat(
      [...packed.values()].map((entry) =>
        `${entry.filename.padEnd(36)} ${kb(entry.size).padStart(9)} ${
          kb(entry.unpackedSize).padStart(9)
        }  ${entry.entryCount}`
      )
    ).join("\n")
  )
}, { timeout: 10 * minute })

after(() => {
  if (process.env.KEEP_SCRATCH) console.log(`scratch kept at ${scratch}`)
  else rmSync(scratch, { recursive: true, force: true })
})

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`

describe("the tarballs", () => {
  test("every workspace package is packed, with its licence and README", () => {
    assert.deepEqual([...packed.keys()].sort(), packages.map(({ manifest }) => manifest.name).sort())
    for (const entry of packed.values()) {
      const files = entry.files.map((file) => file.path)
      for (const needed of ["package.json", "LICENSE", "README.md"]) {
        assert.ok(files.includes(needed), `${entry.filename} lacks ${needed}`)
      }
    }
  })

  test("a library ships ESM, declarations, declaration maps and source maps, and no tests", () => {
    for (const { manifest } of libraries) {
      const files = packed.get(manifest.name).files.map((file) => file.path)
      for (const built of ["index.js", "index.js.map", "index.d.ts", "index.d.ts.map"]) {
        assert.ok(files.includes(`build/src/${built}`), `${manifest.name} lacks build/src/${built}`)
      }
      const stray = files.filter((file) => /(^|\/)(test|tsbuildinfo)\/|\.test\.|tsconfig/.test(file))
      assert.deepEqual(stray, [], `${manifest.name} ships files no user needs`)
    }
  })

  test("a command ships what it runs, and depends on nothing", () => {
    for (const { manifest } of commands) {
      const entry = packed.get(manifest.name)
      const files = entry.files.map((file) => file.path)
      for (const bin of Object.values(manifest.bin)) {
        assert.ok(files.includes(bin.replace(/^\.\//, "")), `${manifest.name} lacks its bin ${bin}`)
      }
      for (const file of ["dist/fallback.cjs", "dist/fallback.cache", "dist/pages.json"]) {
        assert.ok(files.includes(file), `${manifest.name} lacks ${file}`)
      }
      assert.deepEqual(Object.keys(manifest.dependencies ?? {}), [], `${manifest.name} has runtime dependencies`)
      assert.deepEqual(Object.keys(manifest.peerDependencies ?? {}), [], `${manifest.name} has peer dependencies`)
    }
  })

  test("publint finds no errors in any tarball", { timeout: 5 * minute }, async () => {
    for (const entry of packed.values()) {
      const { stdout, stderr } = await sh(join(root, "node_modules/.bin/publint"), [
        "run",
        entry.path,
        "--level",
        "suggestion"
      ], {
        cwd: tarballs
      })
      console.log(`publint ${entry.filename}:\n${indent(stdout + stderr)}`)
      assert.doesNotMatch(stdout + stderr, /^Errors:/m)
    }
  })

  test("attw finds no problems in any library tarball", { timeout: 5 * minute }, async () => {
    for (const { manifest } of libraries) {
      const entry = packed.get(manifest.name)
      // every public module, which attw does not find behind the "./*" pattern by itself
      const modules = entry.files.map((file) => /^build\/src\/(\w+)\.d\.ts$/.exec(file.path)?.[1])
        .filter((module) => module !== undefined && module !== "index").map((module) => `./${module}`)
      // ESM-only packages: the node10 and CommonJS resolutions are not offered
      const { stdout } = await sh(
        join(root, "node_modules/.bin/attw"),
        [
          entry.path,
          "--profile",
          "esm-only",
          "--include-entrypoints",
          ...modules,
          "--format",
          "table-flipped",
          "--no-color",
          "--no-emoji"
        ],
        { cwd: tarballs }
      )
      console.log(`attw ${entry.filename}:\n${indent(stdout)}`)
    }
  })
})

const indent = (text) => text.trim().split("\n").map((line) => `  ${line}`).join("\n")

describe("installed into a project outside the repository", () => {
  before(async () => {
    mkdirSync(app)
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2)
    )
    // an Effect 4 app first, as a new user has one; the tarballs are added to it
    await sh(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", `effect@${installed("effect")}`], {
      cwd: app
    })
    const peers = new Set(libraries.flatMap(({ manifest }) => Object.keys(manifest.peerDependencies ?? {})))
    await sh(npm, [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      ...libraries.map(({ manifest }) => packed.get(manifest.name).path),
      ...[...peers, "@effect/platform-node", "typescript", "@types/node"].map((name) => `${name}@${installed(name)}`)
    ], { cwd: app })
    cpSync(join(here, "consumer.ts"), join(app, "consumer.ts"))
    writeFileSync(join(app, "modules.ts"), everyModule())
    for (const { folder, manifest } of libraries) writeFileSync(join(app, readmeFile(manifest)), readmeExample(folder))
  }, { timeout: 10 * minute })

  const compilerOptions = {
    target: "ES2022",
    lib: ["ES2022"],
    strict: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    types: ["node"]
  }

  for (const [resolution, module] of [["nodenext", "nodenext"], ["bundler", "preserve"]]) {
    test(`a consumer type-checks under moduleResolution ${resolution}`, { timeout: 5 * minute }, async () => {
      const config = `tsconfig.${resolution}.json`
      writeFileSync(
        join(app, config),
        JSON.stringify({
          compilerOptions: { ...compilerOptions, module, moduleResolution: resolution, noEmit: true },
          files: sources()
        })
      )
      await sh(process.execPath, [join(app, "node_modules/typescript/bin/tsc"), "-p", config], { cwd: app })
    })
  }

  test("its compiled JavaScript runs with plain node: an agent over HTTP fails over once", {
    timeout: 5 * minute
  }, async () => {
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { ...compilerOptions, module: "nodenext", moduleResolution: "nodenext", outDir: "out" },
        files: sources()
      })
    )
    await sh(process.execPath, [join(app, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: app })
    const { stdout } = await sh(process.execPath, ["out/consumer.js"], { cwd: app, timeout: 2 * minute })
    assert.deepEqual(JSON.parse(stdout), { answer: "answered from the tarballs", at: "local/qwen3:8b", requests: 2 })
    await sh(process.execPath, ["out/modules.js"], { cwd: app, timeout: 2 * minute })
  })

  test("one copy of effect in the consumer's tree, the Effect 4 it started with", async () => {
    const { stdout } = await sh(npm, ["ls", "effect", "--all", "--json"], { cwd: app })
    const copies = new Set()
    const walk = (node) => {
      for (const [name, child] of Object.entries(node.dependencies ?? {})) {
        if (name === "effect") copies.add(child.version)
        walk(child)
      }
    }
    walk(JSON.parse(stdout))
    assert.deepEqual([...copies], [installed("effect")])
    assert.match(installed("effect"), /^4\./)
    const found = execFileSync("find", [
      join(app, "node_modules"),
      "-name",
      "package.json",
      "-path",
      "*/effect/package.json"
    ])
      .toString().trim().split("\n").filter((file) => JSON.parse(readFileSync(file, "utf8")).name === "effect")
    assert.equal(found.length, 1, `effect is installed more than once:\n${found.join("\n")}`)
  })

  test("the example in each library's README runs", { timeout: 5 * minute }, async () => {
    for (const { manifest } of libraries) {
      const { stdout } = await sh(process.execPath, [`out/${readmeFile(manifest).replace(/\.ts$/, ".js")}`], {
        cwd: app,
        timeout: 2 * minute
      })
      console.log(`${manifest.name} README:\n${indent(stdout)}`)
    }
  })

  describe("the command, installed globally from its tarball", () => {
    const home = join(scratch, "home")
    const env = () => ({
      PATH: `${join(global, "bin")}:${dirname(process.execPath)}`,
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      NO_COLOR: "1"
    })
    const fallback = (args, options = {}) =>
      run(join(global, "bin/fallback"), args, { env: env(), timeout: 2 * minute, ...options })

    before(async () => {
      mkdirSync(home)
      for (const { manifest } of commands) {
        await sh(npm, [
          "install",
          "--global",
          "--prefix",
          global,
          "--no-audit",
          "--no-fund",
          packed.get(manifest.name).path
        ], { cwd: scratch })
      }
    }, { timeout: 5 * minute })

    test("installs nothing but itself", () => {
      const modules = join(global, "lib/node_modules")
      const names = readdirSync(modules).flatMap((name) =>
        name.startsWith("@") ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name]
      )
      assert.deepEqual(names, commands.map(({ manifest }) => manifest.name).sort())
      for (const name of names) {
        assert.ok(!existsSync(join(modules, name, "node_modules")), `${name} brought dependencies`)
      }
    })

    test("fallback --help", async () => {
      const { stdout } = await fallback(["--help"])
      assert.match(stdout, /fallback/)
      assert.match(stdout, /demo/)
    })

    test("fallback demo: one turn through an outage, narrated", { timeout: 3 * minute }, async () => {
      const { stdout } = await fallback(["demo"])
      console.log(indent(stdout))
      assert.match(stdout, /The answer, from local\/qwen3:8b/)
    })

    test("fallback run: a turn at a provider of the config fails over once", { timeout: 3 * minute }, async () => {
      // the mock comes from the installed testkit, as a user of the tarballs gets it
      const testkit = createRequire(join(app, "package.json")).resolve("@fallback/testkit")
      const { MockProvider } = await import(pathToFileURL(testkit).href)
      const mock = await MockProvider.start()
      try {
        mock.script([
          { fault: "model-not-found", model: "gpt-retired" },
          { fault: "answer", model: "qwen3:8b", text: "answered by the installed command" }
        ])
        const config = join(scratch, "config.json")
        writeFileSync(
          config,
          JSON.stringify({
            steps: { "local/gpt-retired": { to: "local/qwen3:8b" } },
            providers: {
              local: {
                kind: "openai-compatible",
                baseUrl: `${mock.url}/v1`,
                models: [{ name: "gpt-retired" }, { name: "qwen3:8b" }]
              }
            }
          })
        )
        const { stdout, stderr } = await fallback(["run", "local/gpt-retired", "Say hello.", "--config", config])
        assert.match(stdout, /answered by the installed command/)
        assert.match(stderr, /local\/qwen3:8b/)
        assert.equal(mock.requests().total, 2)
      } finally {
        await mock.stop()
      }
    })

    test("cold start: each command against node -e 0 (printed, not asserted)", { timeout: 5 * minute }, () => {
      const config = join(scratch, "cold.json")
      writeFileSync(config, JSON.stringify({ steps: { "claude/a": { to: "codex/b" } } }))
      const median = (file, args) => {
        const runs = []
        for (let i = 0; i < 11; i++) {
          const started = process.hrtime.bigint()
          execFileSync(file, args, { env: { ...env(), FALLBACK_CONFIG: config }, stdio: "ignore" })
          runs.push(Number(process.hrtime.bigint() - started) / 1e6)
        }
        return runs.sort((a, b) => a - b)[5]
      }
      const node = median(process.execPath, ["-e", "0"])
      const rows = [["--help"], ["list", "--help"], ["--version"], ["waits"], ["list"], ["chain", "claude/a"], [
        "status"
      ]]
        .map((args) => {
          const took = median(join(global, "bin/fallback"), args)
          return `  fallback ${args.join(" ").padEnd(16)} ${took.toFixed(1).padStart(7)} ms  ${
            (took / node).toFixed(2)
          }×`
        })
      console.log(
        [
          `cold start, installed globally (median of 11; B4's target is 3× node -e 0):`,
          `  node -e 0 ${" ".repeat(16)}${node.toFixed(1).padStart(7)} ms`,
          ...rows
        ]
          .join("\n")
      )
    })
  })
})

const readmeFile = (manifest) => `readme_${manifest.name.replace(/^@|[^\w]/g, "_")}.ts`

const sources = () => ["consumer.ts", "modules.ts", ...libraries.map(({ manifest }) => readmeFile(manifest))]

/** The first TypeScript block of a package's README: the short example a user copies. */
const readmeExample = (folder) => {
  const readme = readFileSync(join(folder, "README.md"), "utf8")
  const block = /^```ts\n([\s\S]*?)^```$/m.exec(readme)
  assert.ok(block, `${folder}/README.md has no \`\`\`ts example`)
  return `${block[1]}\nexport {}\n`
}

/**
 * A program that imports every public module of every library, as `@scope/package/Module`: each
 * must type-check and load from the tarball (a module missing from `files` or `exports` fails here).
 */
const everyModule = () => {
  const lines = []
  for (const { manifest } of libraries) {
    const folder = join(app, "node_modules", manifest.name, "build/src")
    const modules = readdirSync(folder).filter((file) => file.endsWith(".js")).map((file) => file.slice(0, -3))
    for (const module of modules) {
      const name = `${manifest.name}/${module}`.replace(/^@|[^\w]/g, "_")
      lines.push(`import * as ${name} from "${manifest.name}/${module}"`)
      lines.push(`if (typeof ${name} !== "object") throw new Error("${manifest.name}/${module} did not load")`)
    }
    lines.push(`import * as ${manifest.name.replace(/^@|[^\w]/g, "_")} from "${manifest.name}"`)
  }
  lines.push(`console.log("every public module loaded")`)
  return lines.join("\n") + "\n"
}
