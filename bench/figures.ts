/** Repetitions, their median and range, the printed table and `bench/results.json`. */
import { writeFileSync } from "node:fs"

/** How many times each measurement is repeated. */
export const repetitions = Number(process.env.BENCH_REPETITIONS ?? 5)

/** One measurement repeated: its unit, samples, median and range. */
export interface Figure {
  readonly bench: string
  readonly what: string
  readonly unit: string
  readonly samples: ReadonlyArray<number>
  readonly median: number
  readonly min: number
  readonly max: number
  readonly ratio?: number | undefined
  readonly note?: string | undefined
}

/** The median and range of samples. */
export const spread = (samples: ReadonlyArray<number>) => {
  const sorted = [...samples].sort((a, b) => a - b)
  const middle = sorted.length / 2
  const median = sorted.length % 2 === 1
    ? sorted[Math.floor(middle)]!
    : (sorted[middle - 1]! + sorted[middle]!) / 2
  return { median, min: sorted[0]!, max: sorted.at(-1)! }
}

/** A figure from samples. */
export const figure = (bench: string, what: string, unit: string, samples: ReadonlyArray<number>, note?: string): Figure => ({
  bench,
  what,
  unit,
  samples,
  ...spread(samples),
  note
})

/** The figures with each one's ratio to the baseline named `baseline` in the same bench. */
export const against = (figures: ReadonlyArray<Figure>, baseline: string): Array<Figure> => {
  const base = figures.find((f) => f.what === baseline)
  return figures.map((f) => ({ ...f, ratio: base === undefined ? undefined : f.median / base.median }))
}

const number = (value: number) =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value >= 1 ? value.toFixed(2) : value.toFixed(3)

/** The figures as a table, one row each. */
export const table = (figures: ReadonlyArray<Figure>) => {
  const rows = figures.map((f) => [
    f.bench,
    f.what,
    `${number(f.median)} ${f.unit}`,
    `${number(f.min)}–${number(f.max)}`,
    f.ratio === undefined ? "" : `${f.ratio.toFixed(2)}×`,
    f.note ?? ""
  ])
  const head = ["bench", "what", "median", "min–max", "ratio", "note"]
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const line = (row: ReadonlyArray<string>) => row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n")
}

/** Writes every figure, with when and where they were measured, to `path`. */
export const save = (path: string, figures: ReadonlyArray<Figure>, extra: Record<string, unknown>) =>
  writeFileSync(
    path,
    JSON.stringify({ at: new Date().toISOString(), node: process.version, repetitions, ...extra, figures }, null, 2) + "\n"
  )

/** Milliseconds an async thing takes. */
export const timed = async (what: () => Promise<unknown>) => {
  const start = performance.now()
  await what()
  return performance.now() - start
}
