import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely'
import { beginsWith, isPostgres, runPrepared } from './dialect.js'
import type { ChangesTable, Database } from './types.js'
import { applyNameChanges, takeWritersTurn, type NameChange } from './names.js'
import { inTransaction } from './recording.js'
import { queueDeliveries } from './webhooks.js'
import { followDeadProperties } from './webdav.js'
import { followShares } from './shares.js'
import { grantsCovering, seenThrough } from './mounts.js'

export type ChangeOp = 'put' | 'delete' | 'move' | 'folder' | 'folder-delete' | 'share' | 'unshare'

/** A mount's coming (`share`, made or changed) or going (`unshare`), as its grantee's journal has it (key: the mount's name). */
/** A mount coming or going for `userId`; an `unshare` with `shareId` is that share ended for them
 *  (not a rename): the WebDAV locks they took through it go. */
export interface MountChange { userId: string, op: 'share' | 'unshare', key: string, shareId?: string }

/**
 * Where a reader follows another person's journal: the entries of the owner of a mount the reader
 * has, under its `prefix` (or at exactly it, for a file), made since it was mounted.
 */
export interface SharedSource { ownerId: string, prefix: string, exact: boolean, since: Date }

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

/** The entries of a source a reader follows: the owner's under what is shared, since it was mounted, but their own mounts' coming and going. */
const fromSource = (eb: ExpressionBuilder<Database, 'changes'>, { ownerId, prefix, exact, since }: SharedSource) => eb.and([
  eb('user_id', '=', ownerId),
  eb('at', '>=', since.toISOString()),
  eb('op', 'not in', ['share', 'unshare']),
  exact ? eb.or([eb('key', '=', prefix), eb('from_key', '=', prefix)]) : eb.or([beginsWith('key', prefix), beginsWith('from_key', prefix)])
])

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

/** On PostgreSQL, tells every instance (when `trx` commits) that the user's journal grew at `paths`. */
async function notifyChanged (trx: Kysely<Database>, userId: string, paths: string[]) {
  if (isPostgres(trx)) await sql`select pg_notify(${CHANGES_CHANNEL}, ${notificationPayload(userId, paths)})`.execute(trx)
}

/** The journal's entry of `change` (every write makes one: built once, see runPrepared). */
async function insertChange (trx: Kysely<Database>, { userId, op, key, from, size, etag, contentType, at }: Omit<ChangeEntry, 'seq'>) {
  await runPrepared(trx, 'changes.insert', (value) => trx.insertInto('changes').values({
    user_id: value('userId'), op: value('op'), key: value('key'), from_key: value('from'), size: value('size'), etag: value('etag'), content_type: value('contentType'), at: value('at')
  }).compile(), { userId, op, key, from: from ?? null, size: size ?? null, etag: etag ?? null, contentType: contentType ?? null, at: at.toISOString() })
}

/**
 * Journals mounts coming and going in `trx` (its own transaction when `trx` is the database), as
 * `add` journals a change of files: the writers' turn, the grantees' webhooks, every instance told.
 * A mount gone takes its grantee's WebDAV locks there along (DESIGN §13).
 */
export async function journalMounts (trx: Kysely<Database>, changes: MountChange[], at = new Date()): Promise<void> {
  if (changes.length === 0) return
  if (!trx.isTransaction) return await trx.transaction().execute((own) => journalMounts(own, changes, at))
  await takeWritersTurn(trx)
  for (const { userId, op, key, shareId } of changes) {
    if (op === 'unshare' && shareId !== undefined) await trx.deleteFrom('webdav_locks').where('share_id', '=', shareId).where('taken_by', '=', userId).execute()
    await insertChange(trx, { userId, op, key, at })
    await queueDeliveries(trx, { userId, op, key, at })
    await notifyChanged(trx, userId, [key, `${key}/`])
  }
}

export function createChangeRepository (db: Kysely<Database>) {
  return {
    /**
     * Journals a change, applies it to the index of names and queues it for the user's webhooks, in
     * one transaction (the publish's recording, when given: last in it, so that the writers' turn is
     * held for the least time); on PostgreSQL every instance hears of it when it commits. Resolves
     * with how many deliveries were queued and the mounts the change ended (a shared item deleted).
     */
    async add (change: Omit<ChangeEntry, 'seq'>, names: NameChange[] = [], recordingTrx?: Kysely<Database>): Promise<{ queued: number, unshared: MountChange[] }> {
      const { userId, op, key, from, size, etag, contentType, at } = change
      return await inTransaction(db, recordingTrx, async (trx) => {
        // One writer at a time: a reader past an entry never misses an earlier one that was still
        // committing, and the index's folders are never pruned under a write that adds to them.
        await takeWritersTurn(trx)
        await insertChange(trx, change)
        await applyNameChanges(trx, names)
        let queued = await queueDeliveries(trx, change)
        // Grantees' webhooks hear of it at their mounts' paths.
        for (const grant of await grantsCovering(trx, userId, from === undefined ? [key] : [key, from], at)) {
          const seen = seenThrough(change, grant)
          if (seen) queued += await queueDeliveries(trx, { ...seen, userId: grant.granteeId })
        }
        await followDeadProperties(trx, change)
        const unshared = await followShares(trx, change)
        await notifyChanged(trx, userId, from === undefined ? [key] : [key, from])
        return { queued, unshared }
      })
    },

    /** Journals mounts coming and going (see journalMounts). */
    mounts: async (changes: MountChange[]) => { await journalMounts(db, changes) },

    /**
     * A user's entries after `after`, oldest first, under `prefix`, with those of `shared` (the
     * owners' of the user's mounts, as they have them); `limit + 1` are read to tell whether more follow.
     */
    async page (userId: string, after: number, prefix: string, limit: number, shared: SharedSource[] = []): Promise<ChangeEntry[]> {
      // Under a prefix: the entries there, and the coming and going of a mount the prefix lies in.
      const mountOfPrefix = prefix.includes('/') ? prefix.slice(0, prefix.indexOf('/')) : undefined
      const own = (eb: ExpressionBuilder<Database, 'changes'>) => prefix
        ? eb.and([eb('user_id', '=', userId), eb.or([
          beginsWith('key', prefix), beginsWith('from_key', prefix),
          ...(mountOfPrefix === undefined ? [] : [eb.and([eb('op', 'in', ['share', 'unshare']), eb('key', '=', mountOfPrefix)])])
        ])])
        : eb('user_id', '=', userId)
      const query = db.selectFrom('changes').selectAll().where('seq', '>', after).where((eb) => eb.or([own(eb), ...shared.map((source) => fromSource(eb, source))]))
      return (await query.orderBy('seq').limit(limit + 1).execute()).map(entryOf)
    },

    /** The user's position in the journal now: their last entry's, or the last a sweep removed, or
     *  the last of the entries they follow through `shared`; never anyone else's. */
    async latest (userId: string, shared: SharedSource[] = []): Promise<number> {
      const row = await db.selectFrom('changes').select((eb) => eb.fn.max('seq').as('seq'))
        .where((eb) => eb.or([eb('user_id', '=', userId), ...shared.map((source) => fromSource(eb, source))])).executeTakeFirst()
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
