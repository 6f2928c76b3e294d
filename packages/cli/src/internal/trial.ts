import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Agent from "@fallback/core/Agent"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Health from "@fallback/core/Health"
import * as Notice from "@fallback/core/Notice"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"

import { backendsOf } from "./backends.js"
import { besideConfig } from "./config.js"
import { TrialFailed } from "./outcome.js"

// `status --try`, loaded only when asked for: the engine and the backends are no part of a plain
// `status`'s start

const probe = "Reply with the single word OK."

/**
 * A short turn at `place` alone, apart from the recorded health, whose outcome is then recorded.
 *
 * @internal
 */
export const trial = (at: Place.Place) =>
  Effect.gen(function*() {
    const recorded = yield* Health.Health
    const document = yield* (yield* ConfigFile.Store).read
    const outcome = yield* Effect.gen(function*() {
      // a place already parsed is never an invalid one
      const agent = yield* Agent.make(at, Settings.plain, {
        ...Agent.defaults,
        fallback: false,
        budget: { ...Agent.defaults.budget, attempts: 1 }
      }).pipe(Effect.orDie)
      // whole: a probe's answer is not shown, so a cut mid-answer is a failure like any other
      return yield* agent.reply(probe)
    }).pipe(
      Effect.scoped,
      Effect.result,
      Effect.provideService(Notice.Notices, { publish: () => Effect.void, watch: Effect.succeed(Stream.empty) }),
      Effect.provide(
        Layer.mergeAll(backendsOf(document, { homes: yield* besideConfig("homes") }), Health.Health.layerMemory()).pipe(
          Layer.provide(NodeHttpClient.layerUndici)
        )
      )
    )
    if (Result.isSuccess(outcome)) {
      yield* recorded.succeeded(at)
      return yield* Console.log(`${Place.format(at)} answered; its failures are cleared`)
    }
    yield* recorded.failed(at, { failure: outcome.failure, counts: true, coolUntil: Option.none() })
    return yield* new TrialFailed({ place: Place.format(at), failure: outcome.failure })
  })
