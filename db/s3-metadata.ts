import type { Kysely } from 'kysely'
import type { Database } from './types.js'

export type Metadata = Record<string, string>

/** x-amz-meta-* of the objects written through the S3 endpoint, each for the content it came with. */
export function createS3MetadataRepository (db: Kysely<Database>) {
  return {
    /** Keeps `metadata` for the file at `path` as it is now (`etag`); none removes what was kept. */
    async set (userId: string, path: string, etag: string, metadata: Metadata): Promise<void> {
      await db.deleteFrom('s3_metadata').where('user_id', '=', userId).where('path', '=', path).execute()
      if (Object.keys(metadata).length === 0) return
      await db.insertInto('s3_metadata').values({ user_id: userId, path, etag, metadata: JSON.stringify(metadata) }).execute()
    },

    /** The metadata of the file at `path`, if it was kept for this content (`etag`). */
    async get (userId: string, path: string, etag: string): Promise<Metadata> {
      const row = await db.selectFrom('s3_metadata').select(['etag', 'metadata']).where('user_id', '=', userId).where('path', '=', path).executeTakeFirst()
      return row && row.etag === etag ? JSON.parse(row.metadata) as Metadata : {}
    }
  }
}

export type S3MetadataRepository = ReturnType<typeof createS3MetadataRepository>
