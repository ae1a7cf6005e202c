import { sql, type Kysely, type Selectable } from 'kysely'
import { beginsWith, isPostgres } from './dialect.js'
import type { ChangesTable, Database } from './types.js'
import { applyNameChanges, takeWritersTurn, type NameChange } from './names.js'
import { inTransaction } from './recording.js'
import { queueDeliveries } from './webhooks.js'
import { followDeadProperties } from './webdav.js'
import { followShares } from './shares.js'

export type ChangeOp = 'put' | 'delete' | 'move' | 'folder' | 'folder-delete'

/** One change of a user's files, at its place in the journal (`seq`, increasing). */
export interface ChangeEntry {
  seq: number
  userId: string
  op: ChangeOp
  /** The path, relative to the user's root (a folder's ends in `/`). */
  key: string
  /** A move's source. */
  from?: string
  size?: number
  etag?: string
  contentType?: string
  at: Date
}

// The channel on which PostgreSQL tells every instance which user's journal grew.
export const CHANGES_CHANNEL = 'stowage_changes'

function entryOf (row: Selectable<ChangesTable>): ChangeEntry {
  return {
    seq: Number(row.seq),
    userId: row.user_id,
    op: row.op as ChangeOp,
    key: row.key,
    ...row.from_key === null ? {} : { from: row.from_key },
    ...row.size === null ? {} : { size: Number(row.size) },
    ...row.etag === null ? {} : { etag: row.etag },
    ...row.content_type === null ? {} : { contentType: row.content_type },
    at: new Date(row.at)
  }
}

// PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more: long paths are left out (every wait of the user wakes).
const MAX_PAYLOAD_BYTES = 7000

/** What a NOTIFY on CHANGES_CHANNEL carries: the user and the paths that changed (read by storage/change-bell.ts). */
export function notificationPayload (userId: string, paths: string[]): string {
  const payload = JSON.stringify({ u: userId, p: paths })
  return Buffer.byteLength(payload) < MAX_PAYLOAD_BYTES ? payload : JSON.stringify({ u: userId })
}

export function createChangeRepository (db: Kysely<Database>) {
  const notifies = isPostgres(db)
  return {
    /**
     * Journals a change, applies it to the index of names and queues it for the user's webhooks, in
     * one transaction (the publish's recording, when given: last in it, so that the writers' turn is
     * held for the least time); on PostgreSQL every instance hears of it when it commits. Resolves
     * with how many deliveries were queued.
     */
    async add (change: Omit<ChangeEntry, 'seq'>, names: NameChange[] = [], recordingTrx?: Kysely<Database>): Promise<number> {
      const { userId, op, key, from, size, etag, contentType, at } = change
      return await inTransaction(db, recordingTrx, async (trx) => {
        // One writer at a time: a reader past an entry never misses an earlier one that was still
        // committing, and the index's folders are never pruned under a write that adds to them.
        await takeWritersTurn(trx)
        await trx.insertInto('changes').values({
          user_id: userId, op, key, from_key: from ?? null, size: size ?? null, etag: etag ?? null, content_type: contentType ?? null, at: at.toISOString()
        }).execute()
        await applyNameChanges(trx, names)
        const queued = await queueDeliveries(trx, change)
        await followDeadProperties(trx, change)
        await followShares(trx, change)
        if (notifies) await sql`select pg_notify(${CHANGES_CHANNEL}, ${notificationPayload(userId, from === undefined ? [key] : [key, from])})`.execute(trx)
        return queued
      })
    },

    /** A user's entries after `after`, oldest first, under `prefix`; `limit + 1` are read to tell whether more follow. */
    async page (userId: string, after: number, prefix: string, limit: number): Promise<ChangeEntry[]> {
      let query = db.selectFrom('changes').selectAll().where('user_id', '=', userId).where('seq', '>', after)
      if (prefix) query = query.where((where) => where.or([beginsWith('key', prefix), beginsWith('from_key', prefix)]))
      return (await query.orderBy('seq').limit(limit + 1).execute()).map(entryOf)
    },

    /** The user's position in the journal now: their last entry's (or the last a sweep removed), never anyone else's. */
    async latest (userId: string): Promise<number> {
      const row = await db.selectFrom('changes').select((eb) => eb.fn.max('seq').as('seq')).where('user_id', '=', userId).executeTakeFirst()
      return Math.max(Number(row?.seq ?? 0), await this.sweptThrough(userId))
    },

    /** The last position of the user's a sweep removed (0: none). */
    async sweptThrough (userId: string): Promise<number> {
      const row = await db.selectFrom('changes_swept').select('seq').where('user_id', '=', userId).executeTakeFirst()
      return Number(row?.seq ?? 0)
    },

    /** Removes the entries made before `before`, remembering how far for each user; resolves with how many. */
    async sweep (before: Date): Promise<number> {
      const last = await db.selectFrom('changes').select((eb) => eb.fn.max('seq').as('seq')).where('at', '<', before.toISOString()).executeTakeFirst()
      const through = Number(last?.seq ?? 0)
      if (through === 0) return 0
      return await db.transaction().execute(async (trx) => {
        // `where true`: SQLite's grammar needs it before an upsert's ON CONFLICT.
        await sql`
          insert into changes_swept (user_id, seq)
          select user_id, max(seq) from changes where seq <= ${through} and true group by user_id
          on conflict (user_id) do update set seq = excluded.seq`.execute(trx)
        const { numDeletedRows } = await trx.deleteFrom('changes').where('seq', '<=', through).executeTakeFirst()
        return Number(numDeletedRows)
      })
    }
  }
}

export type ChangeRepository = ReturnType<typeof createChangeRepository>
