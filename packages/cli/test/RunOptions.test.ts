/**
 * The options `fallback run` makes its agent with (issue 25): the limits per place kind from
 * `--first-byte` / `--stall`, `run.limits` and `run.firstByte`, over the preset's; `api` chosen by
 * flag or config.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Agent from "@fallback/core/Agent"
import type * as ConfigFile from "@fallback/core/ConfigFile"
import { Duration, Effect, Option } from "effect"

import { type RunFlags, runOptions } from "../src/internal/runOptions.js"

const none: RunFlags = {
  preset: Option.none(),
  firstByte: Option.none(),
  stall: Option.none(),
  idle: Option.none(),
  deadline: Option.none(),
  attempts: Option.none()
}
const document = (run?: ConfigFile.Document["run"]): ConfigFile.Document => ({
  steps: {},
  accounts: {},
  providers: {},
  clis: {},
  ...(run === undefined ? {} : { run })
})
const s = (n: number) => Option.some(Duration.seconds(n))

describe("fallback run's options", () => {
  it.effect("the preset's limits per kind stand when nothing is given", () =>
    Effect.gen(function*() {
      const { options } = yield* runOptions(none, document())
      expect(options.limits).toEqual(Agent.defaults.limits)
      const escalating = yield* runOptions({ ...none, preset: Option.some("escalating") }, document())
      expect(escalating.options.limits).toBeUndefined()
    }))

  it.effect("run.limits sets each kind; run.firstByte both; a flag both, over the file; 0 is no limit", () =>
    Effect.gen(function*() {
      const file = document({ firstByte: 40, limits: { http: { firstByte: 15, stall: 30 }, cli: { stall: 0 } } })
      const { options } = yield* runOptions(none, file)
      expect(options.limits).toEqual({
        http: { firstByte: s(15), stall: s(30) },
        cli: { firstByte: s(40), stall: Option.none() }
      })
      const flagged = yield* runOptions({ ...none, firstByte: Option.some("5s"), stall: Option.some("0") }, file)
      expect(flagged.options.limits).toEqual({
        http: { firstByte: s(5), stall: Option.none() },
        cli: { firstByte: s(5), stall: Option.none() }
      })
      expect(flagged.options.firstByte).toEqual(s(5))
      // a preset without limits per kind gets them once a flag gives one
      const escalating = yield* runOptions(
        { ...none, preset: Option.some("escalating"), stall: Option.some("20s") },
        file
      )
      expect(escalating.options.limits?.http.stall).toEqual(s(20))
    }))

  it.effect("the api preset, by flag or by run.preset", () =>
    Effect.gen(function*() {
      expect((yield* runOptions({ ...none, preset: Option.some("api") }, document())).chosen.name).toBe("api")
      expect((yield* runOptions(none, document({ preset: "api" }))).chosen.name).toBe("api")
    }))

  it.effect("a limit longer than the deadline is refused, saying which to shorten", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(
        runOptions({ ...none, stall: Option.some("20m"), deadline: Option.some("5m") }, document())
      )
      expect(refused.message).toBe(
        "--stall 20m is longer than the turn's deadline (5m), which would end the turn first; give a shorter --stall or a longer --deadline"
      )
    }))
})
