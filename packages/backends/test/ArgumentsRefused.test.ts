/**
 * A CLI that refuses the arguments fallback gave it is ArgumentsRefused, not an outage (issue 22):
 * each CLI's argument parser as it writes a usage error (commander for claude, clap for codex, yargs
 * for gemini and opencode), printed by a real child process.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Claude from "@fallback/backends/Claude"
import * as Codex from "@fallback/backends/Codex"
import * as Gemini from "@fallback/backends/Gemini"
import * as OpenCode from "@fallback/backends/OpenCode"
import type * as Backend from "@fallback/core/Backend"
import { byMessage, refusedArgument } from "@fallback/core/Classify"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { folder, printing } from "./fakes.js"
import { matching } from "./outputs.js"

const geminiUsage = `Usage: gemini [options] [command]

Gemini CLI - Launch an interactive CLI, use -p/--prompt for non-interactive mode

Options:
  -m, --model          Model  [string]
  -p, --prompt         Prompt. Appended to input on stdin (if any).  [string]
      --approval-mode  Set the approval mode: default (prompt for approval), auto_edit (auto-approve edit tools), yolo (auto-approve all tools)  [string] [choices: "default", "auto_edit", "yolo"]
      --timeout        not a real option, but a word the usage text may hold  [number]

Invalid values:
  Argument: approval-mode, Given: "acceptEdits", Choices: "default", "auto_edit", "yolo"
`

interface Case {
  readonly cli: string
  readonly make: (bin: string, cwd: string) => Backend.Backend
  readonly model: string
  readonly stderr: string
  readonly exitCode: number
  readonly argument: string
}

const cases: ReadonlyArray<Case> = [
  {
    cli: "claude",
    make: (bin, cwd) => Claude.make({ bin, cwd }),
    model: "claude-sonnet-4-5",
    stderr:
      "error: option '--permission-mode <mode>' argument 'yolo' is invalid. Allowed choices are acceptEdits, bypassPermissions, default, dontAsk, plan.\n",
    exitCode: 1,
    argument: "--permission-mode yolo"
  },
  {
    cli: "claude",
    make: (bin, cwd) => Claude.make({ bin, cwd }),
    model: "claude-sonnet-4-5",
    stderr: "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n",
    exitCode: 1,
    argument: "--dangerously-skip-permissions"
  },
  {
    cli: "codex",
    make: (bin, cwd) => Codex.make({ bin, cwd }),
    model: "gpt-5.5",
    stderr:
      "error: invalid value 'acceptEdits' for '--sandbox <SANDBOX_MODE>'\n  [possible values: read-only, workspace-write, danger-full-access]\n\nFor more information, try '--help'.\n",
    exitCode: 2,
    argument: "--sandbox acceptEdits"
  },
  {
    cli: "gemini",
    make: (bin, cwd) => Gemini.make({ bin, cwd }),
    model: "gemini-2.5-flash",
    stderr: geminiUsage,
    exitCode: 1,
    argument: "--approval-mode acceptEdits"
  },
  {
    cli: "opencode",
    make: (bin, cwd) => OpenCode.make({ bin, cwd }),
    model: "opencode/mock-model",
    stderr: "Usage: opencode run [message..]\n\nUnknown argument: dangerously-skip-permissions\n",
    exitCode: 1,
    argument: "dangerously-skip-permissions"
  }
]

describe("a CLI's usage error", () => {
  for (const row of cases) {
    it.live(`${row.cli} printing "${row.stderr.trim().split("\n").at(-1)}" is ArgumentsRefused naming ${row.argument}`, () =>
      Effect.gen(function*() {
        const dir = folder()
        const bin = printing(dir, row.cli, { stderr: row.stderr, exitCode: row.exitCode })
        const place = new Place.Place({ cli: row.cli, model: row.model })
        const session = yield* row.make(bin, dir).open(place, Option.none(), Settings.plain, {})
        const failure = yield* Effect.flip(Stream.runDrain(session.turn({ text: "hello", history: [] })))
        expect(failure).toMatchObject({ _tag: "ArgumentsRefused", argument: row.argument })
        expect(failure.message).toContain(`${row.cli} refused the argument ${row.argument} fallback gave it: `)
      }))
  }

  it.live("quotes the CLI's words with any key in them masked", () =>
    Effect.gen(function*() {
      const dir = folder()
      const key = "sk-proj-abcdefghijklmnop1234567890"
      const bin = printing(dir, "codex", {
        stderr: `error: unexpected argument '--api-key=${key}' found\n\nUsage: codex exec [OPTIONS] [PROMPT]\n`,
        exitCode: 2
      })
      const place = new Place.Place({ cli: "codex", model: "gpt-5.5" })
      const session = yield* Codex.make({ bin, cwd: dir }).open(place, Option.none(), Settings.plain, {})
      const failure = yield* Effect.flip(Stream.runDrain(session.turn({ text: "hello", history: [] })))
      expect(failure._tag).toBe("ArgumentsRefused")
      expect(failure.message).not.toContain(key)
      expect(failure.said).toContain("error: unexpected argument")
    }))

  it("a provider's own words about a parameter are not a CLI's usage error", () => {
    const place = new Place.Place({ cli: "local", model: "m" })
    for (
      const words of [
        "Invalid value for 'temperature': must be between 0 and 2",
        "Unrecognized request argument supplied: foo",
        "invalid_request_error: messages: field required"
      ]
    ) expect(byMessage(words, place)._tag).not.toBe("ArgumentsRefused")
  })

  const flag = matching(/^--[a-z][a-z-]{0,20}$/)
  const value = matching(/^[A-Za-z0-9_.-]{1,20}$/)

  it.prop(
    "commander, clap and yargs name the flag and the value refused, whatever they are",
    [flag, value],
    ([f, v]) => {
      expect(refusedArgument(`error: option '${f} <mode>' argument '${v}' is invalid. Allowed choices are a, b.`))
        .toBe(`${f} ${v}`)
      expect(refusedArgument(`error: invalid value '${v}' for '${f} <MODE>'\n  [possible values: a, b]`)).toBe(
        `${f} ${v}`
      )
      expect(refusedArgument(`Invalid values:\n  Argument: ${f.slice(2)}, Given: "${v}", Choices: "a"`)).toBe(
        `${f} ${v}`
      )
      expect(refusedArgument(`error: unknown option '${f}'`)).toBe(f)
      expect(byMessage(`error: unknown option '${f}'`, new Place.Place({ cli: "claude", model: "m" }))._tag).toBe(
        "ArgumentsRefused"
      )
    }
  )
})
