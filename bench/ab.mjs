// A/B of the engine's B2 and B3 rows, interleaved round by round in one process: this tree against
// another commit's (`node --expose-gc bench/ab.mjs <commit> [b2|b3] [rounds]`). Each side is bundled
// with its own copy of Effect (this tree's, so the other commit must be on Effect 4 too); the other
// commit's packages/core and bench are taken by `git archive` into .ab/ (ignored), with bench/ab.ts
// from this tree.
import { build } from "esbuild"
import { execSync } from "node:child_process"
import { copyFileSync, mkdirSync, rmSync } from "node:fs"

const root = new URL("..", import.meta.url).pathname
const [commit = "HEAD", only = "both", roundsArg = "9"] = process.argv.slice(2)
const rounds = Number(roundsArg)

const bundle = async (tree, out) => {
  await build({
    entryPoints: [`${tree}/bench/ab.ts`],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["@fallback/source"],
    alias: { "@fallback/core": `${tree}/packages/core/src/index.ts` },
    outfile: out,
    banner: { js: "import { createRequire as __cr } from \"node:module\"; const require = __cr(import.meta.url);" },
    logLevel: "error"
  })
  // Effect 4 keeps no global store of services (each copy's references hold their own defaults),
  // so the two bundles, each with its own copy of Effect, run side by side as they are.
  return import(out)
}

const base = `${root}.ab/base`
rmSync(base, { recursive: true, force: true })
mkdirSync(base, { recursive: true })
execSync(`git -C ${root} archive ${commit} tsconfig.base.json packages/core bench | tar -x -C ${base}`)
copyFileSync(`${root}bench/ab.ts`, `${base}/bench/ab.ts`)
const A = await bundle(base, `${root}.ab/a.bundle.mjs`)
const B = await bundle(root.replace(/\/$/, ""), `${root}.ab/b.bundle.mjs`)

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const show = (name, xs) =>
  `${name} ${median(xs).toFixed(2)} [${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}]`
const { loadavg } = await import("node:os")
console.log(`A = ${commit}, B = working tree; load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)

if (only !== "b3") {
  const n = Number(process.env.AB_TURNS ?? 5000)
  const a = [], b = [], c = [], ra = [], rb = []
  for (let r = 0; r < rounds; r++) {
    const cc = await A.catchAll(n)
    const flip = r % 2 === 1
    const y0 = flip ? await B.b2(n) : undefined
    const x = await A.b2(n)
    const y = flip ? y0 : await B.b2(n)
    a.push(x)
    b.push(y)
    c.push(cc)
    ra.push(x / cc)
    rb.push(y / cc)
  }
  console.log(`B2 µs of CPU a turn: ${show("A", a)}  ${show("B", b)}  ${show("catchAll", c)}`)
  console.log(
    `B2 ratios to catchAll: A ${median(ra).toFixed(2)}×  B ${median(rb).toFixed(2)}×  B/A ${
      median(b.map((y, i) => y / a[i])).toFixed(3)
    }`
  )
}
if (only !== "b2") {
  const aw = [], bw = [], ah = [], bh = [], cw = [], ch = [], ai = [], bi = [], ac = [], bc = [], cc = []
  for (let r = 0; r < Math.max(3, Math.ceil(rounds / 2)); r++) {
    const c = await A.b3cockatiel()
    const flip = r % 2 === 1
    const y0 = flip ? await B.b3() : undefined
    const x = await A.b3()
    const y = flip ? y0 : await B.b3()
    cw.push(c.wall)
    cc.push(c.cpu)
    ac.push(x.cpu)
    bc.push(y.cpu)
    ch.push(c.heap)
    aw.push(x.wall)
    ah.push(x.heap)
    bw.push(y.wall)
    bh.push(y.heap)
    ai.push(x.idle)
    bi.push(y.idle)
  }
  console.log(
    `B3 wall ms: ${show("A", aw)}  ${show("B", bw)}  ${show("cockatiel", cw)}  ratio A ${
      (median(aw) / median(cw)).toFixed(2)
    }× B ${(median(bw) / median(cw)).toFixed(2)}×`
  )
  console.log(
    `B3 cpu ms: ${show("A", ac)}  ${show("B", bc)}  ${show("cockatiel", cc)}  ratio A ${
      (median(ac) / median(cc)).toFixed(2)
    }× B ${(median(bc) / median(cc)).toFixed(2)}×  B/A ${median(bc.map((y, i) => y / ac[i])).toFixed(3)}`
  )
  console.log(
    `B3 heap MB: ${show("A", ah)}  ${show("B", bh)}  ${show("cockatiel", ch)}  ratio A ${
      (median(ah) / median(ch)).toFixed(2)
    }× B ${(median(bh) / median(ch)).toFixed(2)}×`
  )
  console.log(`B3 idle KB/place: A ${median(ai).toFixed(1)}  B ${median(bi).toFixed(1)}`)
}
console.log(`load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
