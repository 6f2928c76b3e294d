/**
 * Issue 25's proof matrix: every fault of the table × {whole reply, streamed turn} × {`api`,
 * `primary`}, each asserting what the caller got (the whole answer, or the typed error and what it
 * carries) and what the provider saw (requests per model in order, their spacing on the TestClock,
 * prefills, the model that answered and its usage). `MATRIX_PRINT=1` prints the measured table.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import type * as Preset from "@fallback/core/Preset"
import { MockProvider } from "@fallback/testkit"
import { Effect } from "effect"
import type { Got, Seen } from "./faults/harness.js"
import { agentAt, drive, env, heard, limitOf, prefilled, presetOf, runsOf, take, world } from "./faults/harness.js"
import type { Cell, Flap, Mode, PresetName, Row, Span } from "./faults/table.js"
import { firstPiece, rows, text } from "./faults/table.js"

const modes: ReadonlyArray<Mode> = ["whole", "streamed"]
const presets: ReadonlyArray<PresetName> = ["api", "primary"]

const measured: Array<{ row: string; mode: Mode; preset: PresetName; expected: string; got: string; ok: boolean }> = []

const seconds = (millis: number) => `${(millis / 1000).toFixed(millis % 1000 === 0 ? 0 : 1)} s`

const runs = (cell: Cell) =>
  cell.attempts.map(([model, least, most]) =>
    `${model}×${most === undefined || most === least ? least : `${least}-${most}`}`
  )
    .join(" ")

const expectedOf = (cell: Cell): string =>
  [
    cell.text !== undefined ?
      "the whole answer" :
      `${cell.error?.tag}${
        cell.error?.failure === undefined ?
          "" :
          `(${cell.error.failure}${
            cell.error.continuation === undefined ? "" : `, continuation ${cell.error.continuation}`
          })`
      }`,
    runs(cell),
    ...(cell.spacing ?? []).map((gap) => `gap ${spanText(gap)}`),
    ...(cell.took === undefined ? [] : [`took ${spanText(cell.took)}`]),
    ...(cell.answered === undefined ? [] : [`by ${cell.answered}`]),
    ...(cell.prefill === undefined || cell.prefill.length === 0 ? [] : ["prefilled"])
  ].join(" · ")

const spanText = (span: Span) =>
  "limit" in span ? `the ${span.limit} limit` : span.least === span.most - 600
    ? seconds(span.least)
    : `${seconds(span.least)}–${seconds(span.most)}`

const range = (span: Span, preset: Preset.Preset): readonly [number, number] =>
  "limit" in span
    ? [limitOf(preset, span.limit), limitOf(preset, span.limit) + 600]
    : [span.least, span.most]

const tagOf = (value: unknown): string | undefined =>
  typeof value === "object" && value !== null && "_tag" in value ? String(value._tag) : undefined

const gotOf = (got: Got, seen: Seen): string => {
  const error = got.error as Record<string, unknown> | undefined
  const gaps = seen.log.slice(1).map((request, i) => request.at - seen.log[i]!.at)
  return [
    error === undefined
      ? got.text === text ? "the whole answer" : `text ${JSON.stringify(got.text.slice(0, 40))}`
      : `${error._tag}${
        tagOf(error.failure) === undefined ?
          "" :
          `(${tagOf(error.failure)}${
            tagOf(error.continuation) === undefined ? "" : `, continuation ${tagOf(error.continuation)}`
          })`
      }`,
    runsOf(seen.log.map((request) => request.model)).map(([model, count]) => `${model}×${count}`).join(" "),
    ...gaps.map((gap) => `gap ${seconds(gap)}`),
    `took ${seconds(seen.elapsed)}`,
    `by ${got.model ?? "?"}`,
    ...(seen.log.some(prefilled) ? ["prefilled"] : [])
  ].join(" · ")
}

/** What is wrong with a turn against its cell, in words (empty when it is right). */
const problems = (cell: Cell, got: Got, seen: Seen, preset: Preset.Preset): ReadonlyArray<string> => {
  const wrong: Array<string> = []
  const error = got.error as Record<string, unknown> | undefined
  if (cell.text !== undefined) {
    if (error !== undefined) wrong.push(`failed with ${error._tag}: ${String(error.message ?? error.said ?? "")}`)
    if (got.text !== cell.text) wrong.push(`the caller got ${JSON.stringify(got.text)}`)
    if (got.result !== undefined && got.result !== cell.text) {
      wrong.push(`the result says ${JSON.stringify(got.result)} (not the whole answer)`)
    }
  }
  if (cell.error !== undefined) {
    if (error === undefined) wrong.push(`answered ${JSON.stringify(got.text)} instead of failing`)
    else {
      if (error._tag !== cell.error.tag) wrong.push(`failed with ${error._tag}, not ${cell.error.tag}`)
      if (cell.error.failure !== undefined && tagOf(error.failure) !== cell.error.failure) {
        wrong.push(`its failure is ${tagOf(error.failure)}, not ${cell.error.failure}`)
      }
      if (cell.error.delivered !== undefined && error.delivered !== cell.error.delivered) {
        wrong.push(
          `it says ${JSON.stringify(error.delivered)} was delivered, not ${JSON.stringify(cell.error.delivered)}`
        )
      }
      if (cell.error.delivered !== undefined && got.text !== cell.error.delivered) {
        wrong.push(`the caller was handed ${JSON.stringify(got.text)}`)
      }
      if (cell.error.says !== undefined && !cell.error.says.test(String(error.message))) {
        wrong.push(`its message ${JSON.stringify(String(error.message))} does not match ${cell.error.says}`)
      }
      if (cell.error.continuation !== undefined && tagOf(error.continuation) !== cell.error.continuation) {
        wrong.push(`its continuation is ${tagOf(error.continuation)}, not ${cell.error.continuation}`)
      }
    }
  }
  const asked = runsOf(seen.log.map((request) => request.model))
  const fits = asked.length === cell.attempts.length &&
    asked.every(([model, count], i) => {
      const [want, least, most = least] = cell.attempts[i]!
      return model === want && count >= least && count <= most
    })
  if (!fits) wrong.push(`the provider saw ${asked.map(([model, count]) => `${model}×${count}`).join(" ")}`)
  for (const gap of cell.spacing ?? []) {
    const [at, next] = [seen.log[gap.after]?.at, seen.log[gap.after + 1]?.at]
    const [least, most] = range(gap, preset)
    if (at === undefined || next === undefined) wrong.push(`no request ${gap.after + 1} to space`)
    else if (next - at < least || next - at > most) {
      wrong.push(`request ${gap.after + 1} came ${next - at} ms after request ${gap.after}, not ${least}-${most}`)
    }
  }
  if (cell.took !== undefined) {
    const [least, most] = range(cell.took, preset)
    if (seen.elapsed < least || seen.elapsed > most) {
      wrong.push(`the turn took ${seen.elapsed} ms, not ${least}-${most}`)
    }
  }
  if (cell.notice !== undefined && !heard.some((line) => cell.notice!.test(line))) {
    wrong.push(`no notice ${cell.notice} among ${JSON.stringify(heard)}`)
  }
  if (cell.answered !== undefined && got.model !== cell.answered) {
    wrong.push(`the result names ${got.model ?? "no model"} as the one that answered, not ${cell.answered}`)
  }
  const first = seen.log[0]?.model
  if (cell.answered !== undefined && cell.answered !== first && got.moves.at(-1) !== cell.answered) {
    wrong.push(`the turn's events carry no Moved to ${cell.answered} (moves: ${JSON.stringify(got.moves)})`)
  }
  if (cell.usage === true) {
    const input = seen.log.length > 0 ? 1 : 0
    if (got.usage === undefined || got.usage.input < input || got.usage.output !== Math.ceil(text.length / 4)) {
      wrong.push(`the usage is ${JSON.stringify(got.usage)}`)
    }
  }
  if (cell.prefill !== undefined) {
    const carried = seen.log.flatMap((request, i) => prefilled(request) ? [i] : [])
    if (JSON.stringify(carried) !== JSON.stringify(cell.prefill)) {
      wrong.push(`requests ${JSON.stringify(carried)} carried a prefill, not ${JSON.stringify(cell.prefill)}`)
    }
    // every continuation in the table follows a first piece delivered: that, and nothing else, is the prefill
    for (const i of carried) {
      const prefill = (seen.log[i] as { readonly prefill?: unknown }).prefill
      if (prefill !== firstPiece) {
        wrong.push(`request ${i}'s prefill is ${JSON.stringify(prefill)}, not what was delivered`)
      }
    }
  }
  return wrong
}

const cellTest = (row: Row, mode: Mode, name: PresetName, cell: Cell) =>
  Effect.gen(function*() {
    const preset = presetOf(name)
    if (preset === undefined) return yield* Effect.fail(`Preset.${name} is not there`)
    heard.length = 0
    const mock = yield* MockProvider.make({ text, contextWindows: row.windows })
    yield* mock.script(row.rules ?? [])
    const { seen, value: got } = yield* drive(
      mock,
      Effect.gen(function*() {
        const agent = yield* agentAt(row, preset)
        return yield* take(agent, row.prompt ?? "hello", mode, 0)
      }).pipe(Effect.provide(world(mock.url, row, preset)))
    )
    const wrong = problems(cell, got, seen, preset)
    measured.push({
      row: row.name,
      mode,
      preset: name,
      expected: expectedOf(cell),
      got: gotOf(got, seen),
      ok: wrong.length === 0
    })
    expect(wrong).toEqual([])
  }).pipe(env)

const flapTest = (row: Row, mode: Mode, name: PresetName, flap: Flap) =>
  Effect.gen(function*() {
    const preset = presetOf(name)
    if (preset === undefined) return yield* Effect.fail(`Preset.${name} is not there`)
    const mock = yield* MockProvider.make({ text })
    yield* mock.script(row.rules ?? [])
    const { seen, value: turns } = yield* drive(
      mock,
      Effect.gen(function*() {
        const agent = yield* agentAt(row, preset)
        const turns: Array<Got> = []
        for (let turn = 0; turn < flap.turns; turn++) {
          turns.push(yield* take(agent, row.prompt ?? "hello", mode, (yield* mock.requests).log.length))
          yield* Effect.sleep(flap.every)
        }
        return turns
      }).pipe(Effect.provide(world(mock.url, row, preset)))
    )
    const played = turns.map((got, i) => {
      const asked = seen.log.slice(got.from, turns[i + 1]?.from ?? seen.log.length).map((request) => request.model)
      return {
        asked,
        answered: got.error !== undefined ? `failed ${got.error._tag}` : got.model ?? `${asked.at(-1)}?`
      }
    })
    const wrong = [
      ...turns.flatMap((got, i) => got.text === text ? [] : [`turn ${i} got ${JSON.stringify(got.text)}`]),
      ...(turns.some((got) => got.model === undefined) ? ["a result names no model"] : []),
      ...flap.judge(played.map((turn) => ({ ...turn, answered: turn.answered.replace(/\?$/, "") })))
    ]
    measured.push({
      row: row.name,
      mode,
      preset: name,
      expected: flap.says,
      got: played.map((turn) => `${turn.asked.join("+")}→${turn.answered}`).join(", "),
      ok: wrong.length === 0
    })
    expect(wrong).toEqual([])
  }).pipe(env)

describe("issue 25's faults × {whole, streamed} × {api, primary}", () => {
  for (const row of rows) {
    describe(row.name, () => {
      for (const mode of modes) {
        for (const preset of presets) {
          const title = `${mode} · ${preset}`
          if (row.flap !== undefined) it.effect(title, () => flapTest(row, mode, preset, row.flap![preset]), 60_000)
          else it.effect(title, () => cellTest(row, mode, preset, row.cells![mode][preset]), 30_000)
        }
      }
    })
  }
})

afterAll(() => {
  if (process.env.MATRIX_PRINT === undefined) return
  const lines = [
    "| fault | mode | preset | expected | got | |",
    "|---|---|---|---|---|---|",
    ...measured.map((m) => `| ${m.row} | ${m.mode} | ${m.preset} | ${m.expected} | ${m.got} | ${m.ok ? "✓" : "✗"} |`)
  ]
  process.stdout.write(`\n${lines.join("\n")}\n${measured.filter((m) => m.ok).length}/${measured.length} right\n`)
})
