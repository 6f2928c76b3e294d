import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import { main } from "./Cli.js"
import { colourful, withoutColour } from "./internal/colour.js"

main(process.argv).pipe(
  (program) => colourful(process.env, process.stdout) ? program : withoutColour(program),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
