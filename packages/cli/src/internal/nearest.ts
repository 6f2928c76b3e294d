/** Edits between two names, a swap of two neighbouring letters counting as one (lsit, list). */
const distance = (a: string, b: string): number => {
  const rows: Array<Array<number>> = [Array.from({ length: b.length + 1 }, (_, j) => j)]
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1)
      }
    }
    rows.push(row)
  }
  return rows[a.length]![b.length]!
}

/**
 * " (did you mean X?)" for a misspelt command or option, when one known name is a typo away (the
 * same measure as the config file's, whose helper core keeps internal).
 *
 * @internal
 */
export const didYouMean = (name: string, known: Iterable<string>): string => {
  const limit = Math.max(2, Math.floor(name.length / 3))
  const scored = [...known]
    .map((candidate) => [candidate, distance(name.toLowerCase(), candidate.toLowerCase())] as const)
    .filter(([, d]) => d <= limit)
  const best = Math.min(...scored.map(([, d]) => d))
  const close = scored.filter(([, d]) => d === best).map(([candidate]) => candidate).sort().slice(0, 3)
  return close.length === 0 ? "" : ` (did you mean ${close.join(" or ")}?)`
}
