import { sql, type Kysely, type Selectable } from 'kysely'
import { beginsWith, isPostgres } from './dialect.js'
import type { ChangesTable, Database } from './types.js'
import { queueDeliveries } from './webhooks.js'
import { followDeadProperties } from './webdav.js'

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
// The settings row that keeps the last position a sweep removed: a cursor before it has lost entries.
const SWEPT_THROUGH = 'changes_swept_through'

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

export function createChangeRepository (db: Kysely<Database>) {
  const notifies = isPostgres(db)
  return {
    /**
     * Journals a change and queues it for the user's webhooks, in one transaction; on PostgreSQL every
     * instance hears of it when it commits. Resolves with how many deliveries were queued.
     */
    async add (change: Omit<ChangeEntry, 'seq'>): Promise<number> {
      const { userId, op, key, from, size, etag, contentType, at } = change
      return await db.transaction().execute(async (trx) => {
        // One journal writer at a time: entries commit in the order of their `seq`, so a reader
        // past one never misses an earlier one that was still committing.
        if (notifies) await sql`select pg_advisory_xact_lock(hashtextextended(${CHANGES_CHANNEL}, 1))`.execute(trx)
        await trx.insertInto('changes').values({
          user_id: userId, op, key, from_key: from ?? null, size: size ?? null, etag: etag ?? null, content_type: contentType ?? null, at: at.toISOString()
        }).execute()
        const queued = await queueDeliveries(trx, change)
        await followDeadProperties(trx, change)
        if (notifies) await sql`select pg_notify(${CHANGES_CHANNEL}, ${userId})`.execute(trx)
        return queued
      })
    },

    /** A user's entries after `after`, oldest first, under `prefix`; `limit + 1` are read to tell whether more follow. */
    async page (userId: string, after: number, prefix: string, limit: number): Promise<ChangeEntry[]> {
      let query = db.selectFrom('changes').selectAll().where('user_id', '=', userId).where('seq', '>', after)
      if (prefix) query = query.where((where) => where.or([beginsWith('key', prefix), beginsWith('from_key', prefix)]))
      return (await query.orderBy('seq').limit(limit + 1).execute()).map(entryOf)
    },

    /** The journal's position now: the last entry's, of anyone's. */
    async latest (): Promise<number> {
      const row = await db.selectFrom('changes').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst()
      return Math.max(Number(row?.seq ?? 0), await this.sweptThrough())
    },

    /** The last position a sweep removed (0: none). */
    async sweptThrough (): Promise<number> {
      const row = await db.selectFrom('settings').select('value').where('name', '=', SWEPT_THROUGH).executeTakeFirst()
      return Number(row?.value ?? 0)
    },

    /** Removes the entries made before `before`, remembering how far; resolves with how many. */
    async sweep (before: Date): Promise<number> {
      const last = await db.selectFrom('changes').select((eb) => eb.fn.max('seq').as('seq')).where('at', '<', before.toISOString()).executeTakeFirst()
      const through = Number(last?.seq ?? 0)
      if (through === 0) return 0
      await db.insertInto('settings').values({ name: SWEPT_THROUGH, value: String(through) })
        .onConflict((conflict) => conflict.column('name').doUpdateSet({ value: String(through) })).execute()
      const { numDeletedRows } = await db.deleteFrom('changes').where('seq', '<=', through).executeTakeFirst()
      return Number(numDeletedRows)
    }
  }
}

export type ChangeRepository = ReturnType<typeof createChangeRepository>
