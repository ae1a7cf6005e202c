import { sql, type Kysely } from 'kysely'
import { isPostgres } from './dialect.js'
import { compareKeys, type Exclusive } from '../storage/object-store.js'

// Writers of one key in this process queue here (process-wide, so that two apps in one process
// share it), so that at most one of them holds a database connection while it waits.
const tails = new Map<string, Promise<unknown>>()

function inProcess<T> (key: string, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve()
  const result = previous.then(work, work)
  const tail = result.catch(() => {})
  tails.set(key, tail)
  void tail.then(() => { if (tails.get(key) === tail) tails.delete(key) })
  return result
}

/**
 * The compare-and-publish step of writes and deletes, one writer of a key at a time. On PostgreSQL
 * also across instances: a transaction-scoped advisory lock on the key's hash, held only while the
 * step runs (never while a body uploads), and released by the server if the instance dies. On
 * SQLite, in this process only: instances that share one SQLite file do not exclude each other.
 * Several keys (a move's two) are taken in key order, in one transaction, so that two holders of
 * the same pair cannot wait for each other, nor hold two connections each.
 */
export function createKeyLocks (db: Kysely<any>): Exclusive {
  const acrossInstances = isPostgres(db)
  return (keys, publish) => {
    const ordered = [...new Set(typeof keys === 'string' ? [keys] : keys)].sort(compareKeys)
    const locked = () => acrossInstances
      ? db.transaction().execute(async (trx) => {
        for (const key of ordered) await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx)
        return publish()
      })
      : publish()
    return ordered.reduceRight<() => Promise<any>>((inner, key) => () => inProcess(key, inner), locked)()
  }
}
