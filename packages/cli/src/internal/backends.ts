import * as os from "node:os"
import * as nodePath from "node:path"

import * as Antigravity from "@fallback/backends/Antigravity"
import * as Claude from "@fallback/backends/Claude"
import type * as Cli from "@fallback/backends/Cli"
import * as Codex from "@fallback/backends/Codex"
import * as Endpoint from "@fallback/backends/Endpoint"
import * as Gemini from "@fallback/backends/Gemini"
import * as HttpProvider from "@fallback/backends/HttpProvider"
import * as OpenCode from "@fallback/backends/OpenCode"
import * as Backend from "@fallback/core/Backend"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Failure from "@fallback/core/Failure"
import type * as Place from "@fallback/core/Place"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"

/**
 * The agent CLIs fallback drives: how each is made and the line that installs it.
 *
 * @internal
 */
export const agentClis: ReadonlyArray<{
  readonly cli: string
  readonly install: string
  readonly make: (options: Cli.Options & Record<string, unknown>) => Backend.Backend
}> = [
  { cli: "claude", install: Claude.install, make: Claude.make },
  { cli: "codex", install: Codex.install, make: Codex.make },
  { cli: "gemini", install: Gemini.install, make: Gemini.make },
  { cli: "opencode", install: OpenCode.install, make: OpenCode.make },
  { cli: "antigravity", install: Antigravity.install, make: Antigravity.make }
]

/**
 * What a run asks of the backends beyond the config: how long an HTTP answer may go quiet, and a
 * conversation to resume at a place (its CLI and model, as any account).
 *
 * @internal
 */
export interface Running {
  /** Where config dirs fallback makes for endpoints live (an account with none of its own). */
  readonly homes?: string | undefined
  readonly idle?: Duration.Duration | undefined
  /** The idle limit is a flag's: it stands over a provider's own `timeouts.idle` too. */
  readonly idleForAll?: boolean | undefined
  readonly resume?: { readonly at: Place.Place; readonly session: string } | undefined
}

/**
 * A backend that resumes `session` when it opens `at`'s model without a conversation of the
 * engine's own to resume: the first go of a continued turn, and its account moves.
 */
const resuming = (backend: Backend.Backend, resume: NonNullable<Running["resume"]>): Backend.Backend =>
  backend.cli !== resume.at.cli ? backend : {
    ...backend,
    open: (place, account, settings, opening) =>
      backend.open(
        place,
        account,
        settings,
        opening.resume === undefined && place.model === resume.at.model
          ? { ...opening, resume: resume.session }
          : opening
      )
  }

const expand = (dir: string) => dir.replace(/^~(?=$|\/)/, os.homedir())

/**
 * A CLI's backend that sends each turn where its account's endpoint (else the CLI's) says: the
 * backend made with what the CLI needs for it, the account given the endpoint's variables, and a
 * settings file written into its config dir when the CLI needs one (into a config dir fallback
 * makes under `homes` when the account has none). The CLIs' own retrying is off either way, by
 * flags and variables, and for gemini its settings in the account's config dir or in a home of
 * fallback's under `homes` that links to the user's own.
 */
const reaching = (
  cli: string,
  make: (options: Cli.Options & Record<string, unknown>) => Backend.Backend,
  document: ConfigFile.Document,
  homes: string
): Backend.Backend => {
  const bin = document.clis[cli]?.bin
  const own = { bin, home: nodePath.join(homes, "gemini"), models: document.clis[cli]?.models }
  const plain = make(own)
  const made = new Map<string, Backend.Backend>()
  return {
    ...plain,
    open: (place, account, settings, opening) =>
      Effect.suspend(() => {
        const given = Option.getOrUndefined(account)
        const endpoint = given?.endpoint ?? document.clis[cli]?.endpoint
        const reach = endpoint === undefined ? undefined : Endpoint.reach(cli, endpoint, place.model)
        if (reach === undefined) return plain.open(place, account, settings, opening)
        const key = JSON.stringify(reach.options)
        const backend = made.get(key) ?? make({ ...own, ...reach.options })
        made.set(key, backend)
        const name = given?.name ?? "default"
        const configDir = given?.configDir ??
          (reach.settings === undefined ? undefined : nodePath.join(homes, `${cli}-${name}`))
        return Effect.try({
          try: () => {
            if (reach.settings !== undefined && configDir !== undefined) {
              Endpoint.writeSettings(nodePath.join(expand(configDir), reach.settings.file), reach.settings.merge)
            }
            return ConfigFile.Account.make({
              name,
              ...(configDir === undefined ? {} : { configDir: expand(configDir) }),
              env: { ...reach.env, ...given?.env }
            })
          },
          catch: (error) =>
            new Failure.Unknown({
              place,
              said: Failure.said(
                `the ${cli} settings for its endpoint could not be written in ${configDir}: ${String(error)}`
              )
            })
        }).pipe(Effect.flatMap((reached) => backend.open(place, Option.some(reached), settings, opening)))
      })
  }
}

/**
 * The backends a config names: every agent CLI (at the `bin` the config sets, else on `PATH`) and
 * each provider it defines, over HTTP.
 *
 * @internal
 */
export const backendsOf = (
  document: ConfigFile.Document,
  running: Running = {}
): Layer.Layer<Backend.Backends, never, HttpClient.HttpClient | ChildProcessSpawner.ChildProcessSpawner> =>
  Layer.unwrap(
    Effect.gen(function*() {
      const providers = yield* Effect.forEach(
        Object.entries(document.providers),
        ([name, provider]) =>
          HttpProvider.make(
            HttpProvider.Provider.make({ name, ...provider, models: provider.models ?? [] }),
            running.idle === undefined || (provider.timeouts?.idle !== undefined && running.idleForAll !== true)
              ? {}
              : { idle: running.idle }
          )
      )
      const homes = running.homes ?? nodePath.join(os.homedir(), ".config", "fallback", "homes")
      const clis = agentClis.map(({ cli, make }) => reaching(cli, make, document, homes))
      const all = [...clis, ...providers]
      const resume = running.resume
      return Backend.Backends.layer(resume === undefined ? all : all.map((backend) => resuming(backend, resume)))
    })
  )
