import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { main } from "./Cli.js"
import { colourful, withoutColour } from "./internal/colour.js"
import { Unanswered } from "./internal/outcome.js"

main(process.argv).pipe(
  (program) => colourful(process.env, process.stdout) ? program : withoutColour(program),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    teardown: (exit, onExit) =>
      onExit(
        Exit.isSuccess(exit) ? 0 : Option.match(Cause.failureOption(exit.cause), {
          onNone: () => Cause.isInterruptedOnly(exit.cause) ? 130 : 1,
          onSome: (error) => error instanceof Unanswered ? error.status : 1
        })
      )
  })
)
