import * as Schema from "effect/Schema"

/**
 * `serve` was given what it cannot serve with: a port, an address it cannot bind, a config with
 * nothing to route to, an alias it cannot answer.
 *
 * @internal
 */
export class InvalidServe extends Schema.TaggedError<InvalidServe>("@fallback/cli/InvalidServe")("InvalidServe", {
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/**
 * `serve` was asked to listen beyond loopback with no token clients must send: refused before
 * anything is bound, exit status 2.
 *
 * @internal
 */
export class Unprotected extends Schema.TaggedError<Unprotected>("@fallback/cli/Unprotected")("Unprotected", {
  host: Schema.String
}) {
  readonly status = 2
  override get message(): string {
    return `--host ${this.host} listens beyond this machine's loopback, so it needs --token-env VAR: the name of ` +
      `an environment variable holding the bearer token every client must send (export FALLBACK_TOKEN=$(openssl ` +
      `rand -hex 32); fallback serve --host ${this.host} --token-env FALLBACK_TOKEN); nothing was bound`
  }
}

/**
 * Whether a signal ends the command cleanly (exit 0) rather than as 128 + its number: set by
 * `serve` once it listens, for which ctrl+c and SIGTERM are the way it is stopped.
 *
 * @internal
 */
export const stopsOnSignal = { cleanly: false }
