/**
 * A JSON object read from one line of a CLI's stream, or nothing when the line is not one.
 *
 * @internal
 */
export type Fields = Readonly<Record<string, unknown>>

/** @internal */
export const object = (line: string): Fields | undefined => {
  const text = line.trim()
  if (!text.startsWith("{")) return undefined
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Fields : undefined
  } catch {
    return undefined
  }
}

/**
 * Every JSON object in a stream's text, one per line, in order.
 *
 * @internal
 */
export const objects = (text: string): ReadonlyArray<Fields> =>
  text.split("\n").flatMap((line) => {
    const fields = object(line)
    return fields === undefined ? [] : [fields]
  })

/** @internal */
export const field = (fields: unknown, key: string): Fields | undefined => {
  const value = typeof fields === "object" && fields !== null ? (fields as Fields)[key] : undefined
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Fields : undefined
}

/** @internal */
export const text = (fields: unknown, key: string): string | undefined => {
  const value = typeof fields === "object" && fields !== null ? (fields as Fields)[key] : undefined
  return typeof value === "string" ? value : undefined
}

/** @internal */
export const number = (fields: unknown, key: string): number | undefined => {
  const value = typeof fields === "object" && fields !== null ? (fields as Fields)[key] : undefined
  return typeof value === "number" && Number.isFinite(value) ? value : undefined
}

/** @internal */
export const list = (fields: unknown, key: string): ReadonlyArray<unknown> => {
  const value = typeof fields === "object" && fields !== null ? (fields as Fields)[key] : undefined
  return Array.isArray(value) ? value : []
}

/** @internal */
export const last = <A>(items: ReadonlyArray<A>, predicate: (item: A) => boolean): A | undefined => {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i]!)) return items[i]
  return undefined
}
