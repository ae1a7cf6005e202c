import type { Kysely, Selectable } from 'kysely'
import type { NewestFirstCursor } from '../objects.js'
import type { Database, TrashTable } from './types.js'

/** A deleted file, kept in the store at `objectKey` until it expires. */
export interface TrashItem {
  id: string
  userId: string
  /** Where it was: the user's path. */
  path: string
  objectKey: string
  size: number
  etag: string
  deletedAt: Date
  expiresAt: Date
}

function itemOf (row: Selectable<TrashTable>): TrashItem {
  return {
    id: row.id,
    userId: row.user_id,
    path: row.path,
    objectKey: row.object_key,
    size: Number(row.size),
    etag: row.etag,
    deletedAt: new Date(row.deleted_at),
    expiresAt: new Date(row.expires_at)
  }
}

export function createTrashRepository (db: Kysely<Database>) {
  return {
    async add (item: TrashItem): Promise<void> {
      await db.insertInto('trash').values({
        id: item.id,
        user_id: item.userId,
        path: item.path,
        object_key: item.objectKey,
        size: item.size,
        etag: item.etag,
        deleted_at: item.deletedAt.toISOString(),
        expires_at: item.expiresAt.toISOString()
      }).execute()
    },

    /** What the store holds once the file is there: the version moved may be newer than the one looked at. */
    async settle (id: string, { size, etag }: { size: number, etag: string }): Promise<void> {
      await db.updateTable('trash').set({ size, etag }).where('id', '=', id).execute()
    },

    async find (userId: string, id: string): Promise<TrashItem | undefined> {
      const row = await db.selectFrom('trash').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst()
      return row && itemOf(row)
    },

    /** One user's items, newest first, after `cursor`; `limit + 1` are read to tell whether more follow. */
    async page (userId: string, limit: number, cursor?: NewestFirstCursor): Promise<TrashItem[]> {
      let query = db.selectFrom('trash').selectAll().where('user_id', '=', userId)
      if (cursor) {
        query = query.where((where) => where.or([
          where('deleted_at', '<', cursor.at),
          where.and([where('deleted_at', '=', cursor.at), where('id', '<', cursor.id)])
        ]))
      }
      const rows = await query.orderBy('deleted_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute()
      return rows.map(itemOf)
    },

    /** False when another request removed it first. */
    async remove (id: string): Promise<boolean> {
      const { numDeletedRows } = await db.deleteFrom('trash').where('id', '=', id).executeTakeFirst()
      return numDeletedRows > 0n
    },

    /** Items whose time is up, oldest first. */
    async expired (now: Date, limit: number): Promise<TrashItem[]> {
      const rows = await db.selectFrom('trash').selectAll().where('expires_at', '<', now.toISOString())
        .orderBy('expires_at').limit(limit).execute()
      return rows.map(itemOf)
    }
  }
}

export type TrashRepository = ReturnType<typeof createTrashRepository>
