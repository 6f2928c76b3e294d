import { describe, expect, it } from "@effect/vitest"
import { Response } from "effect/ai"

import { joiner } from "../../src/internal/gateway/joined.js"

const text = (id: string, delta: string) => [
  Response.makePart("text-start", { id }),
  Response.makePart("text-delta", { id, delta }),
  Response.makePart("text-end", { id })
]
const continued = Response.makePart("response-metadata", {
  id: undefined,
  modelId: undefined,
  timestamp: undefined,
  metadata: { fallback: { place: "b/m", from: "a/m", moved: true, continued: { from: "a/m", delivered: 4 } } }
} as any)
const finish = Response.makePart("finish", { reason: "stop", usage: {} } as any)

const run = (parts: ReadonlyArray<Response.AnyPart>) => {
  const joined = joiner()
  return [...parts.flatMap((part) => joined.part(part)), ...joined.flush()].map((part) =>
    part.type === "text-delta"
      ? `${part.type}:${part.id}:${part.delta}`
      : part.type.startsWith("text-")
      ? `${part.type}:${(part as any).id}`
      : part.type
  )
}

describe("joiner: a text continued at the next place is one block", () => {
  it("a cut text and its continuation are one block, with the first block's id", () => {
    expect(run([...text("a", "the "), continued, ...text("b", "answer"), finish])).toEqual([
      "text-start:a",
      "text-delta:a:the ",
      "response-metadata",
      "text-delta:a:answer",
      "text-end:a",
      "finish"
    ])
  })

  it("two blocks of one place, with no continuation between, stay two", () => {
    expect(run([...text("a", "one"), ...text("b", "two"), finish])).toEqual([
      "text-start:a",
      "text-delta:a:one",
      "text-end:a",
      "text-start:b",
      "text-delta:b:two",
      "text-end:b",
      "finish"
    ])
  })

  it("after a joined block ends, a later block of the same id is its own", () => {
    expect(run([...text("0", "the "), continued, ...text("0", "answer"), ...text("0", "more")])).toEqual([
      "text-start:0",
      "text-delta:0:the ",
      "response-metadata",
      "text-delta:0:answer",
      "text-end:0",
      "text-start:0",
      "text-delta:0:more",
      "text-end:0"
    ])
  })
})
