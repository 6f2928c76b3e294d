import * as Effect from "effect/Effect"

/** The standard OpenTelemetry variables the command reads. */
export interface Variables {
  readonly OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined
  readonly OTEL_EXPORTER_OTLP_HEADERS?: string | undefined
  readonly OTEL_EXPORTER_OTLP_PROTOCOL?: string | undefined
  readonly OTEL_SERVICE_NAME?: string | undefined
  readonly OTEL_RESOURCE_ATTRIBUTES?: string | undefined
}

/**
 * The command's spans, metrics and logs exported over OTLP/HTTP while `effect` runs, when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set; the exporter is loaded only then, so a start without it
 * loads nothing more. What is buffered is sent when `effect` ends.
 *
 * @internal
 */
export const exported = <A, E, R>(effect: Effect.Effect<A, E, R>, variables: Variables = process.env) =>
  Effect.suspend(() => {
    const endpoint = variables.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
    if (endpoint === undefined || endpoint === "") return effect
    return Effect.flatMap(
      Effect.promise(() => import("./otlp.js")),
      (otlp) => Effect.provide(effect, otlp.layer(endpoint, variables))
    )
  })
