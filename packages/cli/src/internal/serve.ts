import * as Preset from "@fallback/core/Preset"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"

import { config, text, toggle } from "./config.js"

// `fallback serve`'s flags and help; what it runs is in serving.ts, loaded only when it runs

const serveFlags = {
  config,
  port: Flag.Int("port").pipe(
    Flag.withMetavar("N"),
    Flag.withDescription("the port it listens on (4000; 0 for any free one, printed)"),
    Flag.withDefault(4000)
  ),
  host: text(
    "host",
    "ADDR",
    "the address it listens on (127.0.0.1); any other than loopback needs --token-env"
  ),
  tokenEnv: text(
    "token-env",
    "VAR",
    "the environment variable holding the bearer token every client must send (Authorization: Bearer or x-api-key)"
  ),
  json: toggle(
    "json",
    "one JSON line on stdout per request (method, path, model, place, from, status, usage, ms) and per notice",
    "j"
  ),
  noPassThrough: toggle(
    "no-pass-through",
    "never send a client's own key upstream: only the config's accounts answer"
  ),
  preset: Flag.Literals("preset", Preset.names).pipe(
    Flag.withDescription(
      "how requests recover, as fallback run's: api (the default here: moves at once on a long rate limit), primary, escalating, breaker"
    ),
    Flag.optional
  ),
  demo: toggle(
    "demo",
    "serve over a built-in loopback provider playing an outage, with a config of its own: no keys, no network"
  )
}

/** @internal */
export type ServeFlags = Command.Command.Config.Infer<typeof serveFlags>

const description = [
  "Serves the wires agent CLIs and SDKs speak on 127.0.0.1, each request answered through fallback's engine:",
  "the chains, accounts, aliases, health and limits of the config, as `fallback run` uses them. Point a client",
  "at it with one variable and name a place (PROVIDER/MODEL) or an alias (the config's \"aliases\") as its model:",
  "  Claude Code   ANTHROPIC_BASE_URL=http://127.0.0.1:4000 claude",
  "  Codex         codex -c openai_base_url=\"http://127.0.0.1:4000/v1\"",
  "Routes: POST /v1/messages, /v1/messages/count_tokens (Anthropic), POST /v1/chat/completions, /v1/responses",
  "and GET /v1/models (OpenAI). A client's own key is sent first (unless --no-pass-through), then the config's",
  "accounts; a conversation stays where it moved. Moves, retries and cooling are told on stderr (with --json,",
  "as JSON lines on stdout). Ctrl+c or SIGTERM stops it (exit 0).",
  "",
  "  fallback serve",
  "  fallback serve --demo",
  "  fallback serve --port 0 --json",
  "  fallback serve --host 0.0.0.0 --token-env FALLBACK_TOKEN"
].join("\n")

/** @internal */
export const serve = Command.make(
  "serve",
  serveFlags,
  (flags) => Effect.flatMap(Effect.promise(() => import("./serving.js")), ({ serving }) => serving(flags))
).pipe(Command.withDescription(description))
