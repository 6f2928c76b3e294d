import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Place from "../../Place.js"
import type { Book } from "../steps.js"
import { ConfigInvalid, ConfigNotJson, ProviderShadowsCli, SelfStep, UnknownAccount, UnknownCli } from "./errors.js"
import { hazard, issuesOf, jsonReason } from "./issues.js"
import { Document, keysAt } from "./schema.js"

/** @internal */
export const checkPlace = (
  document: Document,
  place: Place.Place,
  options: { readonly known: ReadonlyArray<string>; readonly file?: string | undefined }
): Result.Result<Place.Place, UnknownCli | UnknownAccount> => {
  const where = options.file === undefined ? {} : { file: options.file }
  const known = [...options.known, ...Object.keys(document.providers).sort()]
  if (!known.includes(place.cli)) {
    return Result.fail(new UnknownCli({ place: String(place), cli: place.cli, known, ...where }))
  }
  const accounts = (document.accounts[place.cli] ?? []).map((account) => account.name)
  return place.account !== undefined && !accounts.includes(place.account)
    ? Result.fail(new UnknownAccount({ place, accounts, ...where }))
    : Result.succeed(place)
}

/** @internal */
export const check = (
  document: Document,
  options: { readonly known?: ReadonlyArray<string> | undefined; readonly file?: string | undefined } = {}
): Result.Result<Document, SelfStep | UnknownCli | UnknownAccount | ProviderShadowsCli> => {
  const where = options.file === undefined ? {} : { file: options.file }
  const providers = Object.keys(document.providers).sort()
  const shadowing = providers.find((name) => options.known?.includes(name))
  if (shadowing !== undefined) {
    return Result.fail(new ProviderShadowsCli({ name: shadowing, ...where }))
  }
  const known = options.known === undefined ? undefined : [...options.known, ...providers]
  const placeProblem = (place: Place.Place): Option.Option<UnknownCli | UnknownAccount> =>
    options.known === undefined
      ? Option.none()
      : Result.getFailure(checkPlace(document, place, { known: options.known, file: options.file }))
  for (const cli of [...Object.keys(document.accounts), ...Object.keys(document.clis)].sort()) {
    if (known !== undefined && !known.includes(cli)) {
      const section = cli in document.accounts ? "accounts" : "clis"
      return Result.fail(new UnknownCli({ place: `${section}.${cli}`, cli, known, ...where }))
    }
  }
  for (const [alias, target] of Object.entries(document.aliases ?? {}).sort(([a], [b]) => a < b ? -1 : 1)) {
    const place = Result.getOrThrow(Place.parse(target))
    const problem = placeProblem(place)
    if (Option.isSome(problem)) {
      return Result.fail(
        problem.value._tag === "UnknownCli"
          ? new UnknownCli({
            place: `aliases[${JSON.stringify(alias)}] (${target})`,
            cli: problem.value.cli,
            known: problem.value.known,
            ...where
          })
          : problem.value
      )
    }
  }
  for (const { place, to } of bookOf(document).values()) {
    if (to !== undefined && String(to) === String(place)) return Result.fail(new SelfStep({ place, ...where }))
    const problem = Option.orElse(placeProblem(place), () => to === undefined ? Option.none() : placeProblem(to))
    if (Option.isSome(problem)) return Result.fail(problem.value)
  }
  return Result.succeed(document)
}

/** @internal */
export const bookOf = (document: Document): Book =>
  new Map(
    Object.keys(document.steps).sort().map((key) => [
      key,
      { place: Result.getOrThrow(Place.parse(key)), ...document.steps[key] }
    ])
  )

/** @internal */
export const withBook = (document: Document, book: Book): Document => ({
  ...document,
  steps: Object.fromEntries(
    [...book.keys()].sort().map((key) => {
      const { retrying, to } = book.get(key)!
      return [key, { ...(to === undefined ? {} : { to }), ...(retrying === undefined ? {} : { retrying }) }]
    })
  )
})

const decodeDocument = Schema.decodeUnknownResult(Document, { onExcessProperty: "error", errors: "all" })

/** @internal */
export const decode = (
  file: string,
  text: string,
  known: ReadonlyArray<string>
): Result.Result<
  Document,
  ConfigNotJson | ConfigInvalid | SelfStep | UnknownCli | UnknownAccount | ProviderShadowsCli
> =>
  Result.try({
    try: () => JSON.parse(text) as unknown,
    catch: (e) => new ConfigNotJson({ file, reason: jsonReason(e, text) })
  }).pipe(
    Result.filterOrFail(
      (json) => typeof json === "object" && json !== null && !Array.isArray(json),
      () =>
        new ConfigInvalid({
          file,
          issues: [{ at: "the top", expected: "a JSON object with \"steps\" and \"accounts\"" }]
        })
    ),
    Result.flatMap((json) => {
      const found = hazard(text)
      return found === undefined ? Result.succeed(json) : Result.fail(new ConfigInvalid({ file, issues: [found] }))
    }),
    Result.flatMap((json) =>
      Result.mapError(decodeDocument(json), (error) => new ConfigInvalid({ file, issues: issuesOf(error, keysAt) }))
    ),
    Result.flatMap((document) => check(document, { known, file }))
  )

const encodeDocument = Schema.encodeSync(Document)

/** @internal */
export const encode = (document: Document): string => {
  const { clis, providers, ...rest } = encodeDocument(document)
  const written = {
    ...rest,
    ...(providers === undefined || Object.keys(providers).length === 0 ? {} : { providers }),
    ...(clis === undefined || Object.keys(clis).length === 0 ? {} : { clis })
  }
  return `${JSON.stringify(written, null, 2)}\n`
}

/** @internal */
export const jsonSchema = (): unknown => {
  const { definitions, schema } = Schema.toJsonSchemaDocument(Document, { onExcessProperty: "error" })
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...schema, $defs: definitions }
}
