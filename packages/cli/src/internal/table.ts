/**
 * Rows as aligned columns, the header first, two spaces between columns.
 *
 * @internal
 */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]?.length ?? 0)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, i) => i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)).join("  ").trimEnd()
  return [line(header), ...rows.map(line)].join("\n")
}
