import { Effect } from "effect"
import * as Http from "node:http"

/** What a plain server answers: a JSON body, or an event stream of these `[event, data]` frames. */
export type Answer =
  | { readonly json: unknown }
  | { readonly events: ReadonlyArray<readonly [string | undefined, unknown]> }

/**
 * A plain HTTP server on 127.0.0.1 (for answers the mock does not give): each request answered by
 * `answer` from its parsed body, the bodies kept in `bodies`.
 */
export const served = (answer: (body: any) => Answer) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly bodies: Array<any>; readonly running: Http.Server }>(
      (resume) => {
        const bodies: Array<any> = []
        const running = Http.createServer((request, response) => {
          let text = ""
          request.on("data", (chunk) => text += chunk)
          request.on("end", () => {
            const body = JSON.parse(text)
            bodies.push(body)
            const reply = answer(body)
            if ("json" in reply) {
              response.writeHead(200, { "content-type": "application/json" })
              response.end(JSON.stringify(reply.json))
              return
            }
            response.writeHead(200, { "content-type": "text/event-stream" })
            response.end(
              reply.events.map(([event, data]) =>
                `${event === undefined ? "" : `event: ${event}\n`}data: ${
                  typeof data === "string" ? data : JSON.stringify(data)
                }\n\n`
              ).join("")
            )
          })
        })
        running.listen(0, "127.0.0.1", () => {
          const address = running.address() as { port: number }
          resume(Effect.succeed({ url: `http://127.0.0.1:${address.port}`, bodies, running }))
        })
      }
    ),
    (held) => Effect.callback<void>((resume) => void held.running.close(() => resume(Effect.void)))
  )
