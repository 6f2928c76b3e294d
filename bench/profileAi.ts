/**
 * B6's in-process failover loop alone, for a profiler:
 * `node bench/build.mjs bench/profileAi.ts && node --cpu-prof bench/profileAi.bundle.mjs`.
 */
import { effectAiFailoverLoop } from "./effectAi.js"

await effectAiFailoverLoop(Number(process.env.BENCH_TURNS ?? 20_000), process.env.BENCH_HAPPY === "1")
