/**
 * Gemini as the mock provider speaks it: `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`
 * and `:generateContent`, with errors as `{ error: { code, message, status, details? } }`.
 */
import type { Asked, Dialect, ErrorKind, Reply } from "./mockWire.js"
import { badGateway, deltas, json, outputTokens, sse } from "./mockWire.js"

const failed = (code: number, status: string, message: string, details?: ReadonlyArray<unknown>): Reply =>
  json(code, { error: { code, message, status, ...(details === undefined ? {} : { details }) } })

const retryInfo = (seconds: number) => ({
  "@type": "type.googleapis.com/google.rpc.RetryInfo",
  retryDelay: `${seconds}s`
})

const errors: { readonly [F in ErrorKind]: (asked: Asked) => Reply } = {
  "rate-limit": (asked) =>
    failed(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).", [retryInfo(asked.retryAfter)]),
  "rate-limit-bare": () => failed(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
  quota: (asked) =>
    failed(
      429,
      "RESOURCE_EXHAUSTED",
      "You exceeded your current quota, please check your plan and billing details. For more information on this " +
        "error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
      [
        {
          "@type": "type.googleapis.com/google.rpc.QuotaFailure",
          violations: [{
            quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
            quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier"
          }]
        },
        retryInfo(asked.quotaReset)
      ]
    ),
  overloaded: () => failed(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
  "server-error": () =>
    failed(500, "INTERNAL", "An internal error has occurred. Please retry or report in https://ai.google.dev/."),
  "bad-gateway": () => badGateway,
  unauthorized: () =>
    failed(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
      { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" }
    ]),
  forbidden: () => failed(403, "PERMISSION_DENIED", "The caller does not have permission"),
  "model-not-found": (asked) =>
    failed(
      404,
      "NOT_FOUND",
      `models/${asked.model} is not found for API version v1beta, or is not supported for generateContent. ` +
        "Call ListModels to see the list of available models and their supported methods."
    ),
  "context-too-long": (asked) =>
    failed(
      400,
      "INVALID_ARGUMENT",
      `The input token count (${Math.max(asked.inputTokens, 1_048_577)}) exceeds the maximum number of tokens ` +
        "allowed (1048576)."
    ),
  "content-policy": () => failed(400, "INVALID_ARGUMENT", "The prompt was blocked by the safety filters."),
  prefill: () => failed(400, "INVALID_ARGUMENT", "Please ensure that the conversation ends with a user turn.")
}

const candidate = (asked: Asked, text: string, finish?: string) => ({
  candidates: [{
    content: { parts: [{ text }], role: "model" },
    index: 0,
    ...(finish === undefined ? {} : { finishReason: finish })
  }],
  usageMetadata: {
    promptTokenCount: asked.inputTokens,
    candidatesTokenCount: outputTokens(asked.text),
    totalTokenCount: asked.inputTokens + outputTokens(asked.text)
  },
  modelVersion: asked.model,
  responseId: asked.id
})

const data = (value: unknown): string => `data: ${JSON.stringify(value)}\r\n\r\n`

/** @internal */
export const gemini: Dialect = {
  answer: (asked) => {
    const pieces = deltas(asked.text)
    return asked.stream
      ? sse(pieces.map((text, i) => data(candidate(asked, text, i === pieces.length - 1 ? "STOP" : undefined))))
      : json(200, candidate(asked, asked.text, "STOP"))
  },
  error: (fault, asked) => errors[fault](asked),
  refusal: (asked) => {
    const blocked = {
      candidates: [{ index: 0, finishReason: "SAFETY" }],
      usageMetadata: {
        promptTokenCount: asked.inputTokens,
        candidatesTokenCount: 0,
        totalTokenCount: asked.inputTokens
      },
      modelVersion: asked.model,
      responseId: asked.id
    }
    return asked.stream ? sse([data(blocked)]) : json(200, blocked)
  },
  opening: (asked) => sse([data(candidate(asked, deltas(asked.text)[0] ?? ""))]),
  streamError: () =>
    sse([
      data({ error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } })
    ])
}
