import type * as Gateway from "../../Gateway.js"
import * as HttpRouter from "effect/http/HttpRouter"
import type * as Layer from "effect/Layer"

/** @internal */
export const layer = (_options: Gateway.Options): Layer.Layer<never, never, HttpRouter.HttpRouter | Gateway.Requirements> =>
  HttpRouter.use(() => {
    throw new Error("not built yet")
  }) as any
