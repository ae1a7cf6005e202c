import type { Kysely } from 'kysely'
import { lookupOf } from './dialect.js'
import type { Database } from './types.js'

export type Metadata = Record<string, string>

/** x-amz-meta-* of the objects written through the S3 endpoint, each for the content it came with. */
export function createS3MetadataRepository (db: Kysely<Database>) {
  // Every GetObject and HeadObject looks its metadata up: compiled once (see lookupOf).
  const findRow = lookupOf<{ etag: string, metadata: string }>(db, db.selectFrom('s3_metadata').select(['etag', 'metadata']).where('user_id', '=', '').where('path', '=', '').compile().sql)
  return {
    /**
     * Keeps `metadata` for the file at `path` as it is now (`etag`). None writes nothing: what was
     * kept for other content no longer applies (its ETag differs), and a write per PutObject would
     * cost every write without metadata a database write.
     */
    /** Keeps `metadata` for the file at `path` as it is now (`etag`); none forgets what was kept. */
    async set (userId: string, path: string, etag: string, metadata: Metadata): Promise<void> {
      if (Object.keys(metadata).length === 0) return await this.clear(userId, path)
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('s3_metadata').where('user_id', '=', userId).where('path', '=', path).execute()
        await trx.insertInto('s3_metadata').values({ user_id: userId, path, etag, metadata: JSON.stringify(metadata) }).execute()
      })
    },

    /** Forgets what was kept for `path` (its content unchanged, its metadata replaced by none). */
    async clear (userId: string, path: string): Promise<void> {
      await db.deleteFrom('s3_metadata').where('user_id', '=', userId).where('path', '=', path).execute()
    },

    /** The metadata of the file at `path`, if it was kept for this content (`etag`). */
    async get (userId: string, path: string, etag: string): Promise<Metadata> {
      const row = await findRow([userId, path])
      return row && row.etag === etag ? JSON.parse(row.metadata) as Metadata : {}
    }
  }
}

export type S3MetadataRepository = ReturnType<typeof createS3MetadataRepository>
