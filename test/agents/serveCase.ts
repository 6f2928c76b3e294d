/**
 * What each case of serve.agents.ts and serveDefaults.agents.ts shares: the mock upstream of the
 * file, a folder per CLI outside the repository, a gateway started and stopped around a case, the
 * scripts of a turn that moves, and the readings of what the mock was asked and the gateway logged.
 */
import * as MockProvider from "@fallback/testkit/MockProvider"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, expect } from "vitest"

import * as Gateway from "./gateway.js"
import type { Ran } from "./run.js"

/** The answer of a turn's last call. */
export const said = "The meeting is at noon, in room 4."

/** What the mock was asked, one request. */
export interface Asked {
  readonly route: string
  readonly key: string
  readonly model: string
  readonly fault: string
  readonly body: Record<string, unknown>
}

/** The mock of one test file and what its cases read of it. */
export interface Case {
  readonly mock: () => MockProvider.Running
  /** A folder for one CLI with its notes.txt, outside the repository (the CLIs read the folders above them). */
  readonly folder: (name: string) => string
  /** The requests the mock got since `from`. */
  readonly asked: (from: number) => ReadonlyArray<Asked>
  /** What the mock was asked, a line each (keys by whose they are), printed for whoever reads the run. */
  readonly story: (title: string, caller: string) => void
  /** A gateway over the mock serving `chains` and `aliases`, the mock reset, for `body`; stopped after. */
  readonly through: (
    served: Omit<Gateway.Served, "upstream">,
    body: (gateway: Gateway.Running) => Promise<void>
  ) => Promise<void>
}

/** Starts the mock before the file's cases (bodies kept) and stops it after; `prefix` names the file's folder. */
export const mocked = (prefix: string): Case => {
  let mock: MockProvider.Running
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  beforeAll(async () => {
    mock = await MockProvider.start({ bodies: true })
  })
  afterAll(async () => {
    await mock?.stop()
    if (process.env.FALLBACK_AGENTS_KEEP === undefined) fs.rmSync(home, { recursive: true, force: true })
  })
  const asked = (from: number) =>
    mock.requests().log.slice(from).map((request) => ({
      route: request.route,
      key: request.key,
      model: request.model,
      fault: request.fault,
      body: request.body as Record<string, unknown>
    }))
  return {
    mock: () => mock,
    folder: (name) => {
      const made = path.join(home, name)
      fs.mkdirSync(made, { recursive: true })
      fs.writeFileSync(path.join(made, "notes.txt"), "The meeting is at noon.\n")
      return made
    },
    asked,
    story: (title, caller) => {
      const whose = (key: string) =>
        key === caller ? "caller's key" : Object.entries(Gateway.secrets).find(([, value]) => value === key)?.[0] ?? "?"
      const lines = asked(0).map((request) =>
        `  ${request.route} ${request.model} (${whose(request.key)}): ${request.fault}`
      )
      process.stdout.write(`${title}\n${lines.join("\n")}\n`)
    },
    through: async (served, body) => {
      const gateway = await Gateway.start({ upstream: mock.url, ...served })
      try {
        mock.reset()
        await body(gateway)
      } finally {
        await gateway.stop()
      }
    }
  }
}

/** A script's first two rules: the caller's key at `route` rate-limited, then the gateway's next account too. */
export const rateLimited = (
  route: MockProvider.Rule["route"],
  caller: string,
  model?: string
): ReadonlyArray<MockProvider.Rule> => [
  { route, ...(model === undefined ? {} : { model }), key: caller, fault: "rate-limit", retryAfter: 30 },
  { route, ...(model === undefined ? {} : { model }), fault: "rate-limit", retryAfter: 30 }
]

/** A script's rules at `model` of `route`: a call of `tool` once, then `text`. */
export const toolThenAnswer = (
  route: MockProvider.Rule["route"],
  model: string,
  tool: { readonly name: string; readonly input: Record<string, unknown> },
  text: string = said
): ReadonlyArray<MockProvider.Rule> => [
  { route, model, fault: "answer", times: 1, tool },
  { route, model, fault: "answer", text }
]

/** What the gateway logged, a line each, printed for whoever reads the run. */
export const logged = (gateway: Gateway.Running) => {
  const lines = gateway.lines.map((line) =>
    `  gateway: ${line.method} ${line.path} ${line.status} ${line.model ?? ""} → ${line.place ?? ""}`
  )
  process.stdout.write(`${lines.join("\n")}\n`)
}

/** A run's end and the tail of what it printed, for a failed expectation's message. */
export const shown = (ran: Ran) =>
  `exit ${ran.code}${ran.signal ?? ""}\n${ran.out.slice(-3000)}\n${ran.err.slice(-2000)}`

/** No key of the gateway's or the caller's reached what the CLI printed or the gateway logged. */
export const noSecretIn = (text: string, caller: string) => {
  for (const secret of [...Object.values(Gateway.secrets), caller]) expect(text).not.toContain(secret)
}

/** The turn began with the caller's key at `route`, and there asked it, then the gateway's account `work`: both rate-limited. */
export const movedAccounts = (turn: ReadonlyArray<Asked>, route: string, caller: string, work: string) => {
  expect(turn[0]).toMatchObject({ route, key: caller, fault: "rate-limit" })
  expect(turn.filter((request) => request.route === route).map((request) => [request.key, request.fault])).toEqual([
    [caller, "rate-limit"],
    [work, "rate-limit"]
  ])
}

/** The turn's tool call was answered at `model` of `route`, and the tool's result (the notes) sent there next; those requests. */
export const ranToolAt = (turn: ReadonlyArray<Asked>, route: string, model: string) => {
  const there = turn.filter((request) => request.route === route)
  expect(there.map((request) => request.model)).toEqual([model, model])
  expect(JSON.stringify(there[1]!.body.messages)).toContain("The meeting is at noon.")
  return there
}
