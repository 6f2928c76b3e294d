interface Process {
  readonly pid: number
  readonly kill: (pid: number, signal: 0) => boolean
}

const process = (globalThis as { readonly process?: Process }).process

/**
 * This process's id, or 0 where the runtime has none.
 *
 * @internal
 */
export const pid: number = process?.pid ?? 0

/**
 * Whether a process of this machine is still running. A process fallback cannot ask about counts
 * as running, so a lock is never taken from a live writer.
 *
 * @internal
 */
export const isRunning = (other: number): boolean => {
  if (process === undefined || !Number.isSafeInteger(other) || other <= 0) return true
  try {
    return process.kill(other, 0)
  } catch (error) {
    return (error as { readonly code?: string }).code !== "ESRCH"
  }
}
