/**
 * The edits between two names (optimal string alignment): a letter put in, left out or changed,
 * or two neighbours swapped, each one edit.
 *
 * @internal
 */
export const distance = (a: string, b: string): number => {
  let before: Array<number> = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const same = a[i - 1] === b[j - 1]
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (same ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1)
      current[j] = d
    }
    before = previous
    previous = current
  }
  return previous[b.length]!
}

/**
 * The known names closest to a misspelt one, nearest first: at most three, and only those a
 * typo away (an edit distance of at most a third of the name, and at least 2).
 *
 * @internal
 */
export const nearest = (name: string, known: Iterable<string>): ReadonlyArray<string> => {
  const limit = Math.max(2, Math.floor(name.length / 3))
  return [...known]
    .map((candidate) => [candidate, distance(name.toLowerCase(), candidate.toLowerCase())] as const)
    .filter(([, d]) => d <= limit)
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 3)
    .map(([candidate]) => candidate)
}
