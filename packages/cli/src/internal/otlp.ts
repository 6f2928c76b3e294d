import * as Otlp from "@effect/opentelemetry/Otlp"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
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

/**
 * The OTLP/HTTP exporter of traces, metrics and logs at `endpoint` (`/v1/traces` and the others
 * are added to it), as JSON unless `OTEL_EXPORTER_OTLP_PROTOCOL` asks for `http/protobuf`. The
 * service is `OTEL_SERVICE_NAME`, else `service.name` in `OTEL_RESOURCE_ATTRIBUTES`, else
 * `fallback`. Logs go to the collector instead of Effect's console logger, so nothing is added
 * to stdout, where the answer goes.
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
    replaceLogger: Logger.defaultLogger
  }
  const otlp = variables.OTEL_EXPORTER_OTLP_PROTOCOL === "http/protobuf"
    ? Otlp.layerProtobuf(options)
    : Otlp.layerJson(options)
  return Layer.provide(otlp, NodeHttpClient.layerUndici)
}
