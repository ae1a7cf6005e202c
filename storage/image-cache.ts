import { createHash } from 'node:crypto'
import type { ImageCacheRepository } from '../db/image-cache.js'
import type { Recording } from '../db/recording.js'
import type { ObjectRead, ObjectStore } from './object-store.js'
import type { PublishedChange } from './publisher.js'

// Outside every `users/` prefix: not a user's file, not counted in a quota, out of reach of the
// credentials a user is given.
export const IMAGES_PREFIX = 'stowage-images/'

export interface ImageCacheOptions {
  store: ObjectStore
  repository: ImageCacheRepository
  /** Bytes of derived images kept on every instance together; past it, the oldest go. */
  maxBytes: number
  /** What could not be removed (the store down): logged, and removed by a later change or by size. */
  log: { warn (context: unknown, message: string): void }
  now?: () => Date
}

/**
 * Derived images (storage/images.ts), kept in the store under a key made of their source's key, its
 * ETag and the transform: every instance finds one made by any other, and a changed source is a
 * new key. A source changed or gone drops what was made from it (the publisher's hook, once its
 * change has committed); past `maxBytes` the oldest go. Rows in the database say which is which.
 */
export function createImageCache ({ store, repository, maxBytes, log, now = () => new Date() }: ImageCacheOptions) {
  const remove = async (objectKeys: string[]) => {
    for (const key of objectKeys) await store.delete(key)
  }

  /** Drops the images made from `sourceKey`: their objects, then their rows, so that an image whose
   *  removal failed keeps its row (and goes by size). A failure is logged. */
  const forget = async (sourceKey: string) => {
    try {
      const made = await repository.madeFrom(sourceKey)
      await remove(made)
      await repository.forget(made)
    } catch (error) {
      log.warn({ err: error }, 'derived images of a changed file could not be removed')
    }
  }

  /** Removes the oldest images until what is kept fits `maxBytes`. */
  async function trim () {
    let over = await repository.total() - maxBytes
    while (over > 0) {
      const oldest = await repository.oldest()
      if (oldest.length === 0) return
      const going: string[] = []
      for (const image of oldest) {
        if (over <= 0) break
        going.push(image.objectKey)
        over -= image.bytes
      }
      await remove(going)
      await repository.forget(going)
    }
  }

  return {
    /** Where the image `transform` (a canonical string) of the source at `sourceKey`, as `etag`, is kept. */
    keyOf (sourceKey: string, etag: string, transform: string): string {
      return IMAGES_PREFIX + createHash('sha256').update(`${sourceKey}\n${etag}\n${transform}`).digest('hex')
    },

    /** The image kept at `objectKey`, if there is one. */
    read: (objectKey: string): Promise<ObjectRead | undefined> => store.read(objectKey),

    /** Keeps `bytes` at `objectKey`, made from `sourceKey`, then trims the cache to its size. An image
     *  is made of its key alone, so instances making one at once write the same bytes. */
    async keep (objectKey: string, sourceKey: string, bytes: Buffer, contentType: string): Promise<void> {
      const staged = await store.stage(objectKey, [bytes], { contentType, maxBytes: bytes.length })
      await staged.publish()
      await repository.add({ objectKey, sourceKey, bytes: bytes.length }, now())
      await trim()
    },

    /** The publisher's hook: what stood at a key (replaced, deleted or moved away) takes its images with it. */
    hooks: {
      async published ({ key, before, from }: PublishedChange, recording?: Recording): Promise<void> {
        const gone = [...before ? [key] : [], ...from ? [from.key] : []].filter((source) => source.startsWith('users/'))
        if (gone.length === 0) return
        const dropAll = () => { void Promise.all(gone.map(forget)) }
        if (recording) recording.afterCommit(dropAll)
        else dropAll()
      }
    }
  }
}

export type ImageCache = ReturnType<typeof createImageCache>
