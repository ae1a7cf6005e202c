import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ExpressionBuilder, Kysely } from 'kysely'
import type { Preconditions, StagedState } from '../objects.js'
import type { Database } from './types.js'

/** A resumable upload as the database keeps it between its requests. */
export interface UploadRecord {
  id: string
  userId: string
  path: string
  contentType: string
  size: number
  received: number
  metadata: Record<string, string | null>
  preconditions: Preconditions
  state: StagedState
  /** Set once published. */
  etag: string | null
  createdAt: Date
  expiresAt: Date
}

/** Rows no request holds: never leased, or their lease lapsed. */
const unheld = (at: string) => (where: ExpressionBuilder<Database, 'uploads'>) =>
  where.or([where('lock_owner', 'is', null), where('lock_expires_at', '<', at)])

type Row = Database['uploads'] extends infer T ? { [K in keyof T]: unknown } : never

function recordOf (row: Row): UploadRecord {
  return {
    id: row.id as string,
    userId: row.user_id as string,
    path: row.path as string,
    contentType: row.content_type as string,
    size: Number(row.size),
    received: Number(row.received),
    metadata: JSON.parse(row.metadata as string),
    preconditions: JSON.parse(row.preconditions as string),
    state: JSON.parse(row.state as string),
    etag: row.etag as string | null,
    createdAt: new Date(row.created_at as string),
    expiresAt: new Date(row.expires_at as string)
  }
}

export function createUploadRepository (db: Kysely<Database>) {
  return {
    async create (upload: Omit<UploadRecord, 'etag' | 'received'>): Promise<void> {
      await db.insertInto('uploads').values({
        id: upload.id,
        user_id: upload.userId,
        path: upload.path,
        content_type: upload.contentType,
        size: upload.size,
        received: 0,
        metadata: JSON.stringify(upload.metadata),
        preconditions: JSON.stringify(upload.preconditions),
        state: JSON.stringify(upload.state),
        etag: null,
        created_at: upload.createdAt.toISOString(),
        expires_at: upload.expiresAt.toISOString()
      }).execute()
    },

    async find (id: string): Promise<UploadRecord | undefined> {
      const row = await db.selectFrom('uploads').selectAll().where('id', '=', id).executeTakeFirst()
      return row && recordOf(row)
    },

    async progress (id: string, received: number, state: StagedState): Promise<void> {
      await db.updateTable('uploads').set({ received, state: JSON.stringify(state) }).where('id', '=', id).execute()
    },

    async published (id: string, received: number, etag: string): Promise<void> {
      await db.updateTable('uploads').set({ received, etag }).where('id', '=', id).execute()
    },

    /** False when another request removed it first. */
    async remove (id: string): Promise<boolean> {
      const { numDeletedRows } = await db.deleteFrom('uploads').where('id', '=', id).executeTakeFirst()
      return numDeletedRows > 0n
    },

    /** Uploads whose time is up and that no request holds, oldest first: the unfinished to discard,
     *  the finished to forget. */
    async expired (now: Date, limit: number): Promise<UploadRecord[]> {
      const at = now.toISOString()
      const rows = await db.selectFrom('uploads').selectAll()
        .where('expires_at', '<', at)
        .where(unheld(at))
        .orderBy('expires_at').limit(limit).execute()
      return rows.map(recordOf)
    }
  }
}

export type UploadRepository = ReturnType<typeof createUploadRepository>

export interface UploadLease {
  /** Resolves once this holder has the upload; `onWanted` is called when another request wants it. */
  take (signal: AbortSignal, onWanted: () => void): Promise<void>
  release (): Promise<void>
}

/**
 * One request at a time per upload, on any instance sharing the database: a lease in the upload's
 * row, renewed while held and lapsing if its instance dies, so that no database connection is held
 * while a body streams. A request that wants a held upload says so in the row; the holder, which
 * looks every `pollMs`, lets go (tus' "request release": a client that reconnected after a network
 * failure must not wait for its own dead request to time out). No row yet (an upload being created):
 * there is nothing to contend for.
 */
export function createUploadLeases (db: Kysely<Database>, { leaseMs = 30_000, pollMs = 250 } = {}) {
  const later = (ms: number) => new Date(Date.now() + ms).toISOString()

  return (id: string): UploadLease => {
    const owner = randomUUID()
    let renewal: NodeJS.Timeout | undefined

    async function tryTake (): Promise<boolean> {
      const taken = await db.updateTable('uploads')
        .set({ lock_owner: owner, lock_expires_at: later(leaseMs), lock_wanted: 0 })
        .where('id', '=', id)
        .where(unheld(new Date().toISOString()))
        .executeTakeFirst()
      if (Number(taken.numUpdatedRows) === 1) return true
      const exists = await db.selectFrom('uploads').select('id').where('id', '=', id).executeTakeFirst()
      return exists === undefined
    }

    return {
      async take (signal, onWanted) {
        while (!(await tryTake())) {
          signal.throwIfAborted()
          await db.updateTable('uploads').set({ lock_wanted: 1 }).where('id', '=', id).execute()
          await sleep(pollMs, undefined, { signal }).catch(() => signal.throwIfAborted())
        }
        renewal = setInterval(() => {
          db.updateTable('uploads').set({ lock_expires_at: later(leaseMs) }).where('id', '=', id).where('lock_owner', '=', owner)
            .returning('lock_wanted').executeTakeFirst()
            .then((row) => { if (row?.lock_wanted === 1) onWanted() }, () => {})
        }, pollMs)
        renewal.unref()
      },

      async release () {
        clearInterval(renewal)
        await db.updateTable('uploads').set({ lock_owner: null, lock_expires_at: null }).where('id', '=', id).where('lock_owner', '=', owner).execute()
      }
    }
  }
}
