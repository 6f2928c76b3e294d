/**
 * How late this process's event loop runs: a turn that ends late because the machine gave the
 * process no time is not the engine's lateness, so a soak adds the lag seen during a turn to its
 * margin.
 */

const every = 10
let total = 0
let expected = 0
let timer: ReturnType<typeof setInterval> | undefined = undefined

/** Starts sampling the lag; `stop` ends it. */
export const start = () => {
  if (timer !== undefined) return
  expected = performance.now() + every
  timer = setInterval(() => {
    const now = performance.now()
    total += Math.max(0, now - expected)
    expected = now + every
  }, every)
}

/** Stops sampling. */
export const stop = () => {
  if (timer !== undefined) clearInterval(timer)
  timer = undefined
}

/** Milliseconds the event loop has run late, in all, since sampling started. */
export const late = () => total
