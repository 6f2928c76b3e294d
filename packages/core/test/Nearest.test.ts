import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { Nearest } from "../src/index.js"

const Word = Schema.String.check(Schema.isMaxLength(12))

describe("Nearest", () => {
  it("counts a letter put in, left out, changed, or two neighbours swapped as one edit each", () => {
    expect(Nearest.distance("lsit", "list")).toBe(1)
    expect(Nearest.distance("list", "lists")).toBe(1)
    expect(Nearest.distance("list", "lst")).toBe(1)
    expect(Nearest.distance("list", "lint")).toBe(1)
    expect(Nearest.distance("kitten", "sitting")).toBe(3)
    expect(Nearest.distance("", "abc")).toBe(3)
  })

  it.prop("is a distance: zero only to itself, and the same both ways", [Word, Word], ([a, b]) => {
    expect(Nearest.distance(a, a)).toBe(0)
    expect(Nearest.distance(a, b)).toBe(Nearest.distance(b, a))
    expect(Nearest.distance(a, b) === 0).toBe(a === b)
    expect(Nearest.distance(a, b)).toBeLessThanOrEqual(Math.max(a.length, b.length))
  })

  it("names at most three known names a typo away, nearest first (ties in order), ignoring case", () => {
    expect(Nearest.nearest("lsit", ["list", "last", "status", "init"])).toEqual(["list", "init", "last"])
    expect(Nearest.nearest("STATSU", ["status", "start"])).toEqual(["status"])
    expect(Nearest.nearest("completely-else", ["list", "status"])).toEqual([])
  })
})
