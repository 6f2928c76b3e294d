import type * as Steps from "@fallback/core/Steps"
import * as Prompt from "effect/cli/Prompt"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Terminal from "effect/Terminal"

import { fieldKey, pageKey, questionKey } from "./editKeys.js"
import { type Choice, erase, fieldLines, frame, pageLines, questionLines } from "./editRender.js"
import * as State from "./editState.js"

/**
 * What the person asked of the page when it gave way: open a step's row, add a step, save, leave.
 *
 * @internal
 */
export type Intent = Data.TaggedEnum<{
  Open: { readonly step: Steps.Step }
  Add: {}
  Save: {}
  Leave: {}
}>

/**
 * Makes and matches intents.
 *
 * @internal
 */
export const Intent = Data.taggedEnum<Intent>()

const Action = Data.taggedEnum<Prompt.ActionDefinition>()

const bell = "\u0007"

const beep = Effect.succeed(Action.Beep())

interface Size {
  readonly columns: number
  readonly rows: number
}

const size = Effect.flatMap(
  Terminal.Terminal,
  (terminal) => Effect.all({ columns: terminal.columns, rows: terminal.rows })
)

const drawn = <S>(lines: (state: S, size: Size) => ReadonlyArray<string>) => ({
  render: (_: S, action: Prompt.Action<S, unknown>) =>
    action._tag === "Beep"
      ? Effect.succeed(bell)
      : action._tag === "Submit"
      ? Effect.succeed("")
      : Effect.map(size, (size) => frame(lines(action.state, size), size.columns)),
  clear: (state: S) => Effect.map(size, (size) => erase(lines(state, size).length))
})

/**
 * The page until a key asks for more than moving: the page as it stands then, and what was asked.
 *
 * @internal
 */
export const page = (initial: State.Page, colour: boolean): Prompt.Prompt<readonly [State.Page, Intent]> =>
  Prompt.Custom(initial, {
    ...drawn((page: State.Page, size) => pageLines(page, colour, size.rows)),
    process: (input, page) => {
      const submit = (intent: Intent) => Effect.succeed(Action.Submit({ value: [page, intent] as const }))
      switch (pageKey(input)) {
        case "up":
          return Effect.succeed(Action.NextFrame({ state: State.move(page, -1) }))
        case "down":
          return Effect.succeed(Action.NextFrame({ state: State.move(page, 1) }))
        case "open": {
          const on = State.at(page)
          return submit(on === "add" ? Intent.Add() : on === "save" ? Intent.Save() : Intent.Open({ step: on }))
        }
        case "add":
          return submit(Intent.Add())
        case "save":
          return submit(Intent.Save())
        case "leave":
          return submit(Intent.Leave())
        case "none":
          return beep
      }
    }
  })

const question = <A>(
  message: string,
  choices: ReadonlyArray<Choice<A>>,
  colour: boolean,
  initial = 0
): Prompt.Prompt<Option.Option<A>> =>
  Prompt.Custom(initial, {
    ...drawn((cursor: number, size) => questionLines(message, choices, cursor, colour, size.rows)),
    process: (input, cursor) => {
      switch (questionKey(input)) {
        case "up":
          return Effect.succeed(Action.NextFrame({ state: (cursor + choices.length - 1) % choices.length }))
        case "down":
          return Effect.succeed(Action.NextFrame({ state: (cursor + 1) % choices.length }))
        case "pick":
          return Effect.succeed(Action.Submit({ value: Option.some(choices[cursor]!.value) }))
        case "back":
          return Effect.succeed(Action.Submit({ value: Option.none() }))
        case "none":
          return beep
      }
    }
  })

/**
 * Runs a prompt; none when the person quits it with ctrl+c or the input ends.
 *
 * @internal
 */
export const asked = <A>(prompt: Prompt.Prompt<A>): Effect.Effect<Option.Option<A>, never, Prompt.Environment> =>
  Prompt.run(prompt).pipe(Effect.asSome, Effect.catchTag("QuitError", () => Effect.succeedNone))

/**
 * Asks a question on the page: one of `choices`, or none when the person goes back (Escape,
 * ctrl+c).
 *
 * @internal
 */
export const choose = <A>(
  message: string,
  choices: ReadonlyArray<Choice<A>>,
  colour: boolean,
  initial = 0
): Effect.Effect<Option.Option<A>, never, Prompt.Environment> =>
  Effect.map(asked(question(message, choices, colour, initial)), Option.flatten)

interface Field {
  readonly text: string
  readonly error: string | undefined
  /** The text is the value it started with, untouched: the first key typed replaces it. */
  readonly fresh: boolean
  /** The text was just refused: the first key typed replaces it, as a new try (Backspace still edits it). */
  readonly refused: boolean
}

/**
 * Asks for something typed, starting from `initial`: what `read` makes of the text once Enter is
 * pressed (the field stays, saying what is wrong, while `read` refuses it: a key typed then starts
 * a new try, Backspace mends the refused text), or none when the person goes back (Escape, ctrl+c).
 *
 * @internal
 */
export const enter = <A>(
  message: string,
  read: (text: string) => Result.Result<A, string>,
  colour: boolean,
  initial = ""
): Effect.Effect<Option.Option<A>, never, Prompt.Environment> =>
  Effect.map(
    asked(
      Prompt.Custom<Field, Option.Option<A>>(
        { text: initial, error: undefined, fresh: initial !== "", refused: false },
        {
          ...drawn((field: Field) => fieldLines(message, field.text, field.error, colour)),
          process: (input, field) => {
            const key = fieldKey(input)
            switch (key._tag) {
              case "type":
                return Effect.succeed(
                  Action.NextFrame({
                    state: {
                      text: (field.fresh || field.refused ? "" : field.text) + key.text,
                      error: undefined,
                      fresh: false,
                      refused: false
                    }
                  })
                )
              case "erase":
                return Effect.succeed(
                  Action.NextFrame({
                    state: {
                      text: field.fresh ? "" : field.text.slice(0, -1),
                      error: undefined,
                      fresh: false,
                      refused: false
                    }
                  })
                )
              case "done":
                return Effect.succeed(Result.match(read(field.text), {
                  onFailure: (error) => Action.NextFrame({ state: { ...field, error, refused: true } }),
                  onSuccess: (value) => Action.Submit({ value: Option.some(value) })
                }))
              case "back":
                return Effect.succeed(Action.Submit({ value: Option.none() }))
              case "none":
                return beep
            }
          }
        }
      )
    ),
    Option.flatten
  )
