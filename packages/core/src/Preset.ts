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
 * - {@link api}: for HTTP API traffic, right on every fault of an OpenAI-compatible or Anthropic
 *   provider: a short Retry-After (up to {@link shortRetryAfter}) is the next wait exactly, a long
 *   one moves on; a 5xx is tried once more with jitter; a 429/503 without Retry-After backs off
 *   with jitter three times; a reset before any byte is retried at once; a silent route or a stall
 *   moves; a refusal is taken once; 3 failures in a row park a place 30 s, then one trial.
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
  options: {
    ...Agent.defaults,
    answers: breakerAnswers,
    moved: "returns",
    // "A model that has not opened a stream within 30 seconds yields": at an HTTP API too.
    limits: {
      http: { ...Agent.defaults.limits?.http, firstByte: Option.some(Duration.seconds(30)) },
      cli: Agent.defaults.limits?.cli ?? {}
    }
  },
  breaker: Health.defaultBreaker
}

/**
 * The longest Retry-After the {@link api} preset waits for at the same place: 10 s. A wait that
 * long is about what moving costs (a new place's connection, its first token, a prompt it has not
 * cached) and within the patience of a caller waiting on an HTTP request; a longer one outlasts
 * both, so the turn moves on at once and the place cools down for as long as it asked.
 *
 * @since 0.2.0
 * @category constants
 */
export const shortRetryAfter: Duration.Duration = Duration.seconds(10)

/**
 * The share of each of the {@link api} preset's own waits drawn at random: a wait `w` is drawn
 * from `[w / 2, w]` ("equal jitter"), so agents failing together spread out and no wait is
 * shorter than half its step (never a tight loop).
 *
 * @since 0.2.0
 * @category constants
 */
export const apiJitter = 0.5

/**
 * The {@link api} preset's answers. Nothing here adds the step's own tries: each row is the
 * whole of what its kind does at a place.
 *
 * @since 0.2.0
 * @category constants
 */
export const apiAnswers: Answer.Table = Answer.override(Answer.primary, {
  // 429, 503, 529: a short Retry-After is the next wait exactly; without one, backs off 1, 2, 4 s
  // (each drawn from its upper half) and moves; a long one moves at once. The place cools as long
  // as the provider asked, and at least 10 s, so other turns move on at once meanwhile.
  RateLimited: new Answer.Answer({
    here: [Duration.seconds(1), Duration.seconds(2), Duration.seconds(4)],
    jitter: apiJitter,
    honours: shortRetryAfter,
    accounts: true,
    places: true,
    cooldown: shortRetryAfter
  }),
  // A spent quota does not come back in seconds: cools 30 minutes (or until the time it names) and moves.
  QuotaExhausted: new Answer.Answer({ accounts: true, places: true, cooldown: cooled }),
  // A reset before any byte: the socket was lost, not the request; once more at once, then on.
  ConnectionLost: new Answer.Answer({ here: [Duration.zero], reopen: true, accounts: true, places: true }),
  // A silent route or a stall is not asked again: the next place answers sooner than a second wait.
  Timeout: switches,
  Unresponsive: switches,
  // A 5xx: once more after up to a second (at least half of one), then the next place.
  Unknown: new Answer.Answer({ here: [Duration.seconds(1)], jitter: apiJitter, places: true }),
  ...takenOnce
})

/**
 * A preset for HTTP API traffic: {@link apiAnswers}; the agent's default limits (an HTTP API's
 * first byte and stall, see `Agent.Options.limits`); every turn starts at the requested place
 * (`moved: "returns"`), so a place the breaker parked serves again the moment its trial answers;
 * 3 failures in a row park a place 30 s, then one trial request probes it.
 *
 * @since 0.2.0
 * @category constants
 */
export const api: Preset = {
  name: "api",
  options: { ...Agent.defaults, answers: apiAnswers, moved: "returns" },
  breaker: { failures: 3, park: Duration.seconds(30) }
}

/**
 * The presets' names, as `fallback run --preset` and the config file's `preset` take them.
 *
 * @since 0.2.0
 * @category constants
 */
export const names = ["primary", "escalating", "breaker", "api"] as const

/**
 * A preset's name.
 *
 * @since 0.2.0
 * @category models
 */
export type Name = typeof names[number]

/**
 * Each preset by its name.
 *
 * @since 0.2.0
 * @category constants
 */
export const byName: { readonly [K in Name]: Preset } = { primary, escalating, breaker, api }

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
