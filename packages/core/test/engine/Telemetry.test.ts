/**
 * What an OpenTelemetry user sees of a recovering turn: the spans the real SDK's in-memory
 * exporter receives, the metrics, and the notices a program's own logger gets, for a scripted
 * outage (429 → wait → account move → place move → answer) on the TestClock.
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { SpanKind } from "@opentelemetry/api"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Arbitrary, Duration, Effect, Fiber, Logger, Metric, References, Result, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import type { Place } from "../../src/index.js"
import { Agent, Backend, Failure, Notice, Place as PlaceModule, Secret, Telemetry } from "../../src/index.js"
import { anyOf, between, oneOf, world } from "./world.js"

/** A world with its own places, so the global metrics of one test are not another's. */
const outage = (id: string) => {
  const work = `claude@work/opus-${id}`
  const home = `claude@home/opus-${id}`
  const codex = `codex/gpt-${id}`
  return {
    work,
    home,
    codex,
    layer: world({
      script: {
        places: {
          [work]: [Scripted.fail("RateLimited")],
          [home]: [Scripted.fail("AuthRefused")],
          [codex]: [Scripted.answer("done")]
        }
      },
      chain: [work, codex],
      accounts: { claude: ["work", "home"] }
    })
  }
}

type Mode = "whole" | "streamed"

const take = (agent: Agent.Agent, mode: Mode) =>
  mode === "whole"
    ? Agent.ask(agent, "fix it")
    : Effect.map(Stream.runCollect(agent.turn("fix it")), Backend.textOf)

/** Takes one turn at `work`, the clock moved on (a minute) while it recovers. */
const turnAt = (work: string, mode: Mode, recovery: Duration.Input = "1 minute") =>
  Effect.gen(function*() {
    const agent = yield* Agent.make(work)
    const fiber = yield* Effect.forkChild(take(agent, mode))
    yield* TestClock.adjust(recovery)
    return yield* Fiber.join(fiber)
  }).pipe(Effect.scoped)

const kinds: Record<number, string> = {
  [SpanKind.INTERNAL]: "internal",
  [SpanKind.CLIENT]: "client",
  [SpanKind.SERVER]: "server"
}

const millis = (time: readonly [number, number]) => time[0] * 1000 + time[1] / 1e6

/** The tree under the turn's span, one line a span: name, kind, start and end on the TestClock. */
const tree = (spans: ReadonlyArray<ReadableSpan>) => {
  const root = spans.find((span) => span.name === Telemetry.spanName.turn)!
  const lines: Array<string> = []
  const walk = (span: ReadableSpan, depth: number) => {
    lines.push(
      `${"  ".repeat(depth)}${span.name} (${kinds[span.kind]}) ${millis(span.startTime)}→${millis(span.endTime)}`
    )
    spans
      .filter((child) => child.parentSpanContext?.spanId === span.spanContext().spanId)
      .sort((a, b) => millis(a.startTime) - millis(b.startTime))
      .forEach((child) => walk(child, depth + 1))
  }
  walk(root, 0)
  return { root, lines }
}

const traced = <A, E, R>(exporter: InMemorySpanExporter, effect: Effect.Effect<A, E, R>) =>
  Effect.provide(
    effect,
    NodeSdk.layer(() => ({ resource: { serviceName: "test" }, spanProcessor: new SimpleSpanProcessor(exporter) }))
  )

describe("spans of a recovering turn", () => {
  for (const mode of ["whole", "streamed"] as const) {
    it.effect(`429 → wait → account move → place move → answer, taken ${mode}: the exact tree`, () => {
      const exporter = new InMemorySpanExporter()
      const { codex, home, layer, work } = outage(`tree-${mode}`)
      return Effect.gen(function*() {
        expect(yield* turnAt(work, mode)).toBe("done")
        const spans = exporter.getFinishedSpans()
        const { lines, root } = tree(spans)
        const [opus, gpt] = [`chat opus-tree-${mode}`, `chat gpt-tree-${mode}`]
        expect(lines).toEqual([
          "invoke_agent fallback (internal) 0→30000",
          `  ${opus} (client) 0→0`,
          "  fallback.wait (internal) 0→30000",
          `  ${opus} (client) 30000→30000`,
          `  ${opus} (client) 30000→30000`,
          `  ${gpt} (client) 30000→30000`
        ])
        expect(root.attributes).toEqual({
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.provider.name": "claude",
          "gen_ai.system": "claude",
          "gen_ai.request.model": `opus-tree-${mode}`,
          "fallback.place": work,
          "fallback.account": "work",
          "fallback.outcome": "answered",
          "fallback.attempts": 4,
          "fallback.answered.place": codex,
          "gen_ai.usage.input_tokens": 2,
          "gen_ai.usage.output_tokens": 1
        })
        expect(root.events.map((event) => [event.name, millis(event.time), event.attributes?.["fallback.move.by"]]))
          .toEqual([
            ["fallback.retry", 0, undefined],
            ["fallback.move", 30000, "account"],
            ["fallback.move", 30000, "place"]
          ])
        const attempts = spans.filter((span) => span.name.startsWith("chat ")).sort((a, b) =>
          (a.attributes["fallback.attempt"] as number) - (b.attributes["fallback.attempt"] as number)
        )
        expect(attempts.map((span) => ({
          attempt: span.attributes["fallback.attempt"],
          place: span.attributes["fallback.place"],
          account: span.attributes["fallback.account"],
          by: span.attributes["fallback.move.by"],
          outcome: span.attributes["fallback.outcome"],
          error: span.attributes["error.type"],
          status: span.status.code,
          operation: span.attributes["gen_ai.operation.name"]
        }))).toEqual([
          {
            attempt: 1,
            place: work,
            account: "work",
            by: "start",
            outcome: "RateLimited",
            error: "RateLimited",
            status: 2,
            operation: "chat"
          },
          {
            attempt: 2,
            place: work,
            account: "work",
            by: "start",
            outcome: "RateLimited",
            error: "RateLimited",
            status: 2,
            operation: "chat"
          },
          {
            attempt: 3,
            place: home,
            account: "home",
            by: "account",
            outcome: "AuthRefused",
            error: "AuthRefused",
            status: 2,
            operation: "chat"
          },
          {
            attempt: 4,
            place: codex,
            account: undefined,
            by: "place",
            outcome: "answered",
            error: undefined,
            status: 1,
            operation: "chat"
          }
        ])
        const wait = spans.find((span) => span.name === Telemetry.spanName.wait)!
        expect(wait.attributes).toEqual({
          "fallback.place": work,
          "error.type": "RateLimited",
          "fallback.wait_ms": 30000
        })
      }).pipe((effect) => traced(exporter, effect), Effect.provide(layer))
    })
  }

  it.effect("a turn that fails ends its span with the failure's kind, and no secret is in any attribute", () => {
    const exporter = new InMemorySpanExporter()
    const place = "claude/opus-fails"
    const secret = "sk-ant-api03-a1b2c3d4e5f6g7h8i9j0"
    const refused = (at: Place.Place) =>
      new Failure.Unknown({ place: at, said: Failure.said(`no such model for key ${secret}`) })
    return Effect.gen(function*() {
      const failed = yield* Effect.flip(turnAt(place, "whole"))
      expect(failed._tag).toBe("Unknown")
      const { lines, root } = tree(exporter.getFinishedSpans())
      expect(lines).toEqual(["invoke_agent fallback (internal) 0→0", "  chat opus-fails (client) 0→0"])
      expect(root.attributes["fallback.outcome"]).toBe("Unknown")
      expect(root.attributes["error.type"]).toBe("Unknown")
      expect(root.status.code).toBe(2)
      expect(root.events.map((event) => event.name)).toEqual(["fallback.stop", "exception"])
      const exported = JSON.stringify(
        exporter.getFinishedSpans().map((span) => [span.attributes, span.events, span.status])
      )
      expect(exported).toContain("sk-ant-***")
      expect(exported).not.toContain(secret.slice("sk-ant-".length))
    }).pipe(
      (effect) => traced(exporter, effect),
      Effect.provide(world({ script: { places: { [place]: [Scripted.fail(refused)] } } }))
    )
  })

  it.effect("with no tracer installed, a turn makes no span of its own", () =>
    Effect.gen(function*() {
      const { work } = outage("untraced")
      const native = yield* Effect.tracer
      const names: Array<string> = []
      // Effect's own tracer, watched for the length of the turn (there is no other way to see it)
      const span = native.span
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          ;(native as { span: typeof span }).span = function(options) {
            names.push(options.name)
            return span.call(this, options)
          }
        }),
        () => Effect.sync(() => void ((native as { span: typeof span }).span = span))
      )
      const agent = yield* Agent.make(work)
      names.length = 0
      const fiber = yield* Effect.forkChild(Agent.ask(agent, "fix it"))
      yield* TestClock.adjust("1 minute")
      expect(yield* Fiber.join(fiber)).toBe("done")
      expect(names).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(outage("untraced").layer)))
})

/** A metric's series whose labels include `labels`, as a snapshot has them. */
const snapshots = (name: string, labels: Record<string, string>) =>
  Metric.snapshot.pipe(Effect.map((all) =>
    all.filter((snapshot) =>
      snapshot.id === name &&
      Object.entries(labels).every(([key, value]) => snapshot.attributes?.[key] === value)
    )
  ))

const series = (name: string, labels: Record<string, string>) =>
  Effect.map(snapshots(name, labels), (all) => all.map((snapshot) => snapshot.state))

const count = (name: string, labels: Record<string, string>) =>
  Effect.map(
    snapshots(name, labels),
    (all) =>
      all.reduce((total, snapshot) =>
        total + (snapshot.type === "Counter"
          ? Number(snapshot.state.count)
          : snapshot.type === "Histogram"
          ? snapshot.state.count
          : 0), 0)
  )

describe("metrics of a recovering turn", () => {
  it.effect("after 429 → wait → account move → place move → answer, each counter and histogram is exact", () =>
    Effect.gen(function*() {
      const { codex, home, layer, work } = outage("metrics")
      yield* Effect.provide(turnAt(work, "whole"), layer)
      const attempts = (place: string, outcome: string) =>
        count("fallback.attempts", { "fallback.place": place, "fallback.outcome": outcome })
      expect(yield* attempts(work, "RateLimited")).toBe(2)
      expect(yield* attempts(home, "AuthRefused")).toBe(1)
      expect(yield* attempts(codex, "answered")).toBe(1)
      expect(yield* count("fallback.attempts", { "fallback.place": work })).toBe(2)
      expect(yield* count("fallback.moves", { "fallback.place": work, "fallback.move.by": "account" })).toBe(1)
      expect(yield* count("fallback.moves", { "fallback.place": home, "fallback.move.by": "place" })).toBe(1)
      expect(yield* count("fallback.moves", { "fallback.place": work, "fallback.move.by": "place" })).toBe(0)
      const [waits] = yield* series("fallback.wait.duration", { "fallback.place": work })
      expect(waits).toMatchObject({ count: 1, sum: 30, min: 30, max: 30 })
      const [first] = yield* series("fallback.turn.time_to_first_content", { "fallback.place": codex })
      expect(first).toMatchObject({ count: 1, sum: 30 })
      const [whole] = yield* series("fallback.turn.duration", {
        "fallback.place": work,
        "fallback.outcome": "answered"
      })
      expect(whole).toMatchObject({ count: 1, sum: 30 })
      expect(yield* count("fallback.breaker.openings", { "fallback.place": work })).toBe(0)
    }))

  it.effect("a breaker that opens is counted, its place parked, then skipped, then cleared by its trial", () =>
    Effect.gen(function*() {
      const flaky = "claude/flaky-metrics"
      const layer = world({
        script: {
          places: { [flaky]: [Scripted.fail("NotInstalled"), Scripted.fail("NotInstalled"), Scripted.answer("ok")] }
        },
        breaker: { failures: 2, park: Duration.minutes(1) }
      })
      const parked = Effect.map(
        series("fallback.breaker.parked", { "fallback.place": flaky }),
        (states) => states.map((state) => (state as Metric.GaugeState<number>).value)
      )
      yield* Effect.gen(function*() {
        const agent = yield* Agent.make(flaky)
        yield* Effect.flip(Agent.ask(agent, "one"))
        yield* Effect.flip(Agent.ask(agent, "two"))
        expect(yield* count("fallback.breaker.openings", { "fallback.place": flaky })).toBe(1)
        expect(yield* parked).toEqual([1])
        yield* Effect.flip(Agent.ask(agent, "skipped"))
        expect(yield* count("fallback.skips", { "fallback.place": flaky, "fallback.skip.why": "parked" })).toBe(1)
        yield* TestClock.adjust("1 minute")
        expect(yield* Agent.ask(agent, "trial")).toBe("ok")
        expect(yield* parked).toEqual([0])
        expect(yield* count("fallback.attempts", { "fallback.place": flaky })).toBe(3)
      }).pipe(Effect.scoped, Effect.provide(layer))
    }))
})

describe("notices in a program's logger", () => {
  it.effect("a value the process holds as a secret is masked in a notice's span event and its log line", () => {
    const exporter = new InMemorySpanExporter()
    const held = "plain-canary-value-4417"
    Secret.hold(held)
    const at = Result.getOrThrow(PlaceModule.parse("claude@work/opus-held"))
    const notice = Notice.Notice.Stopping({
      place: at,
      failure: new Failure.Unknown({ place: at, said: Failure.said("refused") }),
      reason: `the next place wants ${held}`
    })
    const logged: Array<unknown> = []
    const mine = Logger.make(({ fiber, message }) =>
      logged.push([message, { ...fiber.getRef(References.CurrentLogAnnotations) }])
    )
    return Effect.gen(function*() {
      yield* Telemetry.noticed(notice).pipe(Effect.withSpan("outer"))
      const exported = JSON.stringify(exporter.getFinishedSpans().map((span) => span.events))
      expect(exported).toContain("fallback.stop")
      expect(exported).toContain("the next place wants ***")
      expect(exported).not.toContain(held)
      expect(JSON.stringify(logged)).toContain("the next place wants ***")
      expect(JSON.stringify(logged)).not.toContain(held)
    }).pipe(
      (effect) => traced(exporter, effect),
      Effect.provide(Logger.layer([mine]))
    )
  })
  it.effect("a replaced logger gets every notice with its annotations; Effect's console logger gets none", () =>
    Effect.gen(function*() {
      const { layer, work } = outage("logs")
      const logged: Array<{ message: unknown; level: string; annotations: Record<string, unknown> }> = []
      const mine = Logger.make(({ fiber, logLevel, message }) =>
        logged.push({
          message: Array.isArray(message) ? message[0] : message,
          level: logLevel.toUpperCase(),
          annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
        })
      )
      yield* turnAt(work, "whole").pipe(
        Effect.provide(layer),
        Effect.provide(Logger.layer([mine]))
      )
      expect(
        logged.map(({ annotations, level }) => [level, annotations["fallback.notice"], annotations["fallback.place"]])
      )
        .toEqual([
          ["INFO", "Retrying", work],
          ["INFO", "Moving", work],
          ["INFO", "Moving", `claude@home/opus-logs`]
        ])
      expect(logged[0]!.annotations["fallback.wait_ms"]).toBe(30000)
      expect(logged[0]!.annotations["error.type"]).toBe("RateLimited")
      expect(logged[0]!.message).toMatch(/trying again in 30s/)
    }))
})

describe("a property of every turn", () => {
  const kinds = ["RateLimited", "AuthRefused", "ModelNotFound", "StoreBusy", "Unknown", "Timeout"] as const
  const outcome = anyOf<"answer" | typeof kinds[number]>(Arbitrary.Constant("answer"), oneOf(kinds))
  it.effect.prop(
    "every attempt span has exactly one outcome, and the attempts counted are the requests the backends saw",
    {
      script: Arbitrary.array(Arbitrary.array(outcome, { minLength: 1, maxLength: 4 }), { minLength: 3, maxLength: 3 }),
      mode: oneOf<Mode>(["whole", "streamed"]),
      whole: Arbitrary.schema(Schema.Boolean),
      tracer: Arbitrary.schema(Schema.Boolean),
      turns: between(1, 3)
    },
    ({ mode, script, tracer, turns, whole }) => {
      const id = Math.random().toString(36).slice(2)
      const places = [`claude@a/m-${id}`, `claude@b/m-${id}`, `codex/m-${id}`]
      const exporter = new InMemorySpanExporter()
      const requests = Effect.map(Scripted.Scripted, (seen) => places.map((place) => seen.seen(place).turns))
      const attempts = Effect.forEach(places, (place) => count("fallback.attempts", { "fallback.place": place }))
      const test = Effect.gen(function*() {
        const agent = yield* Agent.make(places[0]!, undefined, { moved: "returns" })
        for (let i = 0; i < turns; i++) {
          const fiber = yield* Effect.forkChild(Effect.result(take(agent, mode)))
          yield* TestClock.adjust("20 minutes")
          yield* Fiber.join(fiber)
        }
        expect(yield* attempts).toEqual(yield* requests)
        if (!tracer) return
        const spans = exporter.getFinishedSpans().filter((span) => span.name.startsWith("chat "))
        expect(spans).toHaveLength((yield* requests).reduce((a, b) => a + b, 0))
        for (const span of spans) {
          const value = span.attributes["fallback.outcome"]
          expect(typeof value).toBe("string")
          expect(value === "answered").toBe(span.attributes["error.type"] === undefined)
          expect(span.status.code).toBe(value === "answered" ? 1 : 2)
        }
      }).pipe(Effect.scoped)
      return (tracer ? traced(exporter, test) : test).pipe(
        Effect.provide(world({
          script: {
            places: Object.fromEntries(places.map((place, i) => [
              place,
              script[i]!.map((o) => (o === "answer" ? Scripted.answer("ok") : Scripted.fail(o)))
            ])),
            whole
          },
          chain: [places[0]!, places[2]!],
          accounts: { claude: ["a", "b"] },
          breaker: { failures: 1000, park: Duration.seconds(1) }
        }))
      )
    },
    { arbitrary: { runs: 60 } }
  )
})
