/** The official SDKs, each answered over its `fetch` by a body as the gateway would write it, whatever they ask. */
import Anthropic from "@anthropic-ai/sdk"
import OpenAI from "openai"

/** The Anthropic SDK answered by `body` (of `contentType`, with `status`). */
export const anthropicClient = (body: string, contentType: string, status = 200) =>
  new Anthropic({
    apiKey: "x",
    baseURL: "http://127.0.0.1",
    maxRetries: 0,
    fetch: async () => new Response(body, { status, headers: { "content-type": contentType } })
  })

/** The openai SDK answered by `body` (of `contentType`). */
export const openaiClient = (body: string, contentType: string) =>
  new OpenAI({
    apiKey: "x",
    baseURL: "http://127.0.0.1/v1",
    maxRetries: 0,
    fetch: async () => new Response(body, { headers: { "content-type": contentType } })
  })
