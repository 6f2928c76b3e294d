import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Secret from "@fallback/core/Secret"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as os from "node:os"
import { main } from "./Cli.js"
import { colourful, withoutColour } from "./internal/colour.js"
import { CutShort, TrialFailed, Unanswered } from "./internal/outcome.js"
import { stopsOnSignal, Unprotected } from "./internal/serveErrors.js"

// A command that succeeded has nothing left running: its scopes are closed. Exiting once stdout
// and stderr have taken what was written, rather than when the event loop empties, spares the wait
// a natural exit makes for V8 to finish optimizing code in the background (60 ms and more).
const finished = () => process.stdout.write("", () => process.stderr.write("", () => process.exit(0)))

// A closed terminal (SIGHUP) and SIGQUIT end a command as Ctrl-C and SIGTERM do: its scopes close, so
// the agent CLI's process group is killed, rather than fallback dying at once and leaving it running.
// The status then says which signal it was, as a shell's does: 128 + its number.
let signalled: NodeJS.Signals | undefined = undefined
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const) {
  process.on(signal, () => {
    signalled ??= signal
    if (signal === "SIGHUP" || signal === "SIGQUIT") process.emit("SIGTERM" as NodeJS.Signals, "SIGTERM")
  })
}
const signalStatus = () =>
  signalled === undefined ? undefined : stopsOnSignal.cleanly ? 0 : 128 + os.constants.signals[signalled]

// A failure the commands did not tell (a defect) still gets its one line: what went wrong, masked.
const untold = (cause: Cause.Cause<unknown>) => {
  if (Option.isSome(Cause.findErrorOption(cause)) || Cause.hasInterruptsOnly(cause)) return
  const defect = Cause.squash(cause)
  const said = defect instanceof Error ? defect.message : String(defect)
  const line = Secret.mask(said.split("\n")[0] ?? "").replace(/[\u0000-\u001f\u007f-\u009f]/g, " ").slice(0, 300)
  process.stderr.write(`fallback: internal error: ${line || "no message"}\n`)
}

main(process.argv).pipe(
  (program) => colourful(process.env, process.stdout) ? program : withoutColour(program),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    teardown: (exit, onExit) =>
      Exit.isSuccess(exit)
        ? finished()
        : (untold(exit.cause),
          onExit(
            signalStatus() ?? Option.match(Cause.findErrorOption(exit.cause), {
              onNone: () => Cause.hasInterruptsOnly(exit.cause) ? 130 : 1,
              onSome: (error) =>
                error instanceof Unanswered || error instanceof TrialFailed || error instanceof CutShort ||
                  error instanceof Unprotected
                  ? error.status
                  : 1
            })
          ))
  })
)
