import * as Chunk from "effect/Chunk"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { pipe } from "effect/Function"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import * as Answer from "../../Answer.js"
import type * as Backend from "../../Backend.js"
import type * as Compactor from "../../Compactor.js"
import * as Failure from "../../Failure.js"
import type * as Health from "../../Health.js"
import { Notice } from "../../Notice.js"
import type * as Place from "../../Place.js"
import * as Policy from "../../Policy.js"
import type * as Steps from "../../Steps.js"
import { atLeast, beforeDeadline, fromDelays, honouring, jittered, stepper, stop } from "../policy.js"
import * as telemetry from "../telemetry/index.js"
import { promptOf } from "./attempt.js"
import { skipping } from "./made.js"
import type { StandIns } from "./standIns.js"
import * as State from "./state.js"
import type { Run } from "./state.js"

/**
 * What one place gave: an answer (a stream, or a whole reply), a failure, or a skip without a
 * request (with the failure recorded against the place, and when).
 *
 * @internal
 */
export type AtPlace<A> =
  | { readonly _tag: "Answered"; readonly answer: A }
  | Unanswered

/** @internal */
export type Unanswered =
  | { readonly _tag: "Failed"; readonly failure: Failure.Failure }
  | { readonly _tag: "Skipped"; readonly last: Failure.Failure }

const answered = <A>(answer: A): AtPlace<A> => ({ _tag: "Answered", answer })
const failed = (failure: Failure.Failure): Unanswered => ({ _tag: "Failed", failure })
const skipped = (last: Failure.Failure): Unanswered => ({ _tag: "Skipped", last })

/**
 * One request at a place, the way a turn takes it: as a stream (`turn`) or answered whole
 * (`reply`).
 *
 * @internal
 */
export type Request<A> = (
  run: Run,
  place: Place.Place,
  prompt: Backend.Prompt
) => Effect.Effect<Result.Result<A, Failure.Failure>>

/**
 * Where a place's turn stands when it starts: its admission, and the first attempt's result if
 * already made.
 *
 * @internal
 */
export interface Admitted<A> {
  readonly admission: Health.Admission
  readonly first?: Result.Result<A, Failure.Failure> | undefined
}

/**
 * How a turn reached a place.
 *
 * @internal
 */
export type Move = "start" | "account" | "place"

/**
 * What the requests at a place use of the agent.
 *
 * @internal
 */
export interface Uses {
  readonly health: Health.Health.Service
  readonly steps: Steps.Service
  readonly compactor: Option.Option<Compactor.Service>
  readonly standIns: StandIns
}

/**
 * A route that sent nothing within the first byte's limit is not asked again at the same place,
 * whatever its answer's goes: the turn moves on (accounts, then places) at once. The limit's own
 * Timeout says "no first byte" (the engine's, and a backend's keeping the limits it was given); a
 * timeout a provider reported itself (a 408, ETIMEDOUT) takes its answer.
 */
const silent = (failure: Failure.Failure) =>
  failure._tag === "Timeout" && failure.phase === "first-byte" && failure.said === noFirstByte

const noFirstByte = Failure.said("no first byte")

/** The wait a failure asked for itself (a Retry-After), in millis: 0 when it asked for none. */
const askedFor = (failure: Failure.Failure) =>
  failure._tag === "RateLimited" && failure.retryAfter !== undefined ? Duration.toMillis(failure.retryAfter) : 0

/**
 * The least wait a failure allows before the next go: its kind's least, or the wait it asked for
 * itself (a Retry-After), whichever is longer; an answer that moves on a longer Retry-After is
 * not stretched by it.
 */
const least = (answer: Answer.Answer) => (failure: Failure.Failure) =>
  Math.max(Duration.toMillis(answer.atLeast), answer.retryAfter === "waits" ? askedFor(failure) : 0)

/**
 * The waits at a place, as one Schedule fed the failures: the goes the kind asks for (`here`),
 * then the step's (`Policy.toSchedule`, whose timeout is counted from the place's first go), each
 * raised to the failure's least wait, and none that would start past the turn's deadline.
 *
 * @internal
 */
export const waitsAt = (
  answer: Answer.Answer,
  retrying: Policy.Retrying,
  placeStartedAt: number,
  deadline: number
): Schedule.Schedule<Duration.Duration, Failure.Failure> => {
  const floor = least(answer)
  const [first, ...rest] = answer.here
  const own = first === undefined
    ? undefined
    : pipe(fromDelays([first, ...rest]), jittered(answer.jitter), atLeast(floor))
  const step = answer.step && retrying.tries > 0
    ? Policy.toSchedule(retrying, placeStartedAt, (failure: Failure.Failure) => Duration.millis(floor(failure)))
    : undefined
  const both: Schedule.Schedule<Duration.Duration, Failure.Failure> = own !== undefined && step !== undefined
    ? Schedule.concat(own, step)
    : own ?? step ?? stop
  // A short Retry-After is the next wait exactly; a longer one moves on (see `Answer.honours`).
  const honoured = answer.honours === undefined
    ? both
    : pipe(both, honouring(Duration.toMillis(answer.honours), askedFor, floor))
  // A go that would start at the deadline itself would have no time at all.
  return pipe(honoured, beforeDeadline(deadline - 1))
}

/** The waits at a place for one answer, and how far they have got. */
interface Waits {
  readonly answer: Answer.Answer
  /** When the next go starts after a failure at `now`; none when the waits are over. */
  readonly next: (now: number, failure: Failure.Failure) => Effect.Effect<number | undefined>
  goes: number
}

/** How many goes beyond the first an answer allows at most, before the clock has its say. */
const goesOf = (answer: Answer.Answer, retrying: Policy.Retrying) =>
  answer.here.length + (answer.step ? retrying.tries : 0)

/** One place's goes as they stand: what the place admitted, and the waits so far. */
interface Here<A> {
  readonly uses: Uses
  readonly run: Run
  readonly place: Place.Place
  readonly move: Move
  readonly text: string
  readonly go: Request<A>
  readonly admission: Health.Admission
  readonly placeStartedAt: number
  retried: boolean
  stepRetrying: Policy.Retrying | undefined
  /** The waits of each answer given here so far: a kind's goes are counted across the others'. */
  waits: Map<Answer.Answer, Waits> | undefined
}

/**
 * Step 3: goes at one place, with the waits the step and the failure's answer ask for. `entry`
 * is given when the place was already admitted, and its first attempt perhaps already made.
 * `announce`, called once the place is admitted, says the turn is moving there.
 *
 * A trial the place hands out is noted on the run until the place answers or fails (the turn
 * gives back, when it ends, a trial still noted then): no finalizer per place.
 *
 * @internal
 */
export const atPlace = <A>(
  uses: Uses,
  run: Run,
  place: Place.Place,
  move: Move,
  announce: (() => Effect.Effect<void>) | undefined,
  text: string,
  go: Request<A>,
  entry: Admitted<A> | undefined
): Effect.Effect<AtPlace<A>> => {
  const enter = (admission: Health.Admission): Effect.Effect<AtPlace<A>> => {
    if (admission._tag === "Skip") return skip(run, place, admission)
    State.arrived(run, move)
    const first = entry?.first
    const here: Here<A> = {
      uses,
      run,
      place,
      move,
      text,
      go,
      admission,
      placeStartedAt: first === undefined ? run.clock.currentTimeMillisUnsafe() : run.startedAt,
      retried: false,
      stepRetrying: undefined,
      waits: undefined
    }
    const begin = first === undefined ? request(here) : settle(here, promptOf(text, run.history), first)
    const begun = announce === undefined ? begin : Effect.andThen(announce(), begin)
    if (admission._tag !== "Trial") return begun
    State.holdTrial(run, place)
    return Effect.map(begun, (outcome) => {
      State.holdTrial(run, undefined)
      return outcome
    })
  }
  return entry === undefined ? Effect.flatMap(uses.health.admit(place), enter) : enter(entry.admission)
}

const skip = (run: Run, place: Place.Place, admission: Extract<Health.Admission, { _tag: "Skip" }>) => {
  const now = run.clock.currentTimeMillisUnsafe()
  return Effect.as(
    run.notices.publish(skipping(
      place,
      admission.why,
      admission.until,
      admission.until === undefined ? undefined : Duration.millis(Math.max(0, admission.until - now)),
      admission.last
    )),
    skipped(admission.last)
  )
}

/** One request at the place, and what it gave. */
const request = <A>(here: Here<A>): Effect.Effect<AtPlace<A>> => {
  const { go, move, place, run } = here
  const prompt = promptOf(here.text, run.history)
  return Effect.flatMap(
    telemetry.attempt(run, place, move, go(run, place, prompt)),
    (result) => settle(here, prompt, result)
  )
}

/** What one request gave: the answer, or its failure recorded and answered as the table says. */
const settle = <A>(
  here: Here<A>,
  prompt: Backend.Prompt,
  result: Result.Result<A, Failure.Failure>
): Effect.Effect<AtPlace<A>> => {
  const { admission, place, run, uses } = here
  telemetry.attempted(run, place, result)
  if (Result.isSuccess(result)) {
    const outcome = answered(result.success)
    return admission._tag !== "Go" || admission.held || here.retried
      ? Effect.as(uses.health.succeeded(place), outcome)
      : Effect.succeed(outcome)
  }
  const failure = result.failure
  const now = run.clock.currentTimeMillisUnsafe()
  const answer = Answer.of(run.options.answers, failure)
  const cools = coolUntil(answer, failure, now)
  // A failure that does not count and cools nothing says nothing of the place: nothing is written.
  const recorded = !answer.counts && Option.isNone(cools)
    ? Effect.void
    : uses.health.failed(place, { failure, counts: answer.counts, coolUntil: cools })
  // A kind that moves at once, or a failed trial (one request, the place parked again at once):
  // nothing more to work out here.
  if (
    failure._tag !== "ContextTooLong" &&
    (admission._tag === "Trial" || silent(failure) || (answer.here.length === 0 && !answer.step))
  ) {
    return Effect.as(recorded, failed(failure))
  }
  return Effect.andThen(
    recorded,
    Effect.flatMap(
      again(here, prompt, failure, answer, now),
      (next) => next === undefined ? request(here) : Effect.succeed(next)
    )
  )
}

/**
 * After a failure the place may answer: a shorter history (ContextTooLong), or a wait before the
 * next go. `undefined`: go again.
 */
const again = <A>(
  here: Here<A>,
  prompt: Backend.Prompt,
  failure: Failure.Failure,
  answer: Answer.Answer,
  now: number
): Effect.Effect<AtPlace<A> | undefined> =>
  Effect.gen(function*() {
    const { place, run, uses } = here
    const { compactor, standIns } = uses
    const notices = run.notices
    if (failure._tag === "ContextTooLong") {
      if (Option.isNone(compactor) || State.spent(run, now)) return failed(failure)
      const shorter = yield* compactor.value.compact(prompt)
      if (Option.isSome(shorter) && shorter.value.length < Chunk.size(run.history)) {
        State.compacted(run, shorter.value)
        yield* notices.publish(Notice.Compacting({ place, failure, how: "compact" }))
        return undefined
      }
      if (!State.trimmed(run)) return failed(failure)
      yield* notices.publish(Notice.Compacting({ place, failure, how: "trim" }))
      return undefined
    }
    if (answer.here.length === 0 && !answer.step) return failed(failure)
    const retrying = answer.step ? (here.stepRetrying ??= yield* retryingAt(uses, place)) : Policy.never
    if (goesOf(answer, retrying) === 0 || State.spent(run, now)) return failed(failure)
    here.waits ??= new Map()
    let waits = here.waits.get(answer)
    if (waits === undefined) {
      const next = yield* stepper(waitsAt(answer, retrying, here.placeStartedAt, run.deadline))
      waits = { answer, next, goes: 0 }
      here.waits.set(answer, waits)
    }
    const at = yield* waits.next(now, failure)
    if (at === undefined) return failed(failure)
    // 002: a Retry-After longer than the next wait does not stretch the ladder; the cooldown it
    // set (see `coolUntil`) keeps the place out while the turn goes on elsewhere at once.
    if (answer.retryAfter === "moves" && askedFor(failure) > at - now) return failed(failure)
    waits.goes += 1
    here.retried = true
    const wait = Duration.millis(at - now)
    yield* notices.publish(
      Notice.Retrying({
        place,
        failure,
        wait,
        go: waits.goes,
        of: goesOf(answer, retrying),
        reopen: answer.reopen,
        remedy: Answer.remedy(answer)
      })
    )
    yield* telemetry.wait(run, place, failure, Duration.toMillis(wait))
    if (answer.reopen) yield* standIns.reopen(place, Option.fromNullishOr(State.sessionAt(run, place)))
    return undefined
  })

const retryingAt = (uses: Uses, place: Place.Place) =>
  uses.steps.get(place).pipe(
    Effect.map((step) => Option.getOrElse(Option.flatMap(step, (s) => s.retrying), () => Policy.never)),
    Effect.orElseSucceed(() => Policy.never)
  )

/**
 * Until when a failure cools its place down: a spent quota until the time it names, a rate limit
 * at least as long as it asked, else the answer's cooldown; none where the answer has none.
 *
 * @internal
 */
export const coolUntil = (answer: Answer.Answer, failure: Failure.Failure, now: number): Option.Option<number> => {
  if (answer.cooldown === undefined) return Option.none()
  if (answer.coolsOn !== undefined && !("status" in failure && answer.coolsOn.includes(failure.status ?? -1))) {
    return Option.none()
  }
  if (failure._tag === "QuotaExhausted" && failure.until !== undefined) {
    return Option.some(DateTime.toEpochMillis(failure.until))
  }
  if (failure._tag === "RateLimited" && failure.retryAfter !== undefined) {
    return Option.some(now + Math.max(Duration.toMillis(failure.retryAfter), Duration.toMillis(answer.cooldown)))
  }
  return Option.some(now + Duration.toMillis(answer.cooldown))
}
