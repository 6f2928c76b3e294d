import type * as Gateway from "@fallback/serve/Gateway"

/**
 * A request's log line as a person reads it on stderr: the time, the route, the model asked for,
 * the place that answered (and where it moved from), the status, how long, the usage.
 *
 * @internal
 */
export const requestLine = (line: Gateway.Logged): string => {
  const time = line.at.slice(11, 19)
  const asked = line.model === undefined ? "" : ` ${line.model}`
  const answered = line.place === undefined
    ? ""
    : ` → ${line.place}${line.from === undefined || line.from === line.place ? "" : ` (moved from ${line.from})`}`
  const usage = line.usage === undefined ? "" : `, ${line.usage.input} in, ${line.usage.output} out`
  const error = line.error === undefined ? "" : ` ${line.error}`
  return `${time} ${line.method} ${line.path}${asked}${answered}: ${line.status}${error}${
    line.stream === true ? " streamed" : ""
  } in ${Math.round(line.ms)} ms${usage}`
}
