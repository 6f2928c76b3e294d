import { describe, expect, it } from "@effect/vitest"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Place from "@fallback/core/Place"
import * as Policy from "@fallback/core/Policy"
import { Effect, Option, Result } from "effect"

import * as State from "../src/internal/editState.js"
import { char, configFile, ctrlC, down, enter, escape, start, steps, text } from "./editFixtures.js"
import { backends, edit, keys, pages, questions } from "./terminal.js"

describe("fallback edit: saving and leaving", () => {
  it.effect("removing is the last choice inside a row; a line feed (ctrl+j) saves", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const session = yield* edit(file, [enter, down, down, enter, keys.lineFeed])
      expect(pages(session).at(-1)).toContain("Unsaved: claude@work/claude-opus-5 removed")
      expect(pages(session).at(-1)).toContain("claude@work/claude-opus-5: removed")
      expect(session.out).toBe(`Saved to ${file}: claude@work/claude-opus-5 removed`)
      const written = JSON.parse(yield* text(file))
      expect(written.steps).toEqual({ "codex/gpt-5.6-sol": { to: "gemini/gemini-3-pro" } })
      expect(written.accounts).toEqual({ claude: [{ name: "work" }] })
    }))

  it.effect("shift+enter saves, and so does alt+enter, which many terminals send for it", () =>
    Effect.gen(function*() {
      for (const save of [keys.shiftEnter, keys.altEnter]) {
        const file = yield* configFile
        yield* edit(file, [enter, down, down, enter, save])
        expect(yield* steps(file)).toEqual({ "codex/gpt-5.6-sol": { to: "gemini/gemini-3-pro" } })
      }
    }))

  it.effect("leave without saving: Escape, then that choice, leaves the file byte for byte as it was", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const session = yield* edit(file, [enter, down, down, enter, escape, down, enter])
      expect(questions(session).at(-1)).toBe([
        "1 unsaved: claude@work/claude-opus-5 removed. Save before leaving?",
        "  save and leave",
        "❯ leave without saving",
        "  stay on the page",
        "↑↓ move · enter choose · esc back"
      ].join("\n"))
      expect(session.out).toBe(`Left without saving; ${file} is as it was.`)
      expect(yield* text(file)).toBe(start)
    }))

  it.effect("leave and confirm: ctrl+c on the page, then save and leave, lands the edits", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const session = yield* edit(file, [enter, down, down, enter, ctrlC, enter])
      expect(session.out).toBe(`Saved to ${file}: claude@work/claude-opus-5 removed`)
      expect(yield* steps(file)).toEqual({ "codex/gpt-5.6-sol": { to: "gemini/gemini-3-pro" } })
    }))

  it.effect("going back (Escape, ctrl+c) from a question changes nothing; staying keeps the edits for later", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const session = yield* edit(file, [
        char("a"),
        enter,
        escape, // back one question: from claude's accounts to the CLIs
        char("a"), // not a key here
        ctrlC, // back from the CLIs to the page
        enter,
        down,
        down,
        enter, // remove claude@work/claude-opus-5
        char("q"),
        down,
        down,
        enter, // stay on the page
        char("q"),
        down,
        enter // leave without saving
      ], { backends })
      expect(pages(session).slice(0, 2).every((page) => page.includes("Nothing unsaved."))).toBe(true)
      expect(questions(session).filter((question) => question.startsWith("The place that cannot run: which CLI?")))
        .toHaveLength(2)
      expect(pages(session).at(-1)).toContain("Unsaved: claude@work/claude-opus-5 removed")
      expect(yield* text(file)).toBe(start)
    }))

  it.effect("when the input ends the page goes without saving", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const session = yield* edit(file, [enter, down, down, enter])
      expect(session.out).toBe(`The input ended; nothing was saved and ${file} is as it was.`)
      expect(yield* text(file)).toBe(start)
    }))

  it.effect("where nobody can press a key, the page says what to use instead", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const session = yield* edit(file, [], { tty: false })
      expect(session).toMatchObject({
        ok: false,
        err: "fallback: fallback edit needs a terminal; from a script, write steps with fallback point, retry and clear"
      })
    }))

  it("a save writes only the places the page changed, over the file as it is then", () => {
    const place = (text: string) => Result.getOrThrow(Place.parse(text))
    const [a, b, c] = [place("claude/a"), place("codex/b"), place("gemini/c")]
    const read = [
      { place: a, to: Option.some(b), retrying: Option.none() },
      { place: b, to: Option.some(c), retrying: Option.none() }
    ]
    const page = State.put(
      State.remove(State.make("f", read), a, ""),
      { place: b, to: Option.some(a), retrying: Option.some(new Policy.Retrying({ tries: 1 })) },
      ""
    )
    const meanwhile = ConfigFile.Document.make({
      steps: { "claude/a": { to: b }, "codex/b": { to: c }, "gemini/c": { to: a } },
      accounts: {},
      providers: {},
      clis: {}
    })
    const after = Result.getOrThrow(State.land(page)(meanwhile))
    expect(Object.keys(after.steps)).toEqual(["codex/b", "gemini/c"])
    expect(String(after.steps["codex/b"]!.to)).toBe("claude/a")
    expect(after.steps["codex/b"]!.retrying?.tries).toBe(1)
    expect(String(after.steps["gemini/c"]!.to)).toBe("claude/a")
  })
})
