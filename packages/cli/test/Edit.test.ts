import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as FileSystem from "effect/FileSystem"

import { char, configFile, down, enter, escape, start, steps, text, up } from "./editFixtures.js"
import { backends, edit, keys, pages, questions, typed } from "./terminal.js"

describe("fallback edit", () => {
  it.effect("shows one row per place, with add and save below, and nothing unsaved", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const session = yield* edit(file, [char("q")])
      expect(pages(session)[0]).toBe([
        `fallback edit: the steps in ${file}`,
        "",
        "  PLACE                      TURNS GO TO (THE WHOLE CHAIN)            TRIES  POLICY       TIMEOUT",
        "❯ claude@work/claude-opus-5  codex/gpt-5.6-sol → gemini/gemini-3-pro  3      exponential  1m30s",
        "  codex/gpt-5.6-sol          gemini/gemini-3-pro                      -      -            -",
        "  + add a step",
        "  save",
        "",
        "Nothing unsaved.",
        "↑↓ move · enter open · a add · shift+enter or ctrl+j save · esc or q leave"
      ].join("\n"))
      expect(session.ok).toBe(true)
      expect(questions(session)).toEqual([])
      expect(yield* text(file)).toBe(start)
    }))

  it.effect("a chooses the CLI, its account, its model, then the place that takes its turns; the save row lands it", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const session = yield* edit(file, [
        char("a"),
        enter, // claude
        down,
        enter, // work
        down,
        enter, // claude-sonnet-5
        down,
        enter, // codex (no accounts: not asked)
        enter, // gpt-5.6-sol
        down,
        down,
        down,
        enter // the save row
      ], { backends })
      const asked = questions(session).map((frame) => frame.split("\n")[0])
      expect(asked).toEqual([
        "The place that cannot run: which CLI?",
        "The place that cannot run: which account of claude?",
        "The place that cannot run: which account of claude?",
        "The place that cannot run: which model of claude@work?",
        "The place that cannot run: which model of claude@work?",
        "Where the turns of claude@work/claude-sonnet-5 go: which CLI?",
        "Where the turns of claude@work/claude-sonnet-5 go: which CLI?",
        "Where the turns of claude@work/claude-sonnet-5 go: which model of codex?"
      ])
      expect(questions(session)[3]).toContain("❯ claude-opus-5\n  claude-sonnet-5\n  another model    type its name")
      const before = pages(session).find((page) => page.includes("Unsaved"))!
      expect(before).toMatch(/❯ claude@work\/claude-sonnet-5 +codex\/gpt-5\.6-sol → gemini\/gemini-3-pro +- +- +- +new/)
      expect(before).toContain("Unsaved: claude@work/claude-sonnet-5 new")
      expect(pages(session).at(-1)).toContain("❯ save 1 unsaved")
      expect(session.out).toBe(`Saved to ${file}: claude@work/claude-sonnet-5 new`)
      expect(yield* steps(file)).toEqual({
        "claude@work/claude-opus-5": {
          to: "codex/gpt-5.6-sol",
          retrying: { tries: 3, policy: "exponential", timeout: 90 }
        },
        "claude@work/claude-sonnet-5": { to: "codex/gpt-5.6-sol" },
        "codex/gpt-5.6-sol": { to: "gemini/gemini-3-pro" }
      })
    }))

  it.effect("without backends given, each CLI's catalogue is offered, and a model it does not list is typed", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const session = yield* edit(file, [
        char("a"),
        down,
        down,
        enter, // gemini: its catalogue
        up,
        enter, // another model (the last choice)
        ...typed("gemini 3"),
        enter, // refused: a model holds no spaces
        keys.backspace,
        keys.backspace,
        ...typed("-3.5-pro"),
        enter,
        enter, // claude
        enter, // no account
        enter, // claude-opus-5, the first of claude's catalogue
        keys.ctrlJ
      ])
      const asked = questions(session)
      expect(asked.some((q) => q.includes("which model of gemini?\n❯ gemini-3-pro\n  gemini-3-pro-preview"))).toBe(true)
      expect(asked.some((q) => q.includes("which model of claude?\n❯ claude-opus-5\n  claude-sonnet-5"))).toBe(true)
      expect(session.frames.join("")).toContain("the model \"gemini 3\" may not hold spaces")
      expect(session.out).toBe(`Saved to ${file}: gemini/gemini-3.5-pro new`)
      expect(yield* steps(file)).toMatchObject({ "gemini/gemini-3.5-pro": { to: "claude/claude-opus-5" } })
    }))

  it.effect("Enter on a row changes how many tries first and where its turns go; ctrl+j lands both", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const session = yield* edit(file, [
        down,
        enter, // codex/gpt-5.6-sol
        down,
        enter, // how many tries first
        char("2"),
        enter,
        up,
        up,
        enter, // linear (from exponential-jitter, the default)
        enter, // codex/gpt-5.6-sol again
        enter, // where its turns go: gemini, where they go now, is chosen
        up,
        enter, // codex: gpt-5.6-sol, itself, is not offered, so its name is typed
        ...typed("gpt-5.6-sol"),
        enter, // refused at this question
        escape, // back one question: the CLI, at gemini again
        enter, // gemini
        ...typed("gemini-3-flash"),
        enter,
        keys.ctrlJ
      ], { backends })
      const dialog = questions(session)[0]!
      expect(dialog).toBe([
        "codex/gpt-5.6-sol",
        "❯ where its turns go    gemini/gemini-3-pro",
        "  how many tries first  none",
        "  remove this step",
        "↑↓ move · enter choose · esc back"
      ].join("\n"))
      expect(
        questions(session).some((question) =>
          question.includes("codex/gpt-5.6-sol cannot fall back to itself; pick another")
        )
      )
        .toBe(true)
      const last = pages(session).at(-1)!
      expect(last).toMatch(/❯ codex\/gpt-5\.6-sol +gemini\/gemini-3-flash +2 +linear +none +changed/)
      expect(last).toMatch(
        / claude@work\/claude-opus-5 +codex\/gpt-5\.6-sol → gemini\/gemini-3-flash +3 +exponential +1m30s/
      )
      expect(last).toContain("Unsaved: codex/gpt-5.6-sol changed")
      expect(yield* steps(file)).toEqual({
        "claude@work/claude-opus-5": {
          to: "codex/gpt-5.6-sol",
          retrying: { tries: 3, policy: "exponential", timeout: 90 }
        },
        "codex/gpt-5.6-sol": { to: "gemini/gemini-3-flash", retrying: { tries: 2, policy: "linear", timeout: 0 } }
      })
    }))

  it.effect("a row reopened starts each question where its turns go now: its CLI, then its model", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const session = yield* edit(file, [
        enter, // claude@work/claude-opus-5, whose turns go to codex/gpt-5.6-sol
        enter, // where its turns go: which CLI?
        enter, // codex (no accounts): which model?
        escape, // back to the CLIs
        escape, // back to the page, nothing changed
        down,
        enter, // codex/gpt-5.6-sol, whose turns go to gemini/gemini-3-pro
        enter, // where its turns go: which CLI?
        escape,
        char("q")
      ], { backends })
      const asked = questions(session)
      const cliOf = (from: string) =>
        asked.find((q) => q.startsWith(`Where the turns of ${from} go: which CLI?`))!.split("\n").find((line) =>
          line.startsWith("❯")
        )
      expect(cliOf("claude@work/claude-opus-5")).toBe("❯ codex")
      expect(asked).toContainEqual(expect.stringContaining("which model of codex?\n❯ gpt-5.6-sol\n"))
      expect(cliOf("codex/gpt-5.6-sol")).toBe("❯ gemini")
    }))

  it.effect("after a refused self-step, typing starts a new name instead of adding to the refused one", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      yield* edit(file, [
        down,
        enter, // codex/gpt-5.6-sol
        enter, // where its turns go
        up,
        enter, // codex: its only model is itself, so the name is typed
        ...typed("gpt-5.6-sol"),
        enter, // refused: a step to itself
        ...typed("gpt-5.5"),
        enter,
        keys.ctrlJ
      ], { backends })
      expect(yield* steps(file)).toMatchObject({ "codex/gpt-5.6-sol": { to: "codex/gpt-5.5" } })
    }))

  it.effect("the tries field starts from what the step says, and the step keeps its timeout", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const session = yield* edit(file, [
        enter, // claude@work/claude-opus-5
        down,
        enter, // how many tries first
        keys.backspace,
        char("x"),
        enter, // refused
        keys.backspace,
        char("5"),
        enter,
        enter, // exponential, the step's own policy, already chosen
        keys.ctrlJ
      ])
      const fields = session.frames.map((frame) => frame.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ""))
      expect(fields).toContain(
        "How many tries beyond the first at claude@work/claude-opus-5? (0 for none)\n› 3 \ntype · enter done · esc back"
      )
      expect(fields.some((frame) => frame.includes("› x \na whole number, 0 to 100"))).toBe(true)
      expect(questions(session).at(-1)).toContain("❯ exponential         1s, 2s, 4s, 8s…")
      expect(yield* steps(file)).toMatchObject({
        "claude@work/claude-opus-5": { retrying: { tries: 5, policy: "exponential", timeout: 90 } }
      })
    }))

  it.effect("typing in a field that starts filled replaces what it held: 3, then 4 typed, saves 4", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      yield* edit(file, [
        enter, // claude@work/claude-opus-5
        down,
        enter, // how many tries first: 3
        char("4"),
        enter,
        enter,
        keys.ctrlJ
      ])
      expect(yield* steps(file)).toMatchObject({
        "claude@work/claude-opus-5": { retrying: { tries: 4, policy: "exponential", timeout: 90 } }
      })
    }))

  it.effect("saving with nothing unsaved leaves the file as it was", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const session = yield* edit(file, [down, down, down, enter])
      expect(pages(session).at(-1)).toContain("❯ save\n")
      expect(session.out).toBe(`Nothing to save; ${file} is as it was.`)
      expect(yield* text(file)).toBe(start)
    }))

  it.effect("a page longer than the terminal shows the rows round the cursor and how many more there are", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const file = yield* configFile
      const many = Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [`codex/m${String(i).padStart(2, "0")}`, { to: "claude/claude-opus-5" }])
      )
      yield* fs.writeFileString(file, JSON.stringify({ steps: many }))
      const session = yield* edit(file, [up, char("q")], { rows: 12 })
      const [first, last] = [pages(session)[0]!.split("\n"), pages(session).at(-1)!.split("\n")]
      expect(first.slice(2, 8)).toEqual([
        "  PLACE      TURNS GO TO (THE WHOLE CHAIN)  TRIES  POLICY  TIMEOUT",
        "",
        "❯ codex/m00  claude/claude-opus-5           -      -       -",
        "  codex/m01  claude/claude-opus-5           -      -       -",
        "  codex/m02  claude/claude-opus-5           -      -       -",
        "  ↓ 11 more"
      ])
      expect(last.slice(3, 8)).toEqual([
        "  ↑ 11 more",
        "  codex/m11  claude/claude-opus-5           -      -       -",
        "  + add a step",
        "❯ save",
        ""
      ])
      expect(pages(session).every((page) => page.split("\n").length <= 12)).toBe(true)
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})
