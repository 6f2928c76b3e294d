import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Antigravity from "@fallback/backends/Antigravity"
import * as Claude from "@fallback/backends/Claude"
import type * as Cli from "@fallback/backends/Cli"
import * as Codex from "@fallback/backends/Codex"
import * as Gemini from "@fallback/backends/Gemini"
import * as HttpProvider from "@fallback/backends/HttpProvider"
import * as OpenCode from "@fallback/backends/OpenCode"
import * as Backend from "@fallback/core/Backend"
import type * as ConfigFile from "@fallback/core/ConfigFile"
import type * as Place from "@fallback/core/Place"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * The agent CLIs fallback drives: how each is made and the line that installs it.
 *
 * @internal
 */
export const agentClis: ReadonlyArray<{
  readonly cli: string
  readonly install: string
  readonly make: (options: Cli.Options) => Backend.Backend
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
  readonly idle?: Duration.Duration | undefined
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
        opening.resume === undefined && place.model === resume.at.model ? { ...opening, resume: resume.session } : opening
      )
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
): Layer.Layer<Backend.Backends, never, HttpClient.HttpClient | CommandExecutor.CommandExecutor> =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const providers = yield* Effect.forEach(Object.entries(document.providers), ([name, provider]) =>
        HttpProvider.make(
          HttpProvider.Provider.make({ name, ...provider, models: provider.models ?? [] }),
          running.idle === undefined ? {} : { idle: running.idle }
        ))
      const clis = agentClis.map(({ cli, make }) => make({ bin: document.clis[cli]?.bin }))
      const all = [...clis, ...providers]
      const resume = running.resume
      return Backend.Backends.layer(resume === undefined ? all : all.map((backend) => resuming(backend, resume)))
    })
  )
