import type { Kysely, Selectable } from 'kysely'
import type { NewestFirstCursor } from '../objects.js'
import type { Database, VersionsTable } from './types.js'

/** A file's replaced content, kept in the store at `objectKey` (outside every user's prefix). */
export interface Version {
  id: string
  userId: string
  /** The user's path it was the content of. */
  path: string
  objectKey: string
  size: number
  etag: string
  contentType: string
  /** When this content was written. */
  lastModified: Date
  /** When it was replaced, and became a version: what retention and thinning count from. */
  keptAt: Date
}

function versionOf (row: Selectable<VersionsTable>): Version {
  return {
    id: row.id,
    userId: row.user_id,
    path: row.path,
    objectKey: row.object_key,
    size: Number(row.size),
    etag: row.etag,
    contentType: row.content_type,
    lastModified: new Date(row.last_modified),
    keptAt: new Date(row.kept_at)
  }
}

export function createVersionRepository (db: Kysely<Database>) {
  return {
    /** Records a kept version; in `trx` when given (the publish's recording). */
    async add (version: Version, trx: Kysely<Database> = db): Promise<void> {
      await trx.insertInto('versions').values({
        id: version.id,
        user_id: version.userId,
        path: version.path,
        object_key: version.objectKey,
        size: version.size,
        etag: version.etag,
        content_type: version.contentType,
        last_modified: version.lastModified.toISOString(),
        kept_at: version.keptAt.toISOString()
      }).execute()
    },

    /** The version `id`, whoever's (the caller decides who may reach it). */
    async find (id: string): Promise<Version | undefined> {
      const row = await db.selectFrom('versions').selectAll().where('id', '=', id).executeTakeFirst()
      return row && versionOf(row)
    },

    /** One path's versions, newest first, after `cursor`; `limit + 1` are read to tell whether more follow. */
    async page (userId: string, path: string, limit: number, cursor?: NewestFirstCursor): Promise<Version[]> {
      let query = db.selectFrom('versions').selectAll().where('user_id', '=', userId).where('path', '=', path)
      if (cursor) {
        query = query.where((where) => where.or([
          where('kept_at', '<', cursor.at),
          where.and([where('kept_at', '=', cursor.at), where('id', '<', cursor.id)])
        ]))
      }
      const rows = await query.orderBy('kept_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute()
      return rows.map(versionOf)
    },

    /** Every version of one path, for thinning. */
    async ofPath (userId: string, path: string): Promise<Version[]> {
      return (await db.selectFrom('versions').selectAll().where('user_id', '=', userId).where('path', '=', path).execute()).map(versionOf)
    },

    /** A user's oldest versions first, but `spared`: what goes when a write needs room. */
    async oldest (userId: string, limit: number, spared?: string): Promise<Version[]> {
      let query = db.selectFrom('versions').selectAll().where('user_id', '=', userId)
      if (spared !== undefined) query = query.where('id', '!=', spared)
      const rows = await query.orderBy('kept_at').orderBy('id').limit(limit).execute()
      return rows.map(versionOf)
    },

    /** Paths with more than one version, or one older than `expiredBefore`: what a sweep thins,
     *  a page at a time, in order, after `after`. */
    async pathsToThin (expiredBefore: Date, limit: number, after?: { userId: string, path: string }): Promise<Array<{ userId: string, path: string }>> {
      let query = db.selectFrom('versions').select(['user_id', 'path'])
      if (after) {
        query = query.where((where) => where.or([
          where('user_id', '>', after.userId),
          where.and([where('user_id', '=', after.userId), where('path', '>', after.path)])
        ]))
      }
      const rows = await query.groupBy(['user_id', 'path'])
        .having((having) => having.or([having(having.fn.countAll(), '>', 1), having(having.fn.min('kept_at'), '<', expiredBefore.toISOString())]))
        .orderBy('user_id').orderBy('path').limit(limit).execute()
      return rows.map((row) => ({ userId: row.user_id, path: row.path }))
    },

    /**
     * Claims a version for removal until `until`: true for one caller only, on any instance, while
     * the claim lasts (a claim whose instance died lapses).
     */
    async claim (id: string, now: Date, until: Date): Promise<boolean> {
      const { numUpdatedRows } = await db.updateTable('versions').set({ claimed_until: until.toISOString() })
        .where('id', '=', id)
        .where((where) => where.or([where('claimed_until', 'is', null), where('claimed_until', '<', now.toISOString())]))
        .executeTakeFirst()
      return numUpdatedRows > 0n
    },

    async remove (id: string): Promise<boolean> {
      const { numDeletedRows } = await db.deleteFrom('versions').where('id', '=', id).executeTakeFirst()
      return numDeletedRows > 0n
    }
  }
}

export type VersionRepository = ReturnType<typeof createVersionRepository>
