/** What the `api` preset's tests share: the places, a 429/503 as a provider sends it, the world. */
import { Scripted } from "@fallback/testkit"
import { Duration } from "effect"
import { Failure, Preset } from "../../src/index.js"
import { world } from "./world.js"

export const work = "claude/opus"
export const next = "codex/gpt"

/** A 429 (or 503) as the provider sent it, with its Retry-After when it sent one. */
export const tooMany = (retryAfter?: Duration.Input, status: 429 | 503 = 429): Scripted.Outcome =>
  Scripted.fail((place) =>
    new Failure.RateLimited({
      place,
      said: Failure.said(`${status} too many requests`),
      ...(retryAfter === undefined ? {} : { retryAfter: Duration.fromInputUnsafe(retryAfter) })
    })
  )

/** The first place's script, a chain on to the next, the api preset's breaker. */
export const setup = (script: ReadonlyArray<Scripted.Outcome>, whole = true) =>
  world({ script: { places: { [work]: script }, whole }, chain: [work, next], breaker: Preset.api.breaker })

/** The waits between successive requests. */
export const gaps = (at: ReadonlyArray<number>) => at.slice(1).map((t, i) => t - at[i]!)
