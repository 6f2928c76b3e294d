/**
 * The accounts of each CLI, in the order a turn walks them: the account chain.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Account from "./Account.js"
import * as ConfigFile from "./ConfigFile.js"

/**
 * An account named twice, or one that is not there, or an order that is not the accounts' own.
 *
 * @since 0.1.0
 * @category errors
 */
export class AccountsRefused extends Schema.TaggedError<AccountsRefused>("@fallback/core/AccountsRefused")(
  "AccountsRefused",
  { cli: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `${this.cli}: ${this.reason}`
  }
}

/**
 * What reading or writing accounts can fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type AccountsError = AccountsRefused | ConfigFile.ConfigFileError

/**
 * The account chains, read and written.
 *
 * @since 0.1.0
 * @category services
 */
export class Accounts extends Context.Service<Accounts, Accounts.Service>()("@fallback/core/Accounts") {
  /**
   * Accounts kept in a {@link ConfigFile.Store}.
   *
   * @since 0.1.0
   */
  static readonly layer: Layer.Layer<Accounts, never, ConfigFile.Store> = Layer.effect(
    Accounts,
    Effect.map(ConfigFile.Store, (store) => make(store))
  )
}

/**
 * @since 0.1.0
 * @category services
 */
export declare namespace Accounts {
  /**
   * What {@link Accounts} does.
   *
   * @since 0.1.0
   * @category models
   */
  export interface Service {
    /** The accounts of a CLI, in the order they are tried. */
    readonly list: (cli: string) => Effect.Effect<ReadonlyArray<Account.Account>, AccountsError>
    /** Adds an account at the end of its CLI's chain. */
    readonly add: (cli: string, account: Account.Account) => Effect.Effect<void, AccountsError>
    /** Removes an account; refused while a step still names it. */
    readonly remove: (cli: string, name: string) => Effect.Effect<void, AccountsError>
    /** Puts a CLI's accounts in the order given, which must name each of them once. */
    readonly order: (cli: string, names: ReadonlyArray<string>) => Effect.Effect<void, AccountsError>
  }
}

const make = (store: ConfigFile.Store.Service): Accounts.Service => {
  const edit = (
    cli: string,
    change: (
      accounts: ReadonlyArray<Account.Account>
    ) => Result.Result<ReadonlyArray<Account.Account>, AccountsRefused>
  ) =>
    store.modify((document) =>
      Result.map(change(document.accounts[cli] ?? []), (accounts) => {
        const { [cli]: _, ...others } = document.accounts
        return { ...document, accounts: accounts.length === 0 ? others : { ...others, [cli]: accounts } }
      })
    )
  const refuse = (cli: string, reason: string) => Result.fail(new AccountsRefused({ cli, reason }))
  return {
    // Read on turns that walk accounts: not traced, as Steps' reads are not.
    list: (cli) => Effect.map(store.read, (document) => document.accounts[cli] ?? []),
    add: Effect.fn("Accounts.add")((cli, account) =>
      edit(cli, (accounts) =>
        accounts.some((a) => a.name === account.name)
          ? refuse(cli, `the account "${account.name}" is already set up; remove it first to set it up again`)
          : Result.succeed([...accounts, account]))
    ),
    remove: Effect.fn("Accounts.remove")((cli, name) =>
      edit(cli, (accounts) =>
        accounts.some((a) => a.name === name)
          ? Result.succeed(accounts.filter((a) => a.name !== name))
          : refuse(cli, `there is no account "${name}" to remove (it has ${names(accounts)})`))
    ),
    order: Effect.fn("Accounts.order")((cli, order) =>
      edit(cli, (accounts) => {
        const sorted = (list: ReadonlyArray<string>) => [...list].sort().join("\u0000")
        return sorted(order) === sorted(accounts.map((a) => a.name))
          ? Result.succeed(order.map((name) => accounts.find((a) => a.name === name)!))
          : refuse(cli, `an order names each account once: ${names(accounts)}`)
      })
    )
  }
}

const names = (accounts: ReadonlyArray<Account.Account>) =>
  accounts.length === 0 ? "none" : accounts.map((a) => a.name).join(", ")
