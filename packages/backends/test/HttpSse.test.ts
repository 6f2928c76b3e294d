import { describe, expect, it } from "@effect/vitest"
import { Arbitrary } from "effect"
import { parse, type SseEvent, SseParser } from "../src/internal/http/sse.js"
import * as FastCheck from "./arbitraries.js"

/** The events of pieces fed one after another to one parser. */
const fed = (pieces: ReadonlyArray<string>): Array<SseEvent> => {
  const parser = new SseParser()
  return pieces.flatMap((piece) => parser.feed(piece))
}

/** `text` cut at the given places. */
const split = (text: string, cuts: ReadonlyArray<number>): Array<string> => {
  const at = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b)
  return [0, ...at].map((start, i) => text.slice(start, at[i] ?? text.length))
}

const body = "event: message_start\ndata: {\"a\":1}\n\n: a comment\r\ndata: first\r\ndata: second\r\n\r\n" +
  "id: 7\rdata:no space\r\rdata: [DONE]\n\ndata: cut off"

/** A line's text: anything but a line break. */
const words = FastCheck.stringOf(FastCheck.constantFrom("a", "b", " ", ":", "{", "\"", "é", "😀"))
const ending = FastCheck.constantFrom("\n", "\r\n", "\r")

/** Events to write: a name (or none) and data lines, at least one. */
const written = Arbitrary.array(
  Arbitrary.all({
    name: FastCheck.option(words),
    data: Arbitrary.array(words, { minLength: 1, maxLength: 3 })
  }),
  { maxLength: 6 }
)

describe("reading server-sent events", () => {
  it("named events, joined data lines, CRLF, CR and comments; fields other than data and event skipped; an event the body ends inside is dropped", () => {
    expect(parse(body)).toEqual([
      { event: "message_start", data: "{\"a\":1}" },
      { event: "", data: "first\nsecond" },
      { event: "", data: "no space" },
      { event: "", data: "[DONE]" }
    ])
  })

  it("a blank line with no data sends nothing and forgets the name", () => {
    expect(parse("event: ping\n\ndata: x\n\n")).toEqual([{ event: "", data: "x" }])
  })

  it("a CR at the end of one piece and an LF at the start of a later one are one line break, empty pieces between", () => {
    expect(fed(["data: x\r", "", "\ndata: y\n\n"])).toEqual([{ event: "", data: "x\ny" }])
  })

  it.prop(
    "however the body is split into pieces, even between CR and LF, the events are those of the whole body",
    [Arbitrary.array(FastCheck.nat(), { maxLength: 16 })],
    ([cuts]) => {
      expect(fed(split(body, cuts))).toEqual(parse(body))
    }
  )

  it.prop(
    "events written with any line endings, comments between them, read back as written",
    [written, ending, FastCheck.boolean(), Arbitrary.array(FastCheck.nat(), { maxLength: 8 })],
    ([events, eol, comments, cuts]) => {
      const text = events.map(({ data, name }) =>
        (comments ? `: note${eol}` : "") +
        (name === undefined ? "" : `event: ${name}${eol}`) +
        data.map((line) => `data: ${line}${eol}`).join("") +
        eol
      ).join("")
      const expected = events.map(({ data, name }) => ({ event: name ?? "", data: data.join("\n") }))
      expect(parse(text)).toEqual(expected)
      expect(fed(split(text, cuts))).toEqual(expected)
    }
  )
})
