/** Repetitions, their median and range, the printed tables and `bench/results.json`, the history of runs. */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { type Read, read } from "./targets.js"

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
export const figure = (
  bench: string,
  what: string,
  unit: string,
  samples: ReadonlyArray<number>,
  note?: string
): Figure => ({
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
  return grid(["bench", "what", "median", "min–max", "ratio", "note"], rows)
}

/** One run as `bench/results.json` keeps it: when, at which commit, where, and what it measured. */
export interface Run {
  readonly at: string
  readonly commit: string
  readonly node: string
  readonly machine: string
  readonly load: ReadonlyArray<number>
  readonly benches: ReadonlyArray<string>
  readonly repetitions: number
  readonly targets: ReadonlyArray<Read>
  readonly figures: ReadonlyArray<Figure>
}

/** The runs kept in `path`, oldest first; a file from before the history was kept is its one run. */
export const history = (path: string): Array<Run> => {
  if (!existsSync(path)) return []
  const kept = JSON.parse(readFileSync(path, "utf8")) as { readonly runs?: Array<Run> } & Partial<Run>
  if (Array.isArray(kept.runs)) return kept.runs
  const figures = kept.figures ?? []
  return [{
    at: kept.at ?? "",
    commit: kept.commit ?? "unknown",
    node: kept.node ?? "",
    machine: kept.machine ?? "",
    load: kept.load ?? [],
    benches: [...new Set(figures.map((f) => f.bench))],
    repetitions: kept.repetitions ?? repetitions,
    targets: read(figures),
    figures
  }]
}

/** Adds `run` to the history in `path`, written whole to a temporary file first and moved in place. */
export const save = (path: string, run: Run) => {
  const runs = [...history(path), run]
  writeFileSync(`${path}.tmp`, JSON.stringify({ runs }, null, 2) + "\n")
  renameSync(`${path}.tmp`, path)
}

/** The last run before this one that read the same target. */
const previous = (runs: ReadonlyArray<Run>, target: Read) =>
  runs.findLast((run) => run.targets.some((t) => t.bench === target.bench && t.what === target.what))
    ?.targets.find((t) => t.bench === target.bench && t.what === target.what)

/** The targets as a table: each one's figure, whether it is met, and what the last run read. */
export const verdicts = (targets: ReadonlyArray<Read>, runs: ReadonlyArray<Run>) => {
  const rows = targets.map((t) => {
    const last = previous(runs, t)
    return [
      t.bench,
      t.what,
      t.target,
      t.value,
      t.met ? "met" : "NOT MET",
      [t.how, last === undefined ? undefined : `last run: ${last.value}${last.met ? "" : " (not met)"}`]
        .filter((part) => part !== undefined).join("; ")
    ]
  })
  return grid(["bench", "target", "wanted", "measured", "verdict", "note"], rows)
}

const grid = (head: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const line = (row: ReadonlyArray<string>) => row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n")
}

/** Milliseconds an async thing takes. */
export const timed = async (what: () => Promise<unknown>) => {
  const start = performance.now()
  await what()
  return performance.now() - start
}
