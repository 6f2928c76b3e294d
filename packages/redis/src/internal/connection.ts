/**
 * The connection to Redis: `effect/persistence/Redis` through `@effect/platform-node`'s NodeRedis
 * layer, opened again when it could not be, and the change channel's subscriber.
 *
 * @internal
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redis from "effect/persistence/Redis"
import * as References from "effect/References"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"

/** What the connection needs to know. */
export interface Options {
  readonly url: string
  readonly password: string | undefined
  /** How long a connection and an answer are waited for (ms). */
  readonly timeout: number
  /** The longest wait between two tries to reach Redis again (ms). */
  readonly retryAfter: number
  readonly channel: string
  /** A place was published on the change channel. */
  readonly changed: (place: string) => void
  /** The change channel is heard (true) or may have missed a change (false). */
  readonly hearing: (heard: boolean) => void
}

/** Redis did not answer: why, as a person may read it (the caller masks secrets). */
export class Away {
  readonly _tag = "Away"
  constructor(readonly reason: string) {}
}

/** Connected Redis, or the reason it is not, and a way to run one operation on it. */
export interface Connection {
  readonly run: <A>(
    ask: (redis: Redis.Redis["Service"]) => Effect.Effect<A, Redis.RedisError>
  ) => Effect.Effect<A, Away>
}

const reasonOf = (error: unknown, timeout: number): string => {
  if (Cause.isTimeoutError(error)) return `no answer within ${timeout} ms`
  const cause = typeof error === "object" && error !== null && "cause" in error ? error.cause : error
  const message = cause instanceof Error ? cause.message : typeof cause === "string" ? cause : "no answer"
  if (/timed? ?out/i.test(message)) return `no answer within ${timeout} ms`
  return message.split("\n")[0]!.slice(0, 120)
}

/** How long a client waits before trying to reach Redis again, `retryAfter` at most. */
const backoff = (retryAfter: number) => (retries: number) => Math.min(50 * (retries + 1), retryAfter)

interface Open {
  readonly redis: Redis.Redis["Service"]
  readonly scope: Scope.Closeable
  readonly isOpen: () => boolean
}

/**
 * Opens a connection in the scope at once, and again when an operation finds none: a Redis that
 * refuses or is not there fails the operation at once; one slow to accept or to answer is waited
 * for, `timeout` at most. Once connected, the client reconnects by itself and fails operations at once
 * while it is away (no offline queue), so an operation never waits for a Redis that is not there.
 */
export const make = (options: Options): Effect.Effect<Connection, never, Scope.Scope> =>
  Effect.gen(function*() {
    const parent = yield* Effect.scope
    const lock = yield* Semaphore.make(1)
    let current: Open | undefined

    const open = Effect.gen(function*() {
      const scope = yield* Scope.fork(parent)
      // The first connection fails on its first error; once connected, the client tries again
      // every `retryAfter` at most, for as long as it lives.
      let connected = false
      const socket = {
        connectTimeout: Math.max(options.timeout, 1_000),
        // A connection that hears nothing for `timeout` is closed: a Redis that stopped answering
        // (its handshake included, which has no timeout of its own) is away, not waited for.
        socketTimeout: options.timeout,
        reconnectStrategy: (retries: number, cause: Error) => connected ? backoff(options.retryAfter)(retries) : cause
      }
      const context = yield* Layer.buildWithScope(
        NodeRedis.layer({
          url: options.url,
          ...(options.password === undefined ? {} : { password: options.password }),
          name: "fallback-health",
          disableOfflineQueue: true,
          // an idle connection is kept from its socket timeout
          pingInterval: Math.max(Math.floor(options.timeout / 3), 50),
          commandOptions: { timeout: options.timeout },
          socket
        }),
        scope
      ).pipe(
        // The client's errors reach the operations that meet them, and the notices say so.
        Effect.provideService(References.MinimumLogLevel, "None"),
        Effect.onError(() => Scope.close(scope, Exit.void))
      )
      connected = true
      const client = Context.get(context, NodeRedis.NodeRedis).client
      yield* subscribe(client, socket, options, scope)
      return { redis: Context.get(context, Redis.Redis), scope, isOpen: () => client.isOpen }
    })

    const connection = lock.withPermits(1)(Effect.suspend(() => {
      if (current !== undefined && current.isOpen()) return Effect.succeed(current.redis)
      const closing = current === undefined ? Effect.void : Scope.close(current.scope, Exit.void)
      current = undefined
      return Effect.andThen(closing, Effect.map(open, (opened) => (current = opened).redis))
    }))

    const away = (error: unknown) => new Away(reasonOf(error, options.timeout))
    // The first connection is made at once; when it cannot be, the first operation hears why.
    let unheard = yield* Effect.match(connection, { onFailure: away, onSuccess: () => undefined })

    return {
      run: (ask) =>
        Effect.suspend(() => {
          if (unheard !== undefined) {
            const first = unheard
            unheard = undefined
            return Effect.fail(first)
          }
          return Effect.flatMap(connection, (redis) => Effect.timeout(ask(redis), options.timeout)).pipe(
            Effect.mapError(away)
          )
        })
    }
  })

type Client = NodeRedis.NodeRedis["Service"]["client"]

/**
 * The change channel, on a connection of its own whose events are heard: Redis's own `subscribe`
 * resubscribes after a drop without saying so, and a change published meanwhile is lost, so what
 * was cached must be dropped then.
 */
const subscribe = (
  client: Client,
  socket: { readonly connectTimeout: number; readonly socketTimeout: number },
  options: Options,
  scope: Scope.Scope
): Effect.Effect<void> =>
  Effect.gen(function*() {
    const subscriber = client.duplicate({
      name: "fallback-health-changes",
      socket: { ...socket, reconnectStrategy: backoff(options.retryAfter) }
    })
    yield* Scope.addFinalizer(scope, Effect.sync(() => subscriber.isOpen && subscriber.destroy()))
    let readies = 0
    const lost = () => options.hearing(false)
    subscriber.on("error", lost)
    subscriber.on("end", lost)
    subscriber.on("reconnecting", lost)
    // Past the first, a ready connection has resubscribed once a command sent after it is answered.
    subscriber.on("ready", () => {
      if (readies++ === 0) return
      subscriber.sendCommand(["PING"]).then(() => options.hearing(true), lost)
    })
    yield* Effect.promise(() =>
      subscriber.connect()
        .then(() => subscriber.subscribe(options.channel, (place) => options.changed(place)))
        .then(() => options.hearing(true), lost)
    ).pipe(Effect.timeout(options.timeout), Effect.ignore)
  })
