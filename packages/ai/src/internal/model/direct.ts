import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Prompt from "effect/ai/Prompt"
import * as Response from "effect/ai/Response"
import * as ResponseIdTracker from "effect/ai/ResponseIdTracker"
import * as Telemetry from "effect/ai/Telemetry"
import * as Toolkit from "effect/ai/Toolkit"
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

/**
 * A model's own calls, before `LanguageModel.make` decodes their parts with `Schema` (a schema it
 * builds and compiles again on every call that has no tools or new ones, as a gateway's calls
 * are): fallback's wires make every part themselves, so the parts they make are taken as they
 * are, by {@link decodedPart}.
 *
 * @internal
 */
export interface Own {
  readonly generateText: (options: LanguageModel.ProviderOptions) => Effect.Effect<Array<any>, unknown>
  readonly streamText: (options: LanguageModel.ProviderOptions) => Stream.Stream<any, unknown>
}

/** The models made by fallback's wires, with their own calls. @internal */
export const owned = new WeakMap<object, Own>()

/**
 * A part as `Schema` decodes it from what a wire made: its marker and metadata added, a
 * response's timestamp a `DateTime`, a finish's usage a `Usage`, a tool's `providerExecuted`
 * false unless said; a tool call's parameters as they
 * came (a call taken this way never has its tools resolved or checked here).
 *
 * @internal
 */
export const decodedPart = (part: any): any => {
  switch (part.type) {
    case "response-metadata":
      return Response.makePart("response-metadata", {
        ...part,
        timestamp: typeof part.timestamp === "string" ? DateTime.makeUnsafe(part.timestamp) : part.timestamp
      })
    case "finish":
      return Response.makePart("finish", { ...part, usage: new Response.Usage(part.usage) })
    case "tool-call":
    case "tool-params-start":
      return Response.makePart(part.type, { ...part, providerExecuted: part.providerExecuted ?? false })
    default:
      return Response.makePart(part.type, part)
  }
}

/** The part types fallback's wires make, which {@link decodedPart} reads. */
const made: ReadonlySet<string> = new Set([
  "response-metadata",
  "text",
  "text-start",
  "text-delta",
  "text-end",
  "reasoning",
  "reasoning-start",
  "reasoning-delta",
  "reasoning-end",
  "tool-params-start",
  "tool-params-delta",
  "tool-params-end",
  "tool-call",
  "finish"
])

const approval = (prompt: Prompt.Prompt) =>
  prompt.content.some((message) =>
    typeof message.content !== "string" &&
    message.content.some((part) => part.type === "tool-approval-request" || part.type === "tool-approval-response")
  )

/**
 * The provider options `LanguageModel.make` would pass a model for a call (given its span), where
 * the call is one its own path would answer with the model's parts unchanged: no tools, or tools
 * neither run nor checked here (`disableToolCallResolution` with `toolCallValidation:
 * "deferred"`), no approvals to resolve, no response id tracker and no span transformer about.
 * Otherwise undefined.
 */
const providerOptionsOf = (
  options: any,
  context: Context.Context<never>
): ((span: LanguageModel.ProviderOptions["span"]) => LanguageModel.ProviderOptions) | undefined => {
  if (
    Context.getOption(context, ResponseIdTracker.ResponseIdTracker)._tag === "Some" ||
    Context.getOption(context, Telemetry.CurrentSpanTransformer)._tag === "Some"
  ) return undefined
  const toolkit = options.toolkit
  if (toolkit !== undefined && toolkit.tools === undefined) return undefined
  const tools: Array<any> = toolkit === undefined ? [] : Object.values(toolkit.tools)
  if (tools.length > 0 && !(options.disableToolCallResolution === true && options.toolCallValidation === "deferred")) {
    return undefined
  }
  const prompt = Prompt.make(options.prompt)
  if (tools.length > 0 && approval(prompt)) return undefined
  const toolChoice = tools.length === 0 ? "none" : options.toolChoice ?? "auto"
  const chosen = typeof toolChoice === "object" && "oneOf" in toolChoice
    ? tools.filter((tool) => toolChoice.oneOf.includes(tool.name))
    : tools
  return (span) =>
    ({
      prompt,
      tools: chosen,
      toolChoice,
      responseFormat: { type: "text" },
      span,
      previousResponseId: undefined,
      incrementalPrompt: undefined,
      ...(tools.length > 0 ? { toolCallValidation: "deferred" } : {})
    }) as LanguageModel.ProviderOptions
}

// Parts of a type no wire here makes go through effect/ai's schema (built once).
let streamSchema: ((parts: unknown) => Effect.Effect<any, Schema.SchemaError>) | undefined
let partSchema: ((parts: unknown) => Effect.Effect<any, Schema.SchemaError>) | undefined

const decodedStream = (parts: ReadonlyArray<any>): Effect.Effect<any, Schema.SchemaError> => {
  if (parts.every((part) => made.has(part.type))) return Effect.succeed(parts.map(decodedPart))
  streamSchema ??= Schema.decodeUnknownEffect(Schema.NonEmptyArray(Response.StreamPart(Toolkit.empty)))
  return streamSchema(parts)
}

const decodedParts = (parts: ReadonlyArray<any>): Effect.Effect<Array<any>, Schema.SchemaError> => {
  if (parts.every((part) => made.has(part.type))) return Effect.succeed(parts.map(decodedPart))
  partSchema ??= Schema.decodeUnknownEffect(Schema.mutable(Schema.Array(Response.Part(Toolkit.empty))))
  return partSchema(parts)
}

const invalid = (method: string) => (error: unknown) =>
  Schema.isSchemaError(error)
    ? AiError.make({ module: "LanguageModel", method, reason: AiError.InvalidOutputError.fromSchemaError(error) })
    : error

/**
 * `lm.streamText(options)`, taking the model's own parts as they are where it is one of
 * fallback's and the call one its parts pass unchanged for (else `LanguageModel.make`'s path).
 *
 * @internal
 */
export const streamText = (lm: LanguageModel.LanguageModel, options: any): Stream.Stream<any, unknown> => {
  const own = owned.get(lm)
  if (own === undefined) return lm.streamText(options)
  return Stream.unwrap(Effect.flatMap(Effect.context<never>(), (context) => {
    const provider = providerOptionsOf(options, context)
    if (provider === undefined) return Effect.succeed(lm.streamText(options))
    return Effect.map(
      Effect.makeSpanScoped("LanguageModel.streamText", { kind: "client" }),
      (span) =>
        own.streamText(provider(span)).pipe(
          Stream.mapArrayEffect(decodedStream),
          Stream.mapError(invalid("streamText"))
        )
    )
  }))
}

/**
 * `lm.generateText(options)`, the same way as {@link streamText}.
 *
 * @internal
 */
export const generateText = (
  lm: LanguageModel.LanguageModel,
  options: any
): Effect.Effect<LanguageModel.GenerateTextResponse<any, any>, unknown> => {
  const own = owned.get(lm)
  if (own === undefined) return lm.generateText(options)
  return Effect.flatMap(Effect.context<never>(), (context) => {
    const provider = providerOptionsOf(options, context)
    if (provider === undefined) return lm.generateText(options) as Effect.Effect<any, unknown>
    return Effect.useSpan(
      "LanguageModel.generateText",
      { kind: "client" },
      (span) =>
        own.generateText(provider(span)).pipe(
          Effect.flatMap(decodedParts),
          Effect.mapError(invalid("generateText")),
          Effect.map((parts) => new LanguageModel.GenerateTextResponse(parts))
        )
    )
  })
}
