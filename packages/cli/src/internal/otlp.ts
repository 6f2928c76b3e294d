import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Secret from "@fallback/core/Secret"
import * as Telemetry from "@fallback/core/Telemetry"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Otlp from "effect/observability/Otlp"
import * as OtlpSerialization from "effect/observability/OtlpSerialization"
import type { Variables } from "./telemetry.js"

/**
 * `OTEL_EXPORTER_OTLP_HEADERS`: `name=value` pairs, comma-separated, values percent-encoded. A
 * pair that does not read is left out.
 */
const headersOf = (written: string | undefined): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const pair of (written ?? "").split(",")) {
    const at = pair.indexOf("=")
    if (at <= 0) continue
    try {
      headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim())
    } catch {
      continue
    }
  }
  return headers
}

/** The fields of OTLP data that are identifiers, not words: never masked. */
const identifiers = new Set(["traceId", "spanId", "parentSpanId"])

const header = /^http\.(?:request|response)\.header\./

/** A span attribute of an HTTP header that {@link Telemetry.keptHeader} does not keep. */
const unkept = (key: string) => header.test(key) && !Telemetry.keptHeader.test(key.replace(header, ""))

const plain = (value: object) => {
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/**
 * OTLP data (spans, their events, log records, metric points, the resource) with every word passed
 * through the secret mask and every header not in `Telemetry.keptHeader` left out: what reaches a
 * collector is masked as the command's other outputs are, whatever attribute it came in.
 *
 * @internal
 */
export const masked = (data: unknown, field?: string): unknown => {
  if (typeof data === "string") return field !== undefined && identifiers.has(field) ? data : Secret.mask(data)
  if (Array.isArray(data)) {
    const kept = data.filter((item) =>
      !(typeof item === "object" && item !== null && typeof item.key === "string" && unkept(item.key))
    )
    return kept.map((item) => masked(item))
  }
  if (typeof data === "object" && data !== null && plain(data)) {
    const out: Record<string, unknown> = {}
    for (const [name, value] of Object.entries(data)) out[name] = masked(value, name)
    return out
  }
  return data
}

/** The serialization `protocol` asks for, given the data masked first. */
const maskedSerialization = (protocol: Layer.Layer<OtlpSerialization.OtlpSerialization>) =>
  Layer.effect(
    OtlpSerialization.OtlpSerialization,
    Effect.gen(function*() {
      const encode = yield* OtlpSerialization.OtlpSerialization
      return OtlpSerialization.OtlpSerialization.of({
        traces: (data) => encode.traces(masked(data) as typeof data),
        metrics: (data) => encode.metrics(masked(data) as typeof data),
        logs: (data) => encode.logs(masked(data) as typeof data)
      })
    })
  ).pipe(Layer.provide(protocol))

/**
 * The OTLP/HTTP exporter of traces, metrics and logs at `endpoint` (`/v1/traces` and the others
 * are added to it), as JSON unless `OTEL_EXPORTER_OTLP_PROTOCOL` asks for `http/protobuf`. The
 * service is `OTEL_SERVICE_NAME`, else `service.name` in `OTEL_RESOURCE_ATTRIBUTES`, else
 * `fallback`. Logs go to the collector instead of Effect's console logger, so nothing is added
 * to stdout, where the answer goes. Everything exported is {@link masked} on its way out.
 *
 * @internal
 */
export const layer = (endpoint: string, variables: Variables) => {
  const named = variables.OTEL_SERVICE_NAME ??
    (/(^|,)\s*service\.name\s*=/.test(variables.OTEL_RESOURCE_ATTRIBUTES ?? "") ? undefined : "fallback")
  const options = {
    baseUrl: endpoint,
    resource: { serviceName: named },
    headers: headersOf(variables.OTEL_EXPORTER_OTLP_HEADERS),
    loggerMergeWithExisting: false
  }
  const protocol = variables.OTEL_EXPORTER_OTLP_PROTOCOL === "http/protobuf"
    ? OtlpSerialization.layerProtobuf
    : OtlpSerialization.layerJson
  return Otlp.layer(options).pipe(
    Layer.provide(maskedSerialization(protocol)),
    Layer.provide(NodeHttpClient.layerUndici)
  )
}
