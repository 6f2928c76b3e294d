/**
 * Notices narrate recovery while it happens, so a run that is recovering does not read as a run
 * that has hung: every retry, wait, move and stop is a typed event published to watchers, and
 * where nothing watches it goes to stderr as a line:
 *
 *   claude@work is rate-limited; a wait, another account or another place is what answers it; trying again in 30s (1 of 1)
 *   claude@work is rate-limited; a wait, another account or another place is what answers it; carrying on as home
 *
 * A wait is announced before it starts.
 *
 * @since 0.1.0
 */
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as DateTime from "effect/DateTime"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Failure from "./Failure.js"
import { wait } from "./internal/words.js"
import * as Place from "./Place.js"

/**
 * What a turn is doing about a failure.
 *
 * - `Retrying`: going again at the same place after `wait` (go `go` of `of`), reopening first when
 *   `reopen` says so.
 * - `Moving`: carrying on at another account (`by: "account"`) or place (`by: "place"`); with
 *   `skipped`, `from` was skipped without a request and `failure` is what was last recorded there.
 * - `Skipping`: a place not asked at all: parked, cooling, its one trial already out, failing its
 *   health check, served by a provider that failed, or with too small a context window; `left`
 *   is how long it stays so, where known.
 * - `Compacting`: sending a shorter history again (`how: "compact"` or `"trim"`).
 * - `Probing`: a stream has sent nothing for `quiet` and its place did not answer a probe (`failed`
 *   of the `of` that end the attempt).
 * - `Stalled`: an answer already streaming has sent nothing for `quiet`; at `limit` it ends as
 *   Unresponsive with what it delivered.
 * - `Fresh`: the session a place was to resume is not there (an account move to an account that
 *   never saw it); a fresh one is opened there, with the conversation carried as text.
 * - `Malformed`: an answer that completed carried `skipped` events that were no JSON; they were
 *   skipped.
 * - `Stopping`: the turn fails as it failed, and `reason` says why it goes no further.
 * - `Sharing`: the shared store of health (`store`, named without secrets) did not answer, so health
 *   is kept in this process until it does (`shared: false`, with `reason`); or it answers again;
 *   or (`unwritten`) a change to health could not be written there, and `reason` says what was not kept.
 *
 * `remedy`, where given, is what the answer table in use says answers the failure.
 *
 * @since 0.1.0
 * @category models
 */
export type Notice = Data.TaggedEnum<{
  Retrying: {
    readonly place: Place.Place
    readonly failure: Failure.Failure
    readonly wait: Duration.Duration
    readonly go: number
    readonly of: number
    readonly reopen: boolean
    readonly remedy?: string | undefined
  }
  Moving: {
    readonly from: Place.Place
    readonly to: Place.Place
    readonly failure: Failure.Failure
    readonly by: "account" | "place"
    readonly remedy?: string | undefined
    readonly skipped?: boolean | undefined
  }
  Skipping: {
    readonly place: Place.Place
    readonly why: "parked" | "cooling" | "trial" | "unhealthy" | "provider" | "window"
    readonly until: number | undefined
    readonly left?: Duration.Duration | undefined
    /** What the place last failed with, where its health holds it. */
    readonly last?: Failure.Failure | undefined
  }
  Compacting: {
    readonly place: Place.Place
    readonly failure: Failure.Failure
    readonly how: "compact" | "trim"
    readonly remedy?: string | undefined
  }
  Probing: {
    readonly place: Place.Place
    readonly quiet: Duration.Duration
    readonly failed: number
    readonly of: number
  }
  Stalled: { readonly place: Place.Place; readonly quiet: Duration.Duration; readonly limit: Duration.Duration }
  Fresh: { readonly place: Place.Place; readonly session: string }
  Malformed: { readonly place: Place.Place; readonly skipped: number }
  Stopping: {
    readonly place: Place.Place
    readonly failure: Failure.Failure
    readonly reason: string
    readonly remedy?: string | undefined
    readonly skipped?: boolean | undefined
  }
  Sharing: {
    readonly store: string
    readonly shared: boolean
    readonly reason: string
    readonly unwritten?: boolean | undefined
  }
}>

/**
 * Makes and matches {@link Notice}s.
 *
 * @since 0.1.0
 * @category constructors
 */
export const Notice = Data.taggedEnum<Notice>()

const skipped = {
  parked: "is parked after failing too often in a row",
  cooling: "is cooling down",
  trial: "is parked while its one trial request is out",
  unhealthy: "failed its health check",
  provider: "is served by a provider that already failed this turn",
  window: "has a context window smaller than the prompt"
} as const

const until = (left: Duration.Duration | undefined, millis: number | undefined) =>
  left !== undefined
    ? ` for another ${wait(left)}`
    : millis === undefined
    ? ""
    : ` until ${DateTime.formatIso(DateTime.makeUnsafe(millis))}`

const what = (failure: Failure.Failure, remedy: string | undefined) =>
  remedy === undefined ? Failure.describe(failure) : `${Failure.describe(failure)}; ${remedy}`

const carried = (n: { readonly by: "account" | "place"; readonly to: Place.Place }) =>
  n.by === "account" && n.to.account !== undefined
    ? `carrying on as ${n.to.account}`
    : `carrying on at ${Place.format(n.to)}`

/** Why a place cools down for a day, and what ends it sooner. */
const remembered = (
  n: { readonly place: Place.Place; readonly why: string; readonly last?: Failure.Failure | undefined }
) =>
  n.why !== "cooling"
    ? ""
    : n.last?._tag === "AuthRefused"
    ? ` (it refused the credentials: sign in again, then \`fallback status --clear ${Place.format(n.place)}\`)`
    : n.last?._tag === "ModelNotFound"
    ? ` (it has no model ${n.place.model}: \`fallback status --clear ${Place.format(n.place)}\` once it has)`
    : ""

/**
 * A notice as the line a person reads.
 *
 * @since 0.1.0
 * @category utils
 */
export const format: (notice: Notice) => string = Notice.$match({
  Retrying: (n) =>
    `${what(n.failure, n.remedy)}; ${n.reopen ? "reopening and " : ""}trying again in ${
      wait(n.wait)
    } (${n.go} of ${n.of})`,
  Moving: (n) =>
    n.skipped === true
      ? `${Place.format(n.from)} was skipped; ${carried(n)}`
      : `${what(n.failure, n.remedy)}; ${carried(n)}`,
  Skipping: (n) => `${Place.format(n.place)} ${skipped[n.why]}${until(n.left, n.until)}${remembered(n)}; skipping it`,
  Compacting: (n) =>
    `${Failure.describe(n.failure)}; ${
      n.how === "compact" ? "compacting the history" : "trimming the oldest exchange"
    } and sending it again`,
  Probing: (n) =>
    `${Failure.who(n.place)} has sent nothing for ${wait(n.quiet)} and did not answer a probe (${n.failed} of ${n.of})`,
  Stalled: (n) =>
    `${Failure.who(n.place)} has sent nothing for ${wait(n.quiet)} since its answer began; it ends at ${
      wait(n.limit)
    } with what it sent`,
  Fresh: (n) =>
    `${
      Failure.who(n.place)
    } has no session ${n.session} to resume; opening a fresh one there, with the conversation carried as text`,
  Malformed: (n) =>
    `${Failure.who(n.place)} sent ${n.skipped} malformed event${n.skipped === 1 ? "" : "s"} in its answer; skipped`,
  Stopping: (n) =>
    n.skipped === true
      ? `${Place.format(n.place)} was skipped (it last failed: ${
        Failure.describe(n.failure)
      }); the turn fails here: ${n.reason}`
      : `${Failure.describe(n.failure)}; the turn fails here: ${n.reason}`,
  Sharing: (n) =>
    n.unwritten === true
      ? `${n.store} was not changed (${n.reason})`
      : n.shared
      ? `health is shared through ${n.store} again`
      : `${n.store} did not answer (${n.reason}); health is kept in this process until it does`
})

/**
 * What a notice service does: publish a notice, and watch what is published from now on for as
 * long as the scope lasts.
 *
 * @since 0.1.0
 * @category models
 */
export interface Channel {
  readonly publish: (notice: Notice) => Effect.Effect<void>
  readonly watch: Effect.Effect<Stream.Stream<Notice>, never, Scope.Scope>
}

/**
 * The service {@link Notices} holds (the same as {@link Channel}).
 *
 * @since 0.1.0
 * @category models
 */
export type Service = Channel

/**
 * Where notices go (a `Context.Reference`: a layer of it provides nothing new by type). With no layer given, each goes to stderr as a line; {@link Notices.layer}
 * publishes them to watchers and falls back to stderr while none watches.
 *
 * @since 0.1.0
 * @category services
 */
export class Notices extends Context.Reference<Channel>("@fallback/core/Notices", {
  defaultValue: (): Channel => ({
    publish: (notice) => Console.error(format(notice)),
    watch: Effect.succeed(Stream.empty)
  })
}) {
  /**
   * Notices published to every watcher; to stderr while nothing watches.
   *
   * @since 0.1.0
   */
  static readonly layer: Layer.Layer<never> = Layer.effect(
    Notices,
    Effect.gen(function*() {
      const hub = yield* Effect.acquireRelease(PubSub.unbounded<Notice>(), PubSub.shutdown)
      const watchers = yield* Ref.make(0)
      const channel: Channel = {
        publish: (notice) =>
          Effect.flatMap(
            Ref.get(watchers),
            (count) => count === 0 ? Console.error(format(notice)) : Effect.asVoid(PubSub.publish(hub, notice))
          ),
        watch: Effect.gen(function*() {
          const subscription = yield* PubSub.subscribe(hub)
          yield* Effect.acquireRelease(Ref.update(watchers, (n) => n + 1), () => Ref.update(watchers, (n) => n - 1))
          return Stream.fromSubscription(subscription)
        })
      }
      return channel
    })
  )
}
