import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { spawn } from "node:child_process"
import { StringDecoder } from "node:string_decoder"

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
  /** Whether the child itself has not exited yet (what it left in its group may still be there). */
  readonly running: Effect.Effect<boolean>
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

/**
 * The most of one line that is kept: the rest of a longer line is dropped (a line this long is no
 * event a CLI prints for a turn), so memory stays bounded whatever a CLI prints.
 *
 * @internal
 */
export const longestLine = 4 * 2 ** 20

/**
 * The most of one stream's lines a turn keeps to judge how the run ended: the latest ones.
 *
 * @internal
 */
export const keptOutput = 8 * 2 ** 20

/**
 * How long the pipes may stay open after the child has exited: a process it left in the
 * background holding them does not hold the turn.
 *
 * @internal
 */
export const pipeGrace = Duration.seconds(1)

/**
 * Splits a byte stream into lines in linear time, handing each complete one on and the rest at
 * the end; a line is cut at {@link longestLine}.
 */
const lineReader = (stream: Line["stream"], onLine: (line: Line) => void) => {
  const decoder = new StringDecoder("utf8")
  let pending: Array<string> = []
  let pendingLength = 0
  let dropped = 0
  const keep = (piece: string) => {
    const room = longestLine - pendingLength
    if (piece.length <= room) {
      pending.push(piece)
      pendingLength += piece.length
    } else {
      if (room > 0) pending.push(piece.slice(0, room))
      pendingLength += Math.max(0, room)
      dropped += piece.length - Math.max(0, room)
    }
  }
  const emit = () => {
    let text = pending.length === 1 ? pending[0]! : pending.join("")
    if (dropped > 0) text += `… (${dropped} more characters)`
    else if (text.endsWith("\r")) text = text.slice(0, -1)
    pending = []
    pendingLength = 0
    dropped = 0
    onLine({ stream, text })
  }
  const take = (text: string) => {
    let from = 0
    for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", from)) {
      keep(text.slice(from, newline))
      emit()
      from = newline + 1
    }
    if (from < text.length) keep(text.slice(from))
  }
  return {
    push: (chunk: Buffer) => take(decoder.write(chunk)),
    flush: () => {
      take(decoder.end())
      if (pendingLength > 0 || dropped > 0) emit()
    }
  }
}

/**
 * The latest lines of one stream, no more than {@link keptOutput} characters of them.
 *
 * @internal
 */
export const keptLines = () => {
  const lines: Array<string> = []
  let first = 0
  let length = 0
  return {
    push: (line: string) => {
      lines.push(line)
      length += line.length + 1
      while (length > keptOutput && first < lines.length - 1) length -= lines[first++]!.length + 1
      if (first > 1024 && first * 2 > lines.length) {
        lines.splice(0, first)
        first = 0
      }
    },
    text: () => lines.slice(first).join("\n")
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
    Effect.gen(function*() {
      const lines = yield* Queue.unbounded<Line, Cause.Done>()
      const ended = yield* Deferred.make<Ended>()
      return yield* Effect.callback<Child, Unstarted>((resume) => {
        const offer = (line: Line) => {
          Queue.offerUnsafe(lines, line)
        }
        const out = lineReader("stdout", offer)
        const err = lineReader("stderr", offer)
        let child: ReturnType<typeof spawn>
        try {
          child = spawn(spec.bin, [...spec.args], {
            cwd: spec.cwd,
            env: spec.env,
            detached: true,
            stdio: ["ignore", "pipe", "pipe"]
          })
        } catch (error) {
          // node refuses some arguments before starting anything (a NUL byte in one)
          const code = (error as NodeJS.ErrnoException).code ?? "EINVAL"
          return resume(Effect.fail(new Unstarted({ code, reason: (error as Error).message })))
        }
        const stdout = child.stdout!
        const stderr = child.stderr!
        stdout.on("data", out.push)
        stderr.on("data", err.push)
        let finished = false
        let exited = false
        let pipes: ReturnType<typeof setTimeout> | undefined = undefined
        const finish = (exitCode: number | null, signal: NodeJS.Signals | null) => {
          if (finished) return
          finished = true
          if (pipes !== undefined) clearTimeout(pipes)
          out.flush()
          err.flush()
          Queue.endUnsafe(lines)
          Deferred.doneUnsafe(ended, Exit.succeed({ exitCode, signal }))
        }
        child.once("error", (error: NodeJS.ErrnoException) => {
          if (child.pid === undefined) {
            resume(Effect.fail(new Unstarted({ code: error.code ?? "UNKNOWN", reason: error.message })))
          }
        })
        child.once("exit", (exitCode, signal) => {
          exited = true
          if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL")
          // a process that left its group still holds the pipes: the turn ends without it
          pipes = setTimeout(() => {
            stdout.destroy()
            stderr.destroy()
            finish(exitCode, signal)
          }, Duration.toMillis(pipeGrace))
        })
        child.once("close", (exitCode, signal) => finish(exitCode, signal))
        child.once("spawn", () => {
          const pid = child.pid!
          const gone = Deferred.await(ended).pipe(Effect.interruptible)
          resume(Effect.succeed({
            pid,
            lines: Stream.fromQueue(lines),
            ended: Deferred.await(ended),
            running: Effect.sync(() => !exited),
            stop: Effect.suspend(() => {
              if (Deferred.isDoneUnsafe(ended)) return Effect.void
              signalGroup(pid, "SIGTERM")
              return gone.pipe(
                Effect.timeout(grace),
                Effect.catch(() => {
                  signalGroup(pid, "SIGKILL")
                  return gone.pipe(Effect.timeout(Duration.seconds(5)), Effect.ignore)
                }),
                Effect.asVoid
              )
            })
          }))
        })
      })
    }),
    (child) => child.stop
  )
