import { describe, expect, it } from "@effect/vitest"
import { Agent, Backend, Health, Settings, Steps } from "@fallback/core"
import { Arbitrary, Effect, Layer, Result, Schema } from "effect"

const rungs = "the rungs, narrowest first: read-only, ask, edit, full"

describe("the permission rungs", () => {
  it("are read-only, ask, edit and full, narrowest first, and wider means further along", () => {
    expect(Settings.permissions).toEqual(["read-only", "ask", "edit", "full"])
    expect(Settings.wider("full", "edit")).toBe(true)
    expect(Settings.wider("read-only", "ask")).toBe(false)
    expect(Settings.wider("edit", "edit")).toBe(false)
  })

  it.prop(
    "a word that is not a rung is refused with a typed error listing the rungs",
    [
      Arbitrary.filter(
        Arbitrary.schema(Schema.String),
        (word) => !(Settings.permissions as ReadonlyArray<string>).includes(word)
      )
    ],
    ([word]) => {
      const parsed = Settings.parsePermission(word)
      expect(Result.isFailure(parsed) && parsed.failure._tag).toBe("InvalidPermission")
      expect(Result.isFailure(parsed) && parsed.failure.message).toContain(rungs)
    }
  )

  it.prop("every rung is read as itself", [Schema.Literals(Settings.permissions)], ([rung]) => {
    expect(Settings.parsePermission(rung)).toEqual(Result.succeed(rung))
  })

  for (
    const [word, rung, cli] of [
      ["plan", "read-only", "claude's"],
      ["default", "ask", "claude's and gemini's"],
      ["acceptEdits", "edit", "claude's"],
      ["bypassPermissions", "full", "claude's"],
      ["auto_edit", "edit", "gemini's"],
      ["yolo", "full", "gemini's"],
      ["workspace-write", "edit", "codex's"],
      ["danger-full-access", "full", "codex's"]
    ] as const
  ) {
    it(`a CLI's own word, ${word}, is refused naming the rung to write (${rung}), not translated`, () => {
      const parsed = Settings.parsePermission(word)
      expect(Result.isFailure(parsed) && parsed.failure.message).toBe(
        `"${word}" is ${cli} own word, not a permission rung: write ${rung} (${rungs}; each CLI is given its own flags for it)`
      )
    })
  }

  it("a typo names the nearest rung", () => {
    const parsed = Settings.parsePermission("read-onyl")
    expect(Result.isFailure(parsed) && parsed.failure.message).toBe(
      `"read-onyl" is not a permission rung (did you mean read-only?); ${rungs}`
    )
  })

  it("Settings decoded from data refuse a word outside the vocabulary with the same message", () => {
    const decoded = Schema.decodeUnknownResult(Settings.Settings)({ permission: "yolo" })
    expect(Result.isFailure(decoded) && decoded.failure.message).toContain(`"yolo" is gemini's own word`)
    expect(Result.isFailure(decoded) && decoded.failure.message).toContain("write full")
    expect(() => new Settings.Settings({ permission: "yolo" as never })).toThrow(/write full/)
    expect(Schema.decodeUnknownSync(Settings.Settings)({ permission: "edit" }).permission).toBe("edit")
  })

  it.effect("Agent.make refuses settings whose rung bypassed the schema, before anything is opened", () =>
    Effect.gen(function*() {
      const settings = { ...Settings.plain, permission: "yolo" } as unknown as Settings.Settings
      const refused = yield* Effect.flip(Agent.make("claude/m", settings))
      expect(refused._tag).toBe("SettingsRefused")
      expect(refused.message).toContain("write full")
    }).pipe(
      Effect.provide(Layer.mergeAll(Backend.Backends.layer([]), Steps.Steps.layerMemory, Health.Health.layerMemory()))
    ))

  it("a backend honours only the rungs it lists: true is every rung, none said is none", () => {
    const at = (permission: Settings.Honours["permission"], rung: Settings.Permission) =>
      Settings.refusal(new Settings.Settings({ permission: rung }), { webSearchOff: true, callbacks: true, permission })
    expect(at(true, "full")._tag).toBe("None")
    expect(at(["read-only", "full"], "full")._tag).toBe("None")
    expect(at(["read-only", "full"], "edit")).toEqual(
      expect.objectContaining({
        value: "cannot run at the permission rung edit exactly (it runs at read-only, full only)"
      })
    )
    expect(at(undefined, "read-only")).toEqual(
      expect.objectContaining({ value: "cannot be given a permission rung (read-only)" })
    )
  })
})
