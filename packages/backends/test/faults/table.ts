/**
 * Issue 25's proof, as data: every fault of the crash test, what the mock plays for it, and what
 * the caller gets and the provider sees, per mode (a whole reply, a streamed turn) and preset
 * (`api`, `primary`). FaultsMatrix.test.ts makes one test per cell; the README's fault table is
 * this table in words (`what`).
 *
 * The chain is `local/a → local/b → local/c` (a row may rename `a` to name its fault) over one
 * OpenAI-compatible provider on the testkit mock; every model answers {@link text} unless the row
 * says otherwise.
 */
import type { MockProvider } from "@fallback/testkit"

/** The mock's answer, streamed in three pieces. */
export const text = "The whole answer, from the mock, in three pieces."

/** The first piece of {@link text}: what a stream cut or stalled after its first piece delivered. */
export const firstPiece = text.slice(0, Math.ceil(text.length / 3))

export type Mode = "whole" | "streamed"
export type PresetName = "api" | "primary"

/** Models asked in order: `[model, least, most]` goes in a row (most = least when left out). */
export type Run = readonly [model: string, least: number, most?: number]

/** A limit of the preset's, at an HTTP place: its first byte or its stall. */
export type Limit = "firstByte" | "stall"

/** A gap between two requests, or a turn's length, in TestClock milliseconds: a range, or a preset's limit (+0.6 s). */
export type Span = { readonly least: number; readonly most: number } | { readonly limit: Limit }

/** What a cell expects. */
export interface Cell {
  /** The whole answer the caller got; when given, the turn must not fail. */
  readonly text?: string
  /** The typed error the caller got: its tag, its failure's kind, what it says was delivered. */
  readonly error?: {
    readonly tag: string
    readonly failure?: string
    readonly delivered?: string
    readonly continuation?: string
    /** What its message says (the provider's reason, for a refusal). */
    readonly says?: RegExp
  }
  /** The requests the provider saw, by model, in order. */
  readonly attempts: ReadonlyArray<Run>
  /** The gap between request `after` and the next, on the mock's clock (the TestClock). */
  readonly spacing?: ReadonlyArray<{ readonly after: number } & Span>
  /** The model that answered, as the final result says. */
  readonly answered?: string
  /** The answer's usage is the mock's for the answering request. */
  readonly usage?: boolean
  /** The requests (indexes) that carried the delivered text as a prefill; the others carried none. */
  readonly prefill?: ReadonlyArray<number>
  /** How long the turn took on the TestClock. */
  readonly took?: Span
  /** A notice published during the turn. */
  readonly notice?: RegExp
}

/** A row played over several turns: the flapping primary. */
export interface Flap {
  /** Turns, this many TestClock milliseconds apart. */
  readonly turns: number
  readonly every: number
  /** What each turn asked (models in order) and which model answered it, judged whole; empty when right. */
  readonly judge: (
    turns: ReadonlyArray<{ readonly asked: ReadonlyArray<string>; readonly answered: string }>
  ) => ReadonlyArray<string>
  readonly says: string
}

export interface Row {
  readonly name: string
  /** The first model's name (the fault's place), `a` unless said. */
  readonly a?: string
  /** The second model's name, `b` unless said. */
  readonly b?: string
  /** The mock's script (rules by model). */
  readonly rules?: ReadonlyArray<MockProvider.Rule>
  /** Context windows declared for the places (and kept by the mock), in tokens. */
  readonly windows?: Readonly<Record<string, number>>
  /** Models declared to accept a continuation (an assistant prefill). */
  readonly continues?: ReadonlyArray<string>
  /** The prompt (a short one unless said). */
  readonly prompt?: string
  /** The README's words for what each preset does. */
  readonly what: { readonly api: string; readonly primary: string }
  readonly cells?: { readonly [M in Mode]: { readonly [P in PresetName]: Cell } }
  readonly flap?: { readonly [P in PresetName]: Flap }
}

const same = (cell: Cell): { readonly [P in PresetName]: Cell } => ({ api: cell, primary: cell })
const everywhere = (cell: Cell) => ({ whole: same(cell), streamed: same(cell) })
const byPreset = (api: Cell, primary: Cell) => ({ whole: { api, primary }, streamed: { api, primary } })

/** A long prompt: about 3 000 tokens at four characters a token. */
const long = "tell me everything. ".repeat(600)

const at = (least: number, most = least + 600) => ({ least, most })

// api (the preset's plan on the board): no Retry-After, three goes after waits drawn in [0.5,1], [1,2], [2,4] s
const apiBackoff = [{ after: 0, ...at(500, 1_050) }, { after: 1, ...at(1_000, 2_050) }, {
  after: 2,
  ...at(2_000, 4_050)
}]
const primaryWait = [{ after: 0, ...at(30_000) }]

export const rows: ReadonlyArray<Row> = [
  {
    name: "rate limit with a short Retry-After (2 s), once",
    rules: [{ model: "a", fault: "rate-limit", retryAfter: 2, times: 1 }],
    what: {
      api: "waits exactly the Retry-After, asks the same place again",
      primary: "waits 30 s (000's least wait), asks the same place again"
    },
    cells: byPreset(
      { text, attempts: [["a", 2]], spacing: [{ after: 0, ...at(2_000) }], answered: "a", usage: true },
      { text, attempts: [["a", 2]], spacing: primaryWait, answered: "a", usage: true }
    )
  },
  {
    name: "rate limit with a long Retry-After (45 s), once",
    rules: [{ model: "a", fault: "rate-limit", retryAfter: 45, times: 1 }],
    what: {
      api: "moves at once (the place cools for the Retry-After)",
      primary: "waits the Retry-After (45 s), asks the same place again"
    },
    cells: byPreset(
      { text, attempts: [["a", 1], ["b", 1]], spacing: [{ after: 0, ...at(0) }], answered: "b" },
      { text, attempts: [["a", 2]], spacing: [{ after: 0, ...at(45_000) }], answered: "a" }
    )
  },
  {
    name: "rate limit without Retry-After, for good",
    a: "a-fault-rate-limit-bare",
    what: {
      api: "three more goes after jittered waits (0.5-1, 1-2, 2-4 s), then moves",
      primary: "waits 30 s, one more go, then moves"
    },
    cells: byPreset(
      { text, attempts: [["a-fault-rate-limit-bare", 4], ["b", 1]], spacing: apiBackoff, answered: "b" },
      { text, attempts: [["a-fault-rate-limit-bare", 2], ["b", 1]], spacing: primaryWait, answered: "b" }
    )
  },
  {
    name: "500 once",
    rules: [{ model: "a", fault: "server-error", times: 1 }],
    what: {
      api: "one more go here after a jittered wait (0.5-1 s); answers",
      primary: "anything else: the step's tries (none), then moves"
    },
    cells: byPreset(
      { text, attempts: [["a", 2]], spacing: [{ after: 0, ...at(500, 1_050) }], answered: "a" },
      { text, attempts: [["a", 1], ["b", 1]], spacing: [{ after: 0, ...at(0) }], answered: "b" }
    )
  },
  {
    name: "503 for good",
    rules: [{ model: "a", fault: "overloaded" }],
    what: {
      api: "three more goes after jittered waits, then moves",
      primary: "overloaded is a rate limit: waits 30 s, one more go, then moves"
    },
    cells: byPreset(
      { text, attempts: [["a", 4], ["b", 1]], spacing: apiBackoff, answered: "b" },
      { text, attempts: [["a", 2], ["b", 1]], spacing: primaryWait, answered: "b" }
    )
  },
  {
    name: "reset before the headers, once",
    rules: [{ model: "a", fault: "reset", times: 1 }],
    what: { api: "retried at once, same place", primary: "ConnectionLost: reopened, retried at once" },
    cells: everywhere({ text, attempts: [["a", 2]], spacing: [{ after: 0, ...at(0) }], answered: "a" })
  },
  {
    name: "no answer at all",
    rules: [{ model: "a", fault: "hang" }],
    what: {
      api: "moves at the HTTP first-byte limit (20 s), not asked again",
      primary: "the same (an HTTP place's limits: 20 s first byte, 30 s stall; a CLI keeps 30 s and 2 min)"
    },
    cells: everywhere({
      text,
      attempts: [["a", 1], ["b", 1]],
      spacing: [{ after: 0, limit: "firstByte" }],
      answered: "b"
    })
  },
  {
    name: "slow first token (10 s, inside the limit)",
    a: "a-fault-slow-token-10000",
    what: { api: "waited for: opening frames at once, the answer at 10 s, from the same place", primary: "the same" },
    cells: everywhere({
      text,
      attempts: [["a-fault-slow-token-10000", 1]],
      answered: "a-fault-slow-token-10000",
      took: at(10_000)
    })
  },
  {
    name: "slow first token (past the limit)",
    a: "a-fault-slow-token-90000",
    what: {
      api: "opening frames are not content: moves at the first-byte limit, invisibly",
      primary: "the same"
    },
    cells: everywhere({
      text,
      attempts: [["a-fault-slow-token-90000", 1], ["b", 1]],
      spacing: [{ after: 0, limit: "firstByte" }],
      answered: "b"
    })
  },
  {
    name: "stream cut mid-answer",
    rules: [{ model: "a", fault: "cut" }],
    continues: ["b"],
    what: {
      api:
        "whole: asked once more (ConnectionLost), then moves, the whole answer from the next place; streamed: continued at the next place from what was delivered",
      primary: "the same"
    },
    cells: {
      whole: same({ text, attempts: [["a", 2], ["b", 1]], answered: "b", prefill: [] }),
      streamed: same({ text, attempts: [["a", 1], ["b", 1]], answered: "b", prefill: [1] })
    }
  },
  {
    name: "stall mid-answer",
    rules: [{ model: "a", fault: "stall" }],
    continues: ["b"],
    what: {
      api: "ends the attempt at the HTTP stall limit (30 s); whole: moves; streamed: continued at the next place",
      primary: "the same"
    },
    cells: {
      whole: same({
        text,
        attempts: [["a", 1], ["b", 1]],
        spacing: [{ after: 0, limit: "stall" }],
        answered: "b",
        prefill: []
      }),
      streamed: same({
        text,
        attempts: [["a", 1], ["b", 1]],
        spacing: [{ after: 0, limit: "stall" }],
        answered: "b",
        prefill: [1]
      })
    }
  },
  {
    name: "a malformed event among good ones",
    a: "a-fault-malformed-event",
    what: { api: "skipped and counted (a notice); the answer completes here", primary: "the same" },
    cells: {
      whole: same({ text, attempts: [["a-fault-malformed-event", 1]], answered: "a-fault-malformed-event" }),
      streamed: same({
        text,
        attempts: [["a-fault-malformed-event", 1]],
        answered: "a-fault-malformed-event",
        notice: /sent 1 malformed event in its answer; skipped/
      })
    }
  },
  {
    name: "no closing sentinel",
    a: "a-fault-no-sentinel",
    what: { api: "finalised at once with its usage when the body ends", primary: "the same" },
    cells: everywhere({
      text,
      attempts: [["a-fault-no-sentinel", 1]],
      answered: "a-fault-no-sentinel",
      usage: true,
      took: at(0, 500)
    })
  },
  {
    name: "context too long",
    windows: { a: 1_000, b: 1_000, c: 100_000 },
    prompt: long,
    what: {
      api: "taken once, moves to the next place with a larger window (skips one as small)",
      primary: "the same (the candidate rule is every preset's now)"
    },
    cells: everywhere({ text, attempts: [["a", 1], ["c", 1]], answered: "c" })
  },
  {
    name: "content-filter refusal",
    a: "a-fault-content-filter",
    what: { api: "Refused: never retried, never moved; the provider's reason reaches the caller", primary: "the same" },
    cells: everywhere({ error: { tag: "Refused", says: /content.filter/i }, attempts: [["a-fault-content-filter", 1]] })
  },
  {
    name: "a fallback that refuses a continuation",
    b: "b-fault-no-prefill",
    rules: [{ model: "a", fault: "cut" }],
    continues: ["b-fault-no-prefill"],
    what: {
      api:
        "whole: moves, answered whole there; streamed: Agent.Cut with what was delivered and the original failure, the refusal beside it",
      primary: "the same"
    },
    cells: {
      whole: same({
        text,
        attempts: [["a", 2], ["b-fault-no-prefill", 1]],
        answered: "b-fault-no-prefill",
        prefill: []
      }),
      streamed: same({
        error: { tag: "Cut", failure: "ConnectionLost", delivered: firstPiece, continuation: "ArgumentsRefused" },
        attempts: [["a", 1], ["b-fault-no-prefill", 1]],
        prefill: [1]
      })
    }
  },
  {
    name: "a primary that flaps for a minute",
    a: "a-fault-flap-60000",
    what: {
      api:
        "the breaker parks it (3 failures, 30 s), the next place serves every call while parked without asking it, a trial returns to it once it answers",
      primary: "moves once (after its 30 s wait and one more go) and stays moved (000)"
    },
    flap: {
      api: {
        turns: 12,
        every: 10_000,
        says: "b until the flapping ends, then a again; some turns served by b without asking a",
        judge: (turns) => {
          const answered = turns.map((turn) => turn.answered).join(" ")
          const back = turns.findIndex((turn) => turn.answered === "a-fault-flap-60000")
          return [
            ...(/^(b )+(a-fault-flap-60000 ?)+$/.test(answered) ? [] : [`answered ${answered}`]),
            ...(turns.slice(0, back).some((turn) => !turn.asked.includes("a-fault-flap-60000")) ? [] : [
              "no turn was served from b without asking a"
            ]),
            ...(turns.slice(back).every((turn) => turn.asked.join() === "a-fault-flap-60000") ? [] : [
              "after it came back, a turn asked elsewhere"
            ])
          ]
        }
      },
      primary: {
        turns: 12,
        every: 10_000,
        says: "the first turn asks a twice and moves; every turn from b; a never asked again",
        judge: (turns) => [
          ...(turns[0]?.asked.join(" ") === "a-fault-flap-60000 a-fault-flap-60000 b" ? [] : [
            `the first turn asked ${turns[0]?.asked.join(" ")}`
          ]),
          ...(turns.slice(1).every((turn) => turn.asked.join() === "b") ? [] : [
            `later turns asked ${turns.slice(1).map((turn) => turn.asked.join("+")).join(" ")}`
          ]),
          ...(turns.every((turn) => turn.answered === "b")
            ? []
            : [`answered ${turns.map((turn) => turn.answered).join(" ")}`])
        ]
      }
    }
  },
  {
    name: "fail-over accounting",
    rules: [{ model: "a", fault: "model-not-found" }],
    what: {
      api: "the answering model and its usage are in the result (and --json's final line)",
      primary: "the same"
    },
    cells: everywhere({ text, attempts: [["a", 1], ["b", 1]], answered: "b", usage: true })
  },
  {
    name: "an error inside a 200 stream",
    rules: [{ model: "a", fault: "stream-error" }],
    what: {
      api: "classified as its kind (a 500: one more go here), answered before the commit point: moves",
      primary: "classified (Unknown): moves"
    },
    cells: byPreset(
      { text, attempts: [["a", 2], ["b", 1]], answered: "b", prefill: [] },
      { text, attempts: [["a", 1], ["b", 1]], answered: "b", prefill: [] }
    )
  }
]
