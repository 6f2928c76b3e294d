// The fault matrix's whole-reply cells through `fallback run --json` (the bundle as a real
// process, over the testkit mock on 127.0.0.1), for the rows whose waits are short enough to run
// on the wall clock: the same table as packages/backends/test/FaultsMatrix.test.ts, asserting the
// answer, the outcome line's model and usage (or the failure kind) and the requests per model.
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as MockProvider from "@fallback/testkit/MockProvider"
import { Schema } from "effect"

import type { Cell, PresetName, Row } from "../packages/backends/test/faults/table.js"
import { rows, text } from "../packages/backends/test/faults/table.js"
import * as RunOutput from "../packages/cli/src/RunOutput.js"
import { fallback } from "./support/fallback.js"

/** The models asked, as runs: `a a b` → `[["a", 2], ["b", 1]]`. */
const runsOf = (models: ReadonlyArray<string>) =>
  models.reduce<Array<[string, number]>>((runs, model) => {
    const last = runs.at(-1)
    if (last !== undefined && last[0] === model) last[1] += 1
    else runs.push([model, 1])
    return runs
  }, [])

const chainOf = (row: Row) => [row.a ?? "a", row.b ?? "b", "c"]

/** The row's chain as a config: steps a → b → c, one OpenAI-compatible provider on the mock. */
const configOf = (url: string, row: Row) => {
  const chain = chainOf(row)
  const config = join(mkdtempSync(join(tmpdir(), "fallback-faults-")), "config.json")
  writeFileSync(
    config,
    JSON.stringify({
      steps: Object.fromEntries(chain.slice(1).map((to, i) => [`local/${chain[i]}`, { to: `local/${to}` }])),
      providers: {
        local: {
          kind: "openai-compatible",
          baseUrl: `${url}/v1`,
          models: chain.map((name) => ({
            name,
            ...(row.windows?.[name] === undefined ? {} : { contextWindow: row.windows[name] }),
            ...(row.continues?.includes(name) ? { continues: true } : {})
          }))
        }
      }
    })
  )
  return config
}

/** A whole cell runs here when nothing in it waits longer than 1.5 s of wall clock. */
const quick = (cell: Cell) =>
  (cell.spacing ?? []).every((gap) => "least" in gap && gap.most <= 1_500) &&
  (cell.took === undefined || ("least" in cell.took && cell.took.most <= 1_500))

const presets: ReadonlyArray<PresetName> = ["api", "primary"]

describe("the fault matrix through fallback run --json (whole)", () => {
  let mock: MockProvider.Running
  beforeAll(async () => {
    // the context windows the mock keeps, by model: only a row with a long prompt meets them
    mock = await MockProvider.start({
      text,
      contextWindows: Object.assign({}, ...rows.map((row) => row.windows ?? {}))
    })
  })
  afterAll(() => mock.stop())

  for (const row of rows) {
    for (const preset of presets) {
      const cell = row.cells?.whole[preset]
      if (cell === undefined || !quick(cell)) continue
      it(`${row.name} · --json · ${preset}`, async () => {
        mock.reset()
        mock.script(row.rules ?? [])
        const ran = await fallback(
          configOf(mock.url, row),
          "run",
          `local/${chainOf(row)[0]}`,
          "--json",
          "--preset",
          preset,
          row.prompt ?? "hello"
        )
        const lines = ran.out.trim().split("\n").map((line) =>
          Schema.decodeUnknownSync(RunOutput.Line, { onExcessProperty: "error" })(JSON.parse(line))
        )
        const outcome = lines.at(-1) as Record<string, unknown>
        const said = lines.flatMap((line) => line.type === "text" ? [line.text] : []).join("")
        const asked = runsOf((await mock.requests()).log.map((request) => request.model))
        const fits = asked.length === cell.attempts.length &&
          asked.every(([model, count], i) => {
            const [want, least, most = least] = cell.attempts[i]!
            return model === want && count >= least && count <= most
          })
        expect({
          code: ran.code,
          asked: fits ? "as expected" : asked,
          ...(cell.text === undefined
            ? { ok: outcome.ok, kind: outcome.kind }
            : { ok: outcome.ok, text: said, model: outcome.model, usage: outcome.usage !== undefined })
        }).toEqual({
          code: cell.text === undefined ? expect.any(Number) : 0,
          asked: "as expected",
          ...(cell.text === undefined
            ? { ok: false, kind: cell.error?.tag }
            : { ok: true, text: cell.text, model: cell.answered, usage: true })
        })
      }, 30_000)
    }
  }
})
