/**
 * B5 at concurrency 50 alone, for a profiler: direct undici and fallback's turns, three times each;
 * `node bench/profile-http.ts direct` or `… fallback` runs one side only.
 *
 *   node bench/build.mjs profile-http && node --cpu-prof bench/profile-http.bundle.mjs fallback
 */
import { MockProvider } from "@fallback/testkit"
import * as Effect from "effect/Effect"
import { always, chat, direct, ours, throughput } from "./http.js"

const mock = await MockProvider.start({ lifetime: 30 * 60_000, text: "ok" })
const only = process.argv[2]
const rates: Record<string, Array<number>> = { direct: [], fallback: [] }
try {
  for (let r = 0; r < 3; r++) {
    if (only !== "fallback") rates.direct!.push(await throughput(always(chat(mock.url, "m", true))))
    if (only !== "direct") {
      rates.fallback!.push(await Effect.runPromise(ours(mock.url, ["local/m", "local/n"], false, throughput)))
    }
  }
} finally {
  await mock.stop()
  await direct.close()
}
console.log(
  Object.entries(rates).map(([name, rate]) => `${name} ${rate.map((r) => r.toFixed(0)).join(" ")} req/s`).join("; ")
)
