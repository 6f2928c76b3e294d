/**
 * What the mock provider reads off a request: its route, its key, its length in tokens, the fault
 * its model or key names, and the tool call a rule asks its answer to make.
 */
import type * as Http from "node:http"

import type { Call, Fault, Route, Rule } from "./mockWire.js"
import { faults } from "./mockWire.js"

const byLength = [...faults].sort((a, b) => b.length - a.length)
  .map((fault) => [fault, new RegExp(`fault-${fault}(?:-(\\d+))?(?:-(once|x\\d+))?(?![a-z0-9])`)] as const)

/**
 * A fault a name asks for: `fault-<fault>[-<n>][-once|-x<times>]` anywhere in it, not followed by a
 * letter or digit. `n` is the fault's number (rate-limit's retry-after and quota's reset in
 * seconds, slow's delay and flap's window in ms); `times` how many requests naming it play it
 * before the rest are answered.
 */
/** @internal */
export interface Named {
  readonly fault: Fault
  readonly n?: number | undefined
  readonly times?: number | undefined
}

/** @internal */
export const named = (text: string): Named | undefined => {
  if (!text.includes("fault-")) return undefined
  for (const [fault, pattern] of byLength) {
    const found = pattern.exec(text)
    if (found === null) continue
    const times = found[2] === undefined ? undefined : found[2] === "once" ? 1 : Number(found[2].slice(1))
    return { fault, n: found[1] === undefined ? undefined : Number(found[1]), times }
  }
  return undefined
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((part) => typeof part === "string" ? part : String(field(part, "text") ?? "")).join("")
    : ""

/**
 * The assistant prefill a request ends with, in any vendor's shape: its last message (Chat
 * Completions and Anthropic `messages`, Responses `input`, Gemini `contents`) is the assistant's.
 */
/** @internal */
export const prefillOf = (body: Record<string, unknown>): string | undefined => {
  const list = [body.messages, body.input, body.contents].find(Array.isArray) as ReadonlyArray<unknown> | undefined
  const last = list?.at(-1)
  const role = field(last, "role")
  if (role !== "assistant" && role !== "model") return undefined
  return textOf(field(last, "content") ?? field(last, "parts"))
}

/** @internal */
export const route = (method: string, path: string): Route =>
  method === "POST" && /^\/v1\/messages$/.test(path)
    ? "anthropic"
    : method === "POST" && /^(\/v1)?\/responses$/.test(path)
    ? "responses"
    : method === "POST" && /^(\/v1)?\/chat\/completions$/.test(path)
    ? "chat"
    : method === "POST" && /^\/v1(beta)?\/models\/[^/]+:(stream)?[gG]enerateContent$/.test(path)
    ? "gemini"
    : method === "GET" && /^(\/v1)?\/models$/.test(path)
    ? "models"
    : "other"

/** @internal */
export const keyOf = (request: Http.IncomingMessage, url: URL): string => {
  const header = (name: string) => {
    const value = request.headers[name]
    return Array.isArray(value) ? value[0] : value
  }
  return header("x-api-key") ?? header("x-goog-api-key") ?? url.searchParams.get("key") ??
    header("authorization")?.replace(/^Bearer\s+/i, "") ?? ""
}

/** @internal */
export const textLength = (value: unknown): number =>
  typeof value === "string"
    ? value.length
    : Array.isArray(value)
    ? value.reduce((sum: number, item) => sum + textLength(item), 0)
    : typeof value === "object" && value !== null
    ? Object.entries(value).reduce((sum, [name, item]) => name === "model" ? sum : sum + textLength(item), 0)
    : 0

const field = (value: unknown, name: string): unknown =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>)[name] : undefined

/** The name of the tool a request forces (`tool_choice`), else of the first it offers, in any vendor's shape. */
const toolNamed = (body: Record<string, unknown>, forced: boolean): string | undefined => {
  const choice = body.tool_choice
  const chosen = field(choice, "name") ?? field(field(choice, "function"), "name")
  if (typeof chosen === "string") return chosen
  if (forced) return undefined
  const first = Array.isArray(body.tools) ? body.tools[0] : undefined
  const name = field(first, "name") ?? field(field(first, "function"), "name")
  return typeof name === "string" ? name : undefined
}

/** The tool call a rule asks the answer to make, if any. */
/** @internal */
export const callOf = (
  rule: Pick<Rule, "tool" | "json"> | undefined,
  body: Record<string, unknown>
): Call | undefined => {
  if (rule?.tool !== undefined) {
    return { name: rule.tool.name ?? toolNamed(body, false) ?? "tool", input: rule.tool.input }
  }
  if (rule?.json === undefined) return undefined
  const forced = toolNamed(body, true)
  return forced === undefined ? undefined : { name: forced, input: rule.json }
}

/** @internal */
export const readBody = (request: Http.IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const parts: Array<Buffer> = []
    request.on("data", (part: Buffer) => parts.push(part))
    request.on("end", () => resolve(Buffer.concat(parts).toString("utf8")))
    request.on("error", reject)
  })

/** @internal */
export const parse = (text: string): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null ? value as Record<string, unknown> : {}
  } catch {
    return {}
  }
}
