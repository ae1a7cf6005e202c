import { sql, type Kysely } from 'kysely'
import { isPostgres } from './dialect.js'
import { compareKeys } from '../objects.js'

/** The lock's own transaction, on PostgreSQL: what is written in it commits as the lock is let go,
 *  on the connection the lock already holds. Undefined where the lock holds none (SQLite, none). */
export type LockTransaction = Kysely<any> | undefined

/** Runs `publish` with no other publisher of the key (or of any of the keys: a move holds both) inside. */
export type Exclusive = <T>(key: string | readonly string[], publish: (trx: LockTransaction) => Promise<T>) => Promise<T>

/** For a store used alone: no other publisher to keep out. */
export const directly: Exclusive = (_key, publish) => publish(undefined)

/** What a turn of shared publishers does once: `opening` before the first of them publishes and
 *  `closing` after the last (told what they published, and how many tried), both under the lock
 *  (`closing` in its transaction); `closed` once the lock is let go. */
export interface SharedTurn<T> {
  opening (): Promise<void>
  closing (published: T[], members: number, trx: LockTransaction): Promise<void>
  closed (): Promise<void>
}

/** Exclusive holders of a key, and shared ones: publishers that may run beside each other. */
export type KeyLocks = Exclusive & {
  /**
   * Runs `publish` in a turn of shared holders of `key`, which excludes every other holder of the
   * key. It joins the turn that is waiting or running when no exclusive holder has queued behind
   * it since, else begins one, whose hooks are `turn`'s. Answers once the turn has closed.
   */
  shared <T>(key: string, publish: () => Promise<T>, turn: SharedTurn<T>): Promise<T>
}

// A turn takes at most this many publishers, so that a steady stream of them still lets it end.
const TURN_MEMBERS = 16

interface OpenTurn<T> {
  locks: KeyLocks
  join (publish: () => Promise<T>): Promise<T> | undefined
}

// Holders of a key in this process queue here (process-wide, so that two apps in one process share
// it), so that at most one turn holds a database connection while the others wait.
const queues = new Map<string, { tail: Promise<unknown>, open?: OpenTurn<any> }>()

function inProcess<T> (key: string, work: () => Promise<T>, open?: OpenTurn<unknown>): Promise<T> {
  const queue = queues.get(key) ?? { tail: Promise.resolve() }
  const result = queue.tail.then(work, work)
  const tail = result.catch(() => {})
  queues.set(key, { tail, open })
  void tail.then(() => { if (queues.get(key)?.tail === tail) queues.delete(key) })
  return result
}

/**
 * One turn of shared holders, queued with `hold` (which takes the key's lock): its members publish
 * together once `opening` is done, and are answered once `closed` is.
 */
function beginTurn<T> (locks: KeyLocks, hooks: SharedTurn<T>, hold: (turn: OpenTurn<T>, work: (trx: LockTransaction) => Promise<void>) => Promise<void>): OpenTurn<T> {
  let begin!: () => void
  let refuse!: (error: unknown) => void
  const begun = new Promise<void>((resolve, reject) => { begin = resolve; refuse = reject })
  begun.catch(() => {})
  let allPublished!: () => void
  const published = new Promise<void>((resolve) => { allPublished = resolve })
  let members = 0
  let publishing = 0
  const values: T[] = []
  let accepting = true

  const turn: OpenTurn<T> = {
    locks,
    join (publish: () => Promise<T>) {
      if (!accepting) return undefined
      if (++members === TURN_MEMBERS) accepting = false
      publishing++
      const value = begun.then(publish).then((stored) => {
        values.push(stored)
        return stored
      }).finally(() => {
        if (--publishing > 0) return
        accepting = false
        allPublished()
      })
      value.catch(() => {})
      return ended.then(() => value)
    }
  }

  const held = hold(turn, async (trx) => {
    await hooks.opening()
    begin()
    await published
    await hooks.closing(values, members, trx)
  }).catch(async (error) => {
    accepting = false
    refuse(error)
    await published
    throw error
  })
  // The turn's count comes after the lock, so that its database connection never waits for another.
  const ended = held.then(() => hooks.closed())
  ended.catch(() => {})
  return turn
}

/**
 * The compare-and-publish step of writes and deletes. On PostgreSQL also across instances: a
 * transaction-scoped advisory lock on the key's hash, held only while the step runs (never while a
 * body uploads), and released by the server if the instance dies. On SQLite, in this process only:
 * instances that share one SQLite file do not exclude each other. Several keys (a move's two) are
 * taken in key order, in one transaction, so that two holders of the same pair cannot wait for
 * each other, nor hold two connections each. A turn of shared holders takes one lock for all.
 */
export function createKeyLocks (db: Kysely<any>): KeyLocks {
  const acrossInstances = isPostgres(db)
  const locked = <T>(keys: string[], work: (trx: LockTransaction) => Promise<T>) => acrossInstances
    ? db.transaction().execute(async (trx) => {
      for (const key of keys) await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx)
      return work(trx)
    })
    : work(undefined)

  const exclusive: Exclusive = (keys, publish) => {
    const ordered = [...new Set(typeof keys === 'string' ? [keys] : keys)].sort(compareKeys)
    return ordered.reduceRight<() => Promise<any>>((inner, key) => () => inProcess(key, inner), () => locked(ordered, publish))()
  }

  const locks: KeyLocks = Object.assign(exclusive, {
    shared<T> (key: string, publish: () => Promise<T>, hooks: SharedTurn<T>): Promise<T> {
      const open = queues.get(key)?.open as OpenTurn<T> | undefined
      const joined = open?.locks === locks ? open.join(publish) : undefined
      if (joined) return joined
      const turn = beginTurn(locks, hooks, (turn, work) => inProcess(key, () => locked([key], work), turn))
      return turn.join(publish)!
    }
  })
  return locks
}
