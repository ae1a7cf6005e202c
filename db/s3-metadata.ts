import type { Kysely } from 'kysely'
import { lookupOf } from './dialect.js'
import type { Database } from './types.js'

/**
 * x-amz-meta-* as releases before the index of names kept them (by user, path and content). The
 * index holds them now (names.metadata, written with the file); this is read only for a user whose
 * names are still being built after an upgrade, and the build copies it into the index.
 */
export function createS3MetadataRepository (db: Kysely<Database>) {
  const findRow = lookupOf<{ etag: string, metadata: string }>(db, db.selectFrom('s3_metadata').select(['etag', 'metadata']).where('user_id', '=', '').where('path', '=', '').compile().sql)
  return {
    /** The metadata kept for the file at `path`, if it was kept for this content (`etag`). */
    async get (userId: string, path: string, etag: string): Promise<Record<string, string>> {
      const row = await findRow([userId, path])
      return row && row.etag === etag ? JSON.parse(row.metadata) as Record<string, string> : {}
    }
  }
}

export type S3MetadataRepository = ReturnType<typeof createS3MetadataRepository>
