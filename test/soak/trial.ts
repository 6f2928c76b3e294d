/**
 * One soak trial: a world drawn from a seed (a chain of scripted and HTTP places on its own mock
 * provider, policies, budget, breaker), an agent taking turns in it, and every turn checked.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { HttpProvider, OpenAiCompatible } from "@fallback/backends"
import { Agent, Backend, Failure, Health, Notice, Place, Steps } from "@fallback/core"
import { MockProvider, Scripted } from "@fallback/testkit"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { breakerOf, chainOf, optionsOf, outcomeOf, retryingOf, rulesOf } from "./draw.js"
import * as Lag from "./lag.js"
import { random } from "./random.js"

/**
 * How far past its bound a turn may end: timers and probes, plus the time the event loop ran late
 * during the turn (a loaded machine's pauses). A turn's bound is its deadline, plus its send
 * ceiling once content may be streaming (the deadline does not cut an answer already streaming).
 */
export const margin = 250

/**
 * When a turn that has not ended is stopped, past its bound: it has hung by then. Only `npm run
 * soak` times turns by the wall clock; in `npm test` nothing is (a busy machine makes a turn slow,
 * never wrong), and a turn that hangs is ended by the test's own limit, after its seed was printed.
 */
const hardStop = 10_000

/**
 * How each turn ended: answered, failed, cut (`Agent.Cut`: its place failed after content reached
 * the caller and no next place continued it; the kind is the place's failure), or broken.
 */
export type Ending = "answered" | `failed ${Failure.Kind}` | `cut ${Failure.Kind}` | "broken"

/** What a trial saw: its turns' endings, the worst overrun past a deadline, and every broken invariant. */
export interface Report {
  readonly seed: number
  readonly chain: ReadonlyArray<string>
  /** Whether the trial took its turns whole. */
  readonly whole: boolean
  readonly endings: Array<Ending>
  readonly overrun: number
  /** Turns that ended past their bound by more than the margin and the lag (broken only when timed by the wall clock). */
  readonly late: number
  readonly broken: Array<string>
}

/** A request a place received, when, at which place. */
interface Request {
  readonly place: string
  readonly at: number
}

/** Counts fibers started and ended under it: none may be left running once a trial's scope closes. */
const liveFibers = () => {
  const live = {
    running: 0,
    counter: {
      recordFiberStart: () => {
        live.running += 1
      },
      recordFiberEnd: () => {
        live.running -= 1
      }
    } satisfies Metric.FiberRuntimeMetricsService
  }
  return live
}

const silent = Layer.succeed(Notice.Notices, { publish: () => Effect.void, watch: Effect.succeed(Stream.empty) })

/** The places parked or cooling when a turn starts, and until when. */
const blocked = (health: Health.Health["Service"]) =>
  Effect.map(health.snapshot, (all) => {
    const until = new Map<string, number>()
    for (const entry of all) {
      const ends = [
        entry.breaker === "parked" ? Option.getOrUndefined(entry.parkedUntil) : undefined,
        Option.getOrUndefined(entry.coolingUntil)
      ].filter((n): n is number => n !== undefined)
      if (ends.length > 0) until.set(Place.format(entry.place), Math.max(...ends))
    }
    return until
  })

/** Checks one turn's events: nothing replayed after the first content, one result at most, at the end. */
const replayed = (events: ReadonlyArray<Backend.Event>): Array<string> => {
  const broken: Array<string> = []
  const first = events.findIndex(Backend.isContent)
  if (first >= 0 && events.slice(first).some((event) => event._tag === "SessionStarted")) {
    broken.push("a session started after the first content: the turn replayed at another attempt")
  }
  const parts = events.flatMap((event) =>
    event._tag === "Text" && /^part \d+ $/.test(event.text) ? [Number(event.text.slice(5))] : []
  )
  if (parts.some((part, i) => part !== i + 1)) broken.push(`text pieces replayed or out of order: ${parts.join(",")}`)
  const results = events.filter((event) => event._tag === "Result").length
  if (results > 1 || (results === 1 && events.at(-1)?._tag !== "Result")) {
    broken.push("a result that is not the single last event")
  }
  return broken
}

/** Runs `turns` turns in the world drawn from `seed`, starting none after `stopAt` (epoch ms). */
export const trial = (seed: number, turns: number, stopAt = Infinity, wallClock = true): Effect.Effect<Report> =>
  Effect.gen(function*() {
    const rng = random(seed)
    const chain = chainOf(rng)
    const options = optionsOf(rng)
    const breaker = breakerOf(rng)
    const idle = rng.int(60, 300)
    // Half the trials take their turns whole (agent.reply, scripted sessions answering whole).
    const whole = rng.chance(0.5)
    const requests: Array<Request> = []
    const live = liveFibers()
    const broken: Array<string> = []
    const endings: Array<Ending> = []
    let overrun = 0
    let late = 0

    const scope = yield* Scope.make()
    const mock = yield* MockProvider.make({ downFor: 30, retryAfter: 1, quotaReset: 1 }).pipe(Scope.provide(scope))
    const scripted = chain.filter((drawn) => !drawn.http)
    const script: Scripted.Script = {
      places: Object.fromEntries(scripted.map((drawn) => [drawn.place, [
        Scripted.decide(() => {
          requests.push({ place: drawn.place, at: Date.now() })
          return outcomeOf(rng, Option.isSome(options.send))
        })
      ]])),
      whole
    }
    const http = Layer.effect(
      Backend.Backends,
      Effect.map(
        OpenAiCompatible.make({ name: "http", baseUrl: `${mock.url}/v1` }, { idle: Duration.millis(idle) }),
        (b) => Backend.Backends.of({ get: (cli) => cli === "http" ? Option.some(b) : Option.none(), all: [b] })
      )
    ).pipe(Layer.provide(
      // Trials of even seeds give the providers the dispatcher too: their whole replies go to it directly.
      seed % 2 === 0
        ? Layer.merge(
          NodeHttpClient.layerUndiciNoDispatcher,
          HttpProvider.layerDirect(NodeHttpClient.Dispatcher)
        ).pipe(Layer.provide(NodeHttpClient.layerDispatcher))
        : NodeHttpClient.layerUndici
    ))
    const backends = Layer.effect(
      Backend.Backends,
      Effect.gen(function*() {
        const one = yield* Effect.provide(Backend.Backends, Scripted.Scripted.layer(script))
        const two = yield* Effect.provide(Backend.Backends, http)
        return Backend.Backends.of({
          get: (cli) => Option.orElse(one.get(cli), () => two.get(cli)),
          all: [...one.all, ...two.all]
        })
      })
    )
    const steps = Layer.effectDiscard(
      Effect.gen(function*() {
        const store = yield* Steps.Steps
        for (let i = 1; i < chain.length; i++) yield* store.points(chain[i - 1]!.place, chain[i]!.place)
        for (const drawn of chain) {
          const retrying = retryingOf(rng)
          if (retrying !== undefined) yield* store.retrying(drawn.place, retrying[0], retrying[1])
        }
      }).pipe(Effect.orDie)
    )
    const world = Layer.provideMerge(
      steps,
      Layer.mergeAll(backends, Steps.Steps.layerMemory, Health.Health.layerMemory(breaker), silent)
    )

    const run = Effect.gen(function*() {
      const health = yield* Health.Health
      const agent = yield* Effect.orDie(Agent.make(chain[0]!.place, undefined, options))
      const deadline = Duration.toMillis(options.budget.deadline) +
        Option.match(options.send, { onNone: () => 0, onSome: Duration.toMillis })
      for (let turn = 0; turn < turns && Date.now() < stopAt; turn++) {
        yield* mock.script(rulesOf(rng, chain))
        const before = yield* blocked(health)
        const from = requests.length
        const fromHttp = (yield* mock.requests).total
        const events: Array<Backend.Event> = []
        let content: number | undefined = undefined
        const start = Date.now()
        const lateAtStart = Lag.late()
        const heard = (event: Backend.Event) => {
          if (content === undefined && Backend.isContent(event)) content = Date.now()
          events.push(event)
        }
        const taken = whole
          ? Effect.map(agent.reply(`turn ${turn}`), (all) => all.forEach(heard))
          : Stream.runForEach(agent.turn(`turn ${turn}`), (event) => Effect.sync(() => heard(event)))
        const exit = yield* (wallClock ? Effect.timeout(taken, Duration.millis(deadline + hardStop)) : taken).pipe(
          Effect.exit
        )
        const took = Date.now() - start
        const lag = Lag.late() - lateAtStart
        overrun = Math.max(overrun, took - deadline - lag)
        const http = (yield* mock.requests).log.slice(fromHttp)
        const asked = [
          ...requests.slice(from),
          ...http.map((request) => ({ place: `http/${request.model}`, at: request.at }))
        ]
        const wrong = [
          ...replayed(events),
          ...asked.flatMap((request) => {
            const until = before.get(request.place)
            return until !== undefined && request.at < until - 1
              ? [`a request reached ${request.place}, parked or cooling until ${until - request.at} ms later`]
              : []
          }),
          ...(content === undefined
            ? []
            : asked.filter((request) => request.at > content! + 1).map((request) =>
              `a request reached ${request.place} after the first content`
            ))
        ]
        if (took > deadline + margin + lag) late += 1
        if (wallClock && took > deadline + margin + lag) {
          wrong.push(
            `the turn took ${took} ms: over its ${deadline} ms bound, ${margin} ms and ${lag.toFixed(0)} ms of lag`
          )
        }
        if (Exit.isSuccess(exit)) {
          endings.push("answered")
        } else {
          const failure = Cause.findErrorOption(exit.cause)
          if (Option.isSome(failure) && Failure.isFailure(failure.value)) {
            endings.push(`failed ${failure.value._tag}`)
          } else if (Option.isSome(failure) && failure.value instanceof Agent.Cut) {
            // A streamed turn that failed after its first content, not continued: it ended, with what it delivered.
            const cut = failure.value
            endings.push(`cut ${cut.failure._tag}`)
            const text = events.flatMap((event) => event._tag === "Text" ? [event.text] : []).join("")
            if (whole || content === undefined) wrong.push("a Cut where no content had reached the caller")
            if (cut.delivered !== text) {
              wrong.push(`a Cut that says ${JSON.stringify(cut.delivered)} was delivered, not ${JSON.stringify(text)}`)
            }
          } else {
            endings.push("broken")
            wrong.push(
              Option.isSome(failure) && Cause.isTimeoutError(failure.value)
                ? `the turn had not ended ${hardStop} ms past its ${deadline} ms bound`
                : `the turn ended without a typed failure: ${Cause.pretty(exit.cause)}`
            )
          }
        }
        broken.push(...wrong.map((text) => `turn ${turn}: ${text}`))
      }
    }).pipe(
      Effect.provide(world),
      Effect.scoped,
      Effect.provideService(Metric.FiberRuntimeMetrics, live.counter)
    )

    yield* run
    yield* Scope.close(scope, Exit.void)
    if (live.running !== 0) broken.push(`${live.running} fibers still running after the trial's scope closed`)
    return { seed, whole, endings, overrun, late, broken, chain: chain.map((drawn) => drawn.place) }
  })
