/**
 * The Portkey AI Gateway as a peer: started from its npm package on 127.0.0.1 only (a preload binds
 * its listener to loopback; headless, no UI), pointed at the mock provider with custom hosts.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { join } from "node:path"

/** A running gateway: its URL, and `stop`. */
export interface Gateway {
  readonly url: string
  readonly stop: () => Promise<void>
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

const ready = async (url: string, child: ChildProcess) => {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the gateway exited ${child.exitCode}`)
    try {
      await fetch(url)
      return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  throw new Error("the gateway did not listen within 30 s")
}

/** Starts the gateway on a free loopback port. */
export const start = async (): Promise<Gateway> => {
  const entry = join(
    createRequire(import.meta.url).resolve("@portkey-ai/gateway/package.json"),
    "../build/start-server.js"
  )
  const port = await freePort()
  const child = spawn(
    process.execPath,
    ["--import", join(import.meta.dirname, "loopback.mjs"), entry, `--port=${port}`, "--headless"],
    { stdio: "ignore", env: { PATH: process.env.PATH, NODE_ENV: "production" } }
  )
  const url = `http://127.0.0.1:${port}`
  try {
    await ready(url, child)
  } catch (error) {
    child.kill("SIGKILL")
    throw error
  }
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
      })
  }
}

/** The headers that send a Chat Completions request through the gateway to `mock` (fallback: first `first`). */
export const headers = (mock: string, first?: string): Record<string, string> =>
  first === undefined
    ? { "x-portkey-provider": "openai", "x-portkey-custom-host": `${mock}/v1`, authorization: "Bearer bench" }
    : {
      "x-portkey-config": JSON.stringify({
        strategy: { mode: "fallback" },
        targets: [
          { provider: "openai", custom_host: `${mock}/v1`, api_key: "bench", override_params: { model: first } },
          { provider: "openai", custom_host: `${mock}/v1`, api_key: "bench" }
        ]
      })
    }
