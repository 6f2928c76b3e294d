import { spawn } from "node:child_process"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Mailbox from "effect/Mailbox"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"

/**
 * What to run: the binary (a path, or a name looked up on the child's `PATH`), its arguments, the
 * whole environment it gets and the folder it runs in.
 *
 * @internal
 */
export interface Spec {
  readonly bin: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly cwd: string
}

/**
 * One line a child printed, and on which stream.
 *
 * @internal
 */
export interface Line {
  readonly stream: "stdout" | "stderr"
  readonly text: string
}

/**
 * How a child ended: its exit status, or the signal that ended it.
 *
 * @internal
 */
export interface Ended {
  readonly exitCode: number | null
  readonly signal: string | null
}

/**
 * A child that would not start: `code` is the system's (`ENOENT`, `EACCES`, …).
 *
 * @internal
 */
export class Unstarted extends Schema.TaggedError<Unstarted>("@fallback/backends/Unstarted")("Unstarted", {
  code: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/**
 * A running child in its own process group: its lines as they come, how it ended once it has, and
 * a way to stop the whole group.
 *
 * @internal
 */
export interface Child {
  readonly pid: number
  readonly lines: Stream.Stream<Line>
  readonly ended: Effect.Effect<Ended>
  readonly stop: Effect.Effect<void>
}

/** Signals a whole process group; a group already gone is not an error. */
const signalGroup = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-pid, signal)
  } catch {
    // the group has no process left
  }
}

/** Splits a byte stream into lines, handing each complete one on and the rest at the end. */
const lineReader = (stream: Line["stream"], onLine: (line: Line) => void) => {
  let rest = ""
  return {
    push: (chunk: Buffer) => {
      const parts = (rest + chunk.toString("utf8")).split("\n")
      rest = parts.pop() ?? ""
      for (const text of parts) onLine({ stream, text: text.endsWith("\r") ? text.slice(0, -1) : text })
    },
    flush: () => {
      if (rest.length > 0) onLine({ stream, text: rest })
      rest = ""
    }
  }
}

/**
 * Starts a child in its own process group with stdin closed, no shell in between. When the
 * child's leader exits, whatever it left behind in its group is killed; when the scope closes
 * first, the group gets SIGTERM, then SIGKILL after `grace`, and the scope waits for it to go.
 *
 * @internal
 */
export const start = (spec: Spec, grace: Duration.Duration): Effect.Effect<Child, Unstarted, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<Child, Unstarted>((resume) => {
      const lines = Effect.runSync(Mailbox.make<Line>())
      const ended = Effect.runSync(Deferred.make<Ended>())
      const offer = (line: Line) => {
        lines.unsafeOffer(line)
      }
      const out = lineReader("stdout", offer)
      const err = lineReader("stderr", offer)
      const child = spawn(spec.bin, [...spec.args], {
        cwd: spec.cwd,
        env: spec.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"]
      })
      child.stdout.on("data", out.push)
      child.stderr.on("data", err.push)
      child.once("error", (error: NodeJS.ErrnoException) => {
        if (child.pid === undefined) resume(Effect.fail(new Unstarted({ code: error.code ?? "UNKNOWN", reason: error.message })))
      })
      child.once("exit", () => {
        if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL")
      })
      child.once("close", (exitCode, signal) => {
        out.flush()
        err.flush()
        lines.unsafeDone(Exit.void)
        Deferred.unsafeDone(ended, Exit.succeed({ exitCode, signal }))
      })
      child.once("spawn", () => {
        const pid = child.pid!
        const gone = Deferred.await(ended).pipe(Effect.interruptible)
        resume(Effect.succeed({
          pid,
          lines: Mailbox.toStream(lines),
          ended: Deferred.await(ended),
          stop: Effect.suspend(() => {
            if (Effect.runSync(Deferred.isDone(ended))) return Effect.void
            signalGroup(pid, "SIGTERM")
            return gone.pipe(
              Effect.timeout(grace),
              Effect.catchAll(() => {
                signalGroup(pid, "SIGKILL")
                return gone.pipe(Effect.timeout(Duration.seconds(5)), Effect.ignore)
              }),
              Effect.asVoid
            )
          })
        }))
      })
    }),
    (child) => child.stop
  )
