import * as Schema from "effect/Schema"
import * as Place from "../../Place.js"
import { nearest } from "../nearest.js"

/** @internal */
export class ConfigUnreadable extends Schema.TaggedError<ConfigUnreadable>("@fallback/core/ConfigUnreadable")(
  "ConfigUnreadable",
  { file: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `cannot read ${this.file}: ${this.reason}`
  }
}

/** @internal */
export class ConfigNotJson extends Schema.TaggedError<ConfigNotJson>("@fallback/core/ConfigNotJson")(
  "ConfigNotJson",
  { file: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `${this.file} is not JSON (${this.reason}); nothing was written to it: mend it, or move it away to start afresh`
  }
}

/** @internal */
export const Issue = Schema.Struct({ at: Schema.String, expected: Schema.String })

/** @internal */
export class ConfigInvalid extends Schema.TaggedError<ConfigInvalid>("@fallback/core/ConfigInvalid")(
  "ConfigInvalid",
  { file: Schema.String, issues: Schema.NonEmptyArray(Issue) }
) {
  override get message(): string {
    const shown = this.issues.slice(0, 5).map(({ at, expected }) => `at ${at}: ${expected}`).join("; ")
    return `${this.file} is not a fallback config: ${shown}` +
      (this.issues.length > 5 ? `; and ${this.issues.length - 5} more` : "")
  }
}

/** @internal */
export class ConfigLocked extends Schema.TaggedError<ConfigLocked>("@fallback/core/ConfigLocked")(
  "ConfigLocked",
  { file: Schema.String, holder: Schema.String }
) {
  override get message(): string {
    return `${this.file} is being written by ${this.holder} and stayed locked; try again, or remove ${this.file}.lock if that process is gone`
  }
}

/** @internal */
export class ConfigUnwritable extends Schema.TaggedError<ConfigUnwritable>("@fallback/core/ConfigUnwritable")(
  "ConfigUnwritable",
  { file: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `cannot write ${this.file}: ${this.reason}; the file is as it was`
  }
}

const inFile = (file: string | undefined) => file === undefined ? "" : `${file}: `

/** @internal */
export class SelfStep extends Schema.TaggedError<SelfStep>("@fallback/core/SelfStep")("SelfStep", {
  place: Place.Place,
  file: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return `${inFile(this.file)}the step at ${this.place} points at itself; a place cannot fall back to itself`
  }
}

/** @internal */
export class UnknownCli extends Schema.TaggedError<UnknownCli>("@fallback/core/UnknownCli")("UnknownCli", {
  place: Schema.String,
  cli: Schema.String,
  known: Schema.Array(Schema.String),
  file: Schema.optional(Schema.String)
}) {
  override get message(): string {
    const close = nearest(this.cli, this.known)
    return `${inFile(this.file)}${this.place} names the CLI "${this.cli}", which is not one fallback knows` +
      (close.length > 0
        ? ` (did you mean ${close.join(" or ")}?); known: ${this.known.join(", ")}`
        : `; known: ${
          this.known.join(", ")
        }; for a model server, name it under "providers" first, e.g. "${this.cli}": ` +
          `{ "kind": "openai-compatible", "baseUrl": "http://127.0.0.1:11434/v1" }`)
  }
}

/** @internal */
export class ProviderShadowsCli
  extends Schema.TaggedError<ProviderShadowsCli>("@fallback/core/ProviderShadowsCli")("ProviderShadowsCli", {
    name: Schema.String,
    file: Schema.optional(Schema.String)
  })
{
  override get message(): string {
    return `${
      inFile(this.file)
    }the provider "${this.name}" has the name of a CLI fallback drives; give it another name (its places are written ${this.name}-api/MODEL, say)`
  }
}

/** @internal */
export class UnknownAccount extends Schema.TaggedError<UnknownAccount>("@fallback/core/UnknownAccount")(
  "UnknownAccount",
  { place: Place.Place, accounts: Schema.Array(Schema.String), file: Schema.optional(Schema.String) }
) {
  override get message(): string {
    const close = nearest(this.place.account ?? "", this.accounts)
    return `${inFile(this.file)}${this.place} names the account "${this.place.account}", which is not set up for ` +
      `${this.place.cli} (${this.accounts.length === 0 ? "it has none" : `it has ${this.accounts.join(", ")}`}${
        close.length === 0 ? "" : `; did you mean ${close.join(" or ")}?`
      }); add it with: fallback accounts add ${this.place.cli} ${this.place.account}`
  }
}

/** @internal */
export type ConfigFileError =
  | ConfigUnreadable
  | ConfigNotJson
  | ConfigInvalid
  | ConfigLocked
  | ConfigUnwritable
  | SelfStep
  | UnknownCli
  | UnknownAccount
  | ProviderShadowsCli
