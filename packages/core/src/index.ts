/**
 * @since 0.1.0
 */

/**
 * An account of a CLI: its name, config folder, environment and endpoint.
 *
 * @since 0.1.0
 */
export * as Account from "./Account.js"

/**
 * The accounts of each CLI, in the order a turn walks them.
 *
 * @since 0.1.0
 */
export * as Accounts from "./Accounts.js"

/**
 * An agent at a place, and its turns: the five steps that keep it answering.
 *
 * @since 0.1.0
 */
export * as Agent from "./Agent.js"

/**
 * What a turn does about each kind of failure, as data: one answer record per kind.
 *
 * @since 0.1.0
 */
export * as Answer from "./Answer.js"

/**
 * The interface a backend implements: capabilities, sessions, and turns as streams of events.
 *
 * @since 0.1.0
 */
export * as Backend from "./Backend.js"

/**
 * What shortens a conversation that no longer fits a context window.
 *
 * @since 0.1.0
 */
export * as Compactor from "./Compactor.js"

/**
 * The config file: steps and accounts as JSON, read and written safely.
 *
 * @since 0.1.0
 */
export * as ConfigFile from "./ConfigFile.js"

/**
 * What went wrong with a turn, classified: one tagged error per kind.
 *
 * @since 0.1.0
 */
export * as Failure from "./Failure.js"

/**
 * Per place: failures in a row, the circuit breaker, and cooldowns.
 *
 * @since 0.1.0
 */
export * as Health from "./Health.js"

/**
 * The breaker preset's ordered model list from `LLM_FALLBACK_MODELS`, checked against the catalogue.
 *
 * @since 0.1.0
 */
export * as ModelList from "./ModelList.js"

/**
 * Notices that narrate recovery while it happens, to watchers or to stderr.
 *
 * @since 0.1.0
 */
export * as Notice from "./Notice.js"

/**
 * Where a turn runs: `CLI[@ACCOUNT]/MODEL`.
 *
 * @since 0.1.0
 */
export * as Place from "./Place.js"

/**
 * The six wait policies and the retrying a step asks for.
 *
 * @since 0.1.0
 */
export * as Policy from "./Policy.js"

/**
 * The three reference systems as configuration of the same engine.
 *
 * @since 0.1.0
 */
export * as Preset from "./Preset.js"

/**
 * An HTTP provider a config defines: its wire format, address, key, models, headers and limits.
 *
 * @since 0.1.0
 */
export * as Provider from "./Provider.js"

/**
 * What an agent is, settled where it was made, carried to every stand-in.
 *
 * @since 0.1.0
 */
export * as Settings from "./Settings.js"

/**
 * Secrets kept out of everything fallback prints, stores or sends on.
 *
 * @since 0.1.0
 */
export * as Secret from "./Secret.js"

/**
 * What is written against a place: where its turns go next, and how it tries again first.
 *
 * @since 0.1.0
 */
export * as Steps from "./Steps.js"

/**
 * Spans, metrics and logs of every turn, attempt, wait and move, for any OpenTelemetry user.
 *
 * @since 0.1.0
 */
export * as Telemetry from "./Telemetry.js"

/**
 * The one classifier: statuses, error bodies, headers and words to failure kinds, for every backend.
 *
 * @since 0.1.0
 */
export * as Classify from "./Classify.js"

/**
 * The one race of an effect against a time, on whatever Clock it runs with.
 *
 * @since 0.1.0
 */
export * as Deadline from "./Deadline.js"

/**
 * The names a misspelt one may have meant: the one edit-distance rule.
 *
 * @since 0.1.0
 */
export * as Nearest from "./Nearest.js"
