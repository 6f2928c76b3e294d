import * as Preset from "@fallback/core/Preset"
import * as Settings from "@fallback/core/Settings"
import * as Argument from "effect/cli/Argument"
import * as Flag from "effect/cli/Flag"

import { config, repeated, text, toggle } from "./config.js"

// the arguments and flags of `fallback run`

const place = Argument.String("place").pipe(Argument.withDescription("where the turn starts: CLI[@ACCOUNT]/MODEL"))

const prompt = Argument.String("prompt").pipe(
  Argument.withDescription("the prompt; - or nothing reads it from stdin"),
  Argument.optional
)

const preset = Flag.Literals("preset", Preset.names).pipe(
  Flag.withDescription(
    "how turns recover: primary (the default), escalating, breaker, or api (tuned for HTTP API traffic)"
  ),
  Flag.optional
)

const time = (name: string, description: string) => text(name, "TIME", description)

/**
 * What `fallback run` takes, by the name its handler reads each by.
 *
 * @internal
 */
export const runArgs = {
  config,
  place,
  preset,
  effort: text("effort", "LEVEL", "how hard the agent thinks (the CLI's own words: low, medium, high…)"),
  permission: text(
    "permission",
    "RUNG",
    `what the agent may do unasked: ${
      Settings.permissions.join(", ")
    }, narrowest first (a place whose CLI cannot run at it exactly is not walked to)`
  ),
  noWebSearch: toggle(
    "no-web-search",
    "the agent may not search the web (a place that cannot be told so is not walked to)"
  ),
  skill: repeated("skill", "NAME", "a skill's folder (its SKILL.md) the agent carries (repeatable)"),
  firstByte: time(
    "first-byte",
    "the longest a place may take to send its first content, at HTTP and CLI places alike (run.limits in the config sets each kind; HTTP 20s, CLI 30s; 0 for no limit)"
  ),
  stall: time(
    "stall",
    "the longest a stream may send nothing once it began before the attempt ends and moves on, at HTTP and CLI places alike (HTTP 30s, CLI 2m; 0 for no limit)"
  ),
  idle: time("idle", "the longest an HTTP answer may go quiet once it started (60s)"),
  deadline: time("deadline", "the longest the whole turn may take, failover included (15m)"),
  attempts: Flag.Int("attempts").pipe(
    Flag.withMetavar("N"),
    Flag.withDescription("the most goes the turn may take in all, failover included (20)"),
    Flag.optional
  ),
  resume: toggle(
    "continue",
    "continue the conversation the last turn from PLACE ended in, where it was answered",
    "c"
  ),
  session: text(
    "session",
    "ID",
    "resume the CLI's conversation ID at PLACE (any of its accounts), as the CLI printed it"
  ),
  whole: toggle(
    "whole",
    "print the answer once the turn has all of it: a stream cut mid-answer moves on unseen, never a part"
  ),
  json: toggle(
    "json",
    "one JSON object a line on stdout: each notice, the events of the whole answer, then the outcome (implies --whole)",
    "j"
  ),
  quiet: toggle("quiet", "say nothing on stderr about recovery", "q"),
  prompt
}
