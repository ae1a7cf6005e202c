import type { Kysely } from 'kysely'
import type { Database } from './types.js'

/**
 * The database's part of one published change (usage, the version's row, the journal entry with the
 * index of names and the webhook deliveries), in one transaction: each repository writes through
 * `trx`, and what may only follow the commit (waking long-polls, the webhook sender) waits in
 * `afterCommit`.
 */
export interface Recording {
  trx: Kysely<Database>
  afterCommit (effect: () => void): void
}

/** Runs `work` in one transaction, and its after-commit effects once it has committed. */
export type Recorder = <T>(work: (recording?: Recording) => Promise<T>) => Promise<T>

/** Without a database of its own to record in (a host's store, a test): each repository writes as it always did. */
export const unrecorded: Recorder = async (work) => await work(undefined)

export function recorderOf (db: Kysely<Database>): Recorder {
  return async (work) => {
    const effects: Array<() => void> = []
    const result = await db.transaction().execute(async (trx) => await work({ trx, afterCommit: (effect) => { effects.push(effect) } }))
    for (const effect of effects) effect()
    return result
  }
}

/**
 * Records `work` in `trx` when the caller holds one (a key lock's, on PostgreSQL: the lock's
 * connection, its commit the lock's), its after-commit effects left in `effects` for the caller to
 * run once that commits; else by `record`, in a transaction of its own.
 */
export async function recordWithin<T> (record: Recorder, trx: Kysely<Database> | undefined, effects: Array<() => void>, work: (recording?: Recording) => Promise<T>): Promise<T> {
  if (!trx) return await record(work)
  return await work({ trx, afterCommit: (effect) => { effects.push(effect) } })
}

/** `work` in the recording's transaction when there is one, else in a transaction of its own. */
export const inTransaction = async <T>(db: Kysely<Database>, trx: Kysely<Database> | undefined, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> =>
  trx ? await work(trx) : await db.transaction().execute(work)
