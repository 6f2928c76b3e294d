/**
 * B8's Messages rows for a noisy machine: CPU time a request (the whole process: client, gateway
 * and mock, from `process.cpuUsage`) beside the wall p50, direct and through the in-process
 * gateway, round by round. CPU time moves far less than the wall under other load.
 * `node bench/build.mjs serve-cpu && node --expose-gc bench/serve-cpu.bundle.mjs [rounds]`;
 * `BENCH_SERVE_ROWS="streamed gateway"` measures only the rows whose names hold it (for a profiler).
 */
import { MockProvider } from "@fallback/testkit"
import { client, messages, serve } from "./serve.js"

const rounds = Number(process.argv[2] ?? 5)
const turns = Number(process.env.BENCH_SERVE_TURNS ?? 500)

const mock = await MockProvider.start({ lifetime: 30 * 60_000, text: "ok" })
const gateway = await serve(mock.url)
const only = process.env.BENCH_SERVE_ROWS?.split(",")
const rows = ([
  ["whole direct", messages(mock.url, "claude-x", false)],
  ["whole gateway", messages(gateway.url, "anthropic/claude-x", false)],
  ["streamed direct", messages(mock.url, "claude-x", true)],
  ["streamed gateway", messages(gateway.url, "anthropic/claude-x", true)]
] as const).filter(([name]) => only === undefined || only.some((part) => name.includes(part)))
const cpu: Record<string, Array<number>> = {}
const wall: Record<string, Array<number>> = {}
for (const [, request] of rows) for (let i = 0; i < 300; i++) await request(0)
for (let r = 0; r < rounds; r++) {
  for (const [name, request] of rows) {
    globalThis.gc?.()
    const took: Array<number> = []
    const before = process.cpuUsage()
    for (let i = 0; i < turns; i++) {
      const start = performance.now()
      await request(0)
      took.push(performance.now() - start)
    }
    const used = process.cpuUsage(before)
    took.sort((a, b) => a - b)
    ;(cpu[name] ??= []).push((used.user + used.system) / turns)
    ;(wall[name] ??= []).push(took[Math.floor(turns / 2)]!)
  }
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
for (const [name] of rows) {
  console.log(
    `${name.padEnd(18)} cpu ${median(cpu[name]!).toFixed(0).padStart(6)} µs/req   wall p50 ${
      median(wall[name]!).toFixed(2)
    } ms`
  )
}
for (const kind of ["whole", "streamed"]) {
  if (cpu[`${kind} gateway`] === undefined || cpu[`${kind} direct`] === undefined) continue
  console.log(
    `${kind} added: cpu ${
      (median(cpu[`${kind} gateway`]!) - median(cpu[`${kind} direct`]!)).toFixed(0)
    } µs/req, wall p50 ${(median(wall[`${kind} gateway`]!) - median(wall[`${kind} direct`]!)).toFixed(2)} ms`
  )
}
await gateway.stop()
await mock.stop()
await client.close()
