import { sql, type Kysely } from 'kysely'
import type { Database } from './types.js'

/** A derived image kept in the store: where, made from which file, and its size. */
export interface CachedImage {
  objectKey: string
  sourceKey: string
  bytes: number
}

// Rows read at once when the cache is past its size.
const PAGE = 100

export function createImageCacheRepository (db: Kysely<Database>) {
  return {
    /** Records an image made and kept (made again after its row went: the row is kept as it is). */
    async add (image: CachedImage, madeAt: Date): Promise<void> {
      await db.insertInto('image_cache')
        .values({ object_key: image.objectKey, source_key: image.sourceKey, bytes: image.bytes, made_at: madeAt.toISOString() })
        .onConflict((conflict) => conflict.column('object_key').doNothing())
        .execute()
    },

    /** The images made from `sourceKey`. */
    async madeFrom (sourceKey: string): Promise<string[]> {
      const rows = await db.selectFrom('image_cache').select('object_key').where('source_key', '=', sourceKey).execute()
      return rows.map((row) => row.object_key)
    },

    /** The bytes the cache holds, on every instance. */
    async total (): Promise<number> {
      const row = await db.selectFrom('image_cache').select(sql<string | number | null>`sum(bytes)`.as('total')).executeTakeFirst()
      return Number(row?.total ?? 0)
    },

    /** The oldest images, a page of them. */
    async oldest (): Promise<CachedImage[]> {
      const rows = await db.selectFrom('image_cache').select(['object_key', 'source_key', 'bytes']).orderBy('made_at').orderBy('object_key').limit(PAGE).execute()
      return rows.map((row) => ({ objectKey: row.object_key, sourceKey: row.source_key, bytes: Number(row.bytes) }))
    },

    /** Forgets the images at `objectKeys`, once their objects are removed. */
    async forget (objectKeys: string[]): Promise<void> {
      if (objectKeys.length === 0) return
      await db.deleteFrom('image_cache').where('object_key', 'in', objectKeys).execute()
    }
  }
}

export type ImageCacheRepository = ReturnType<typeof createImageCacheRepository>
