/**
 * The three reference systems as configuration of the same engine: each preset is an agent's
 * options and the breaker its health keeps.
 *
 * - {@link primary} (the primary design): the default answers, a 30 s first byte, the account
 *   chain then places, and an agent that moved stays moved.
 * - {@link escalating}: timeouts 3 attempts 15 s apart; a rate limit cools the model 30 min and is
 *   retried after 5, 10, 15 s before switching; a spent quota cools 30 min and switches at once;
 *   a hung stream is probed every 30 s, a failed probe retried every 10 s, switching after 3;
 *   candidates skip the failed provider and too-small context windows, are health-checked
 *   within 10 s, over up to 3 rounds; a send is given 600 s; a turn has no budget beyond those.
 * - {@link breaker}: the ordered list from `LLM_FALLBACK_MODELS` (see {@link breakerSteps}); 5
 *   failures in a row park a model 60 s, then one trial; 30 s to open a stream; failover before
 *   the stream only, each request starting at the requested model.
 *
 * @since 0.1.0
 */
import type * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Agent from "./Agent.js"
import * as Answer from "./Answer.js"
import * as Backend from "./Backend.js"
import * as Health from "./Health.js"
import * as ModelList from "./ModelList.js"
import * as Place from "./Place.js"
import { Steps } from "./Steps.js"

/**
 * A preset: the options its agents are made with, and its health's breaker.
 *
 * @since 0.1.0
 * @category models
 */
export interface Preset {
  readonly name: string
  readonly options: Agent.Options
  readonly breaker: Health.Breaker
}

/**
 * The health a preset keeps, in memory.
 *
 * @since 0.1.0
 * @category layers
 */
export const health = (preset: Preset): Layer.Layer<Health.Health> => Health.Health.layerMemory(preset.breaker)

/**
 * The primary design (reference 000).
 *
 * @since 0.1.0
 * @category constants
 */
export const primary: Preset = { name: "primary", options: Agent.defaults, breaker: Health.defaultBreaker }

const cooled = Duration.minutes(30)
const switches = new Answer.Answer({ places: true })

// What no chain changes in any preset: a history too long, arguments the CLI refused, a prompt the
// provider refused by its content policy are taken once and say nothing of the place's health.
const takenOnce = {
  ContextTooLong: Answer.takenOnce,
  ArgumentsRefused: Answer.takenOnce,
  Refused: Answer.takenOnce
}

const everyKind = (answer: Answer.Answer): Answer.Table => ({
  RateLimited: answer,
  QuotaExhausted: answer,
  AuthRefused: answer,
  ModelNotFound: answer,
  StoreBusy: answer,
  ConnectionLost: answer,
  Killed: answer,
  NotInstalled: answer,
  ContextTooLong: answer,
  ArgumentsRefused: answer,
  Refused: answer,
  Timeout: answer,
  Unresponsive: answer,
  Unknown: answer
})

/**
 * The escalating system's answers (reference 002): any other error switches to the next model.
 *
 * @since 0.1.0
 * @category constants
 */
export const escalatingAnswers: Answer.Table = Answer.override(everyKind(switches), {
  // "Timeout: up to 3 attempts on the same model spaced by 15 s": ours, or the provider's or CLI's own (408, 504).
  Timeout: new Answer.Answer({ here: [Duration.seconds(15), Duration.seconds(15)], places: true }),
  // "Register a 30-minute cooldown, retry the same model after 5 s, 10 s, then 15 s; then switch":
  // a Retry-After longer than the next wait does not stretch that ladder, it switches at once.
  RateLimited: new Answer.Answer({
    here: [Duration.seconds(5), Duration.seconds(10), Duration.seconds(15)],
    retryAfter: "moves",
    places: true,
    cooldown: cooled
  }),
  // "Quota exhausted (HTTP 402 / 403 or a quota / billing message): Register a 30-minute cooldown
  // and switch to the next fallback immediately." A 401 is "any other error": it switches, cooling nothing.
  QuotaExhausted: new Answer.Answer({ places: true, cooldown: cooled }),
  AuthRefused: new Answer.Answer({ places: true, cooldown: cooled, coolsOn: [402, 403] }),
  ...takenOnce
})

/**
 * The escalating system (reference 002). A session pinned to a model is an agent made with
 * `fallback: false`; give a {@link Compactor} for context too long to compact, then trim.
 *
 * @since 0.1.0
 * @category constants
 */
export const escalating: Preset = {
  name: "escalating",
  options: {
    answers: escalatingAnswers,
    firstByte: Option.none(),
    send: Option.some(Duration.seconds(600)),
    // 002 bounds a quiet stream by its watchdog and the send ceiling, not by an idle limit of its own.
    idle: Option.none(),
    watchdog: Option.some({
      every: Duration.seconds(30),
      retry: Duration.seconds(10),
      failures: 3,
      within: Duration.seconds(10)
    }),
    candidates: { skipFailedProvider: true, fitWindow: true, check: Option.some(Duration.seconds(10)), rounds: 3 },
    moved: "stays",
    fallback: true,
    // 002 gives a turn no budget of its own: its own numbers bound it (each place tried once, its
    // goes there bounded by each kind's count, each go by the send ceiling), and any finite budget
    // cuts a chain 002 allows, the longer with each place in it.
    budget: { deadline: Duration.infinity, attempts: Infinity }
  },
  breaker: { failures: Infinity, park: Duration.zero }
}

/**
 * The breaker system's answers (reference 003): every failure before the stream goes to the next
 * model; context too long is taken once.
 *
 * @since 0.1.0
 * @category constants
 */
export const breakerAnswers: Answer.Table = Answer.override(everyKind(switches), takenOnce)

/**
 * The breaker system (reference 003).
 *
 * @since 0.1.0
 * @category constants
 */
export const breaker: Preset = {
  name: "breaker",
  options: { ...Agent.defaults, answers: breakerAnswers, moved: "returns" },
  breaker: Health.defaultBreaker
}

/**
 * The places of a list of model names: each at the first backend that serves it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const placesOf = (
  backends: ReadonlyArray<Backend.Backend>,
  models: ReadonlyArray<string>
): ReadonlyArray<Place.Place> =>
  models.flatMap((model) => {
    const backend = backends.find((b) => b.capabilities.models.some((m) => m.name === model))
    return backend === undefined ? [] : [new Place.Place({ cli: backend.cli, model })]
  })

/**
 * The breaker preset's steps: from the requested place along the models of
 * `LLM_FALLBACK_MODELS`, in order, each checked against the models the backends serve (a typo or a
 * repeat fails start; unset or empty is no failover; the requested model itself is not listed again).
 *
 * @since 0.1.0
 * @category layers
 */
export const breakerSteps = (
  requested: Place.Place
): Layer.Layer<Steps, ModelList.ModelListError | Config.ConfigError, Backend.Backends> =>
  Layer.effect(
    Steps,
    Effect.gen(function*() {
      const backends = yield* Backend.Backends
      const catalogue = backends.all.flatMap((backend) => backend.capabilities.models.map((model) => model.name))
      const models = yield* ModelList.fromEnv.pipe(Effect.provide(ModelList.Catalogue.layer(catalogue)))
      const steps = yield* Steps
      const listed = placesOf(backends.all, models).filter((place) => Place.format(place) !== Place.format(requested))
      const chain = [requested, ...listed]
      for (let i = 1; i < chain.length; i++) yield* Effect.orDie(steps.points(chain[i - 1]!, chain[i]!))
      return steps
    })
  ).pipe(Layer.provide(Steps.layerMemory))
