/**
 * What an agent is, settled where it was made: how hard it thinks, what it may reach for, whether
 * it may search the web, the skills and the callbacks it carries. Settings travel unchanged to
 * every stand-in; a place whose backend cannot honour one is not a place the agent moves to.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as internal from "./internal/permission.js"

/**
 * The permission rungs, narrowest first: what an agent may do on the machine without a person
 * saying yes. A headless turn has no one to say yes, so what a rung leaves to asking is declined.
 *
 * - `read-only`: it reads and answers; it changes nothing (claude's plan mode, codex's read-only
 *   sandbox).
 * - `ask`: the CLI's own default: what its own settings do not already allow is asked for, so
 *   declined.
 * - `edit`: it may change files in the working folder without asking; commands and anything else
 *   are asked for, so declined.
 * - `full`: it may do anything without asking.
 *
 * Each backend maps a rung to its CLI's own flags, and honours only the rungs it can express
 * exactly: a rung is never run wider, nor narrower, than asked. The CLIs' own words (`plan`,
 * `acceptEdits`, `yolo`…) are not rungs; they are refused, naming the rung to write.
 *
 * @since 0.1.0
 * @category models
 */
export const Permission: Schema.Codec<"read-only" | "ask" | "edit" | "full", string> = Schema.String.check(
  Schema.makeFilter((word: string) => internal.isRung(word) || internal.refusedWord(word), undefined, true)
).pipe(
  Schema.refine(internal.isRung),
  Schema.annotate({
    identifier: "Permission",
    description: "the permission rung: read-only, ask, edit or full (narrowest first)"
  })
)

/**
 * @since 0.1.0
 * @category models
 */
export type Permission = typeof Permission.Type

/**
 * The rungs, narrowest first.
 *
 * @since 0.1.0
 * @category constants
 */
export const permissions: ReadonlyArray<Permission> = internal.rungs

/**
 * Whether `rung` lets an agent do more than `than` does.
 *
 * @since 0.1.0
 * @category guards
 */
export const wider: (rung: Permission, than: Permission) => boolean = internal.wider

/**
 * A word given as a permission rung that is not one: the message lists the rungs, and names the
 * nearest on a typo, or the rung to write for a CLI's own word (`yolo` → full).
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidPermission extends Schema.TaggedError<InvalidPermission>("@fallback/core/InvalidPermission")(
  "InvalidPermission",
  { word: Schema.String }
) {
  override get message(): string {
    return internal.refusedWord(this.word)
  }
}

/**
 * Reads a permission rung, refusing any other word before a turn starts.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parsePermission = (word: string): Result.Result<Permission, InvalidPermission> =>
  internal.isRung(word) ? Result.succeed(word) : Result.fail(new InvalidPermission({ word }))

const fields = {
  effort: Schema.optional(Schema.String.annotate({ description: "how hard the agent thinks" })),
  permission: Schema.optional(Permission),
  webSearch: Schema.Boolean.pipe(
    Schema.withConstructorDefault(Effect.succeed(true)),
    Schema.withDecodingDefaultType(Effect.succeed(true))
  ),
  skills: Schema.Array(Schema.String).pipe(
    Schema.withConstructorDefault(Effect.succeed([])),
    Schema.withDecodingDefaultType(Effect.succeed([]))
  ),
  callbacks: Schema.Array(Schema.String).pipe(
    Schema.withConstructorDefault(Effect.succeed([])),
    Schema.withDecodingDefaultType(Effect.succeed([]))
  )
}

/**
 * An agent's settings. Each is carried to every backend that honours it; a backend that does not
 * (see {@link Honours}) is not a place the agent moves to.
 *
 * @since 0.1.0
 * @category models
 */
export class Settings extends Schema.Class<Settings>("@fallback/core/Settings")(fields) {
  constructor(props: Schema.Struct.MakeIn<typeof fields>, options?: Schema.MakeOptions) {
    // a word outside the rungs is refused in the schema's own words, as decoding refuses it
    try {
      super(props, options)
    } catch (error) {
      throw Schema.isSchemaError((error as { readonly cause?: unknown }).cause)
        ? (error as { readonly cause: Schema.SchemaError }).cause
        : SchemaIssue.isIssue((error as { readonly cause?: unknown }).cause)
        ? new Schema.SchemaError((error as { readonly cause: SchemaIssue.Issue }).cause)
        : error
    }
  }
}

/**
 * Settings with nothing said: web search allowed, no skills, no callbacks.
 *
 * @since 0.1.0
 * @category constants
 */
export const plain: Settings = new Settings({})

/**
 * What a backend can be told, as far as settings go. A setting it is not said to honour is one
 * it cannot: an agent that has it does not move there.
 *
 * @since 0.1.0
 * @category models
 */
export interface Honours {
  /** It can be told not to search the web. */
  readonly webSearchOff: boolean
  /** It can be given callbacks. */
  readonly callbacks: boolean
  /** It can be told how hard to think. */
  readonly effort?: boolean | undefined
  /**
   * The permission rungs it can express exactly (`true`: every rung; none said: none). An agent
   * given any other rung does not move there.
   */
  readonly permission?: boolean | ReadonlyArray<Permission> | undefined
  /** It can be given skills. */
  readonly skills?: boolean | undefined
}

const honoursRung = (rung: Permission, honoured: Honours["permission"]): boolean =>
  honoured === true || (Array.isArray(honoured) && honoured.includes(rung))

/**
 * Why a backend cannot honour these settings, or none when it can: a setting quietly ignored
 * would be a setting that lies.
 *
 * @since 0.1.0
 * @category guards
 */
export const refusal = (settings: Settings, honours: Honours): Option.Option<string> =>
  !settings.webSearch && !honours.webSearchOff
    ? Option.some("cannot be told not to search the web")
    : settings.callbacks.length > 0 && !honours.callbacks
    ? Option.some("cannot be given callbacks")
    : settings.effort !== undefined && honours.effort !== true
    ? Option.some(`cannot be told how hard to think (effort ${settings.effort})`)
    : settings.permission !== undefined && !honoursRung(settings.permission, honours.permission)
    ? Option.some(
      Array.isArray(honours.permission) && honours.permission.length > 0
        ? `cannot run at the permission rung ${settings.permission} exactly (it runs at ${
          honours.permission.join(", ")
        } only)`
        : `cannot be given a permission rung (${settings.permission})`
    )
    : settings.skills.length > 0 && honours.skills !== true
    ? Option.some(`cannot be given skills (${settings.skills.join(", ")})`)
    : Option.none()
