import { randomBytes } from 'node:crypto'
import type { TrashItem, TrashRepository } from '../db/trash.js'
import { NotFoundError, PreconditionFailedError } from '../errors.js'
import { inGroups } from '../limits.js'
import type { ObjectMeta, ObjectStore, Preconditions } from './object-store.js'
import { decodeCursor, pageOf } from './newest-first.js'
import type { Publisher } from './publisher.js'

// Outside every `users/` prefix: listings and the refreshed credentials never reach a deleted file.
export const TRASH_PREFIX = 'stowage-trash/'
const PAGE_SIZE = 100
// Items purged at once when a trash is emptied or swept.
const PURGED_TOGETHER = 8

export interface TrashOptions {
  store: Pick<ObjectStore, 'head'>
  /** Moves files in and out, and counts them: as trash while there, as files again once restored. */
  publisher: Publisher
  repository: TrashRepository
  /** How long a deleted file is kept; 0: deletes are at once, and nothing goes to the trash. */
  retentionMs: number
}

const described = ({ id, path, size, etag, deletedAt, expiresAt }: TrashItem) => ({
  id, key: path, size, etag, deletedAt: deletedAt.toISOString(), expiresAt: expiresAt.toISOString()
})

/**
 * Deleted files, kept for a while: a delete moves the object under TRASH_PREFIX (a rename on fs, a
 * server-side copy on S3) and records it; a restore moves it back. The row is written before the
 * object moves, so that a file in the trash is never without one; a row whose object never arrived
 * (its instance died in between) answers 404 when restored, and is swept with the rest.
 */
export function createTrash ({ store, publisher, repository, retentionMs }: TrashOptions) {
  const notFound = () => new NotFoundError('no such item in your trash')

  async function purge (item: TrashItem) {
    await publisher.delete(item.objectKey)
    await repository.remove(item.id)
  }

  return {
    keeps: retentionMs > 0,

    /** Moves the file at `key` to the trash; resolves with its item's id, or undefined when there is no such file. */
    async discard (userId: string, path: string, key: string, preconditions?: Preconditions): Promise<string | undefined> {
      const id = randomBytes(16).toString('hex')
      const objectKey = `${TRASH_PREFIX}${userId}/${id}`
      const current = await store.head(key)
      const deletedAt = new Date()
      await repository.add({
        id, userId, path, objectKey, size: current?.size ?? 0, etag: current?.etag ?? '""', deletedAt, expiresAt: new Date(deletedAt.getTime() + retentionMs)
      })
      let moved: ObjectMeta | undefined
      try {
        moved = await publisher.move(key, objectKey, { sourcePreconditions: preconditions })
      } catch (error) {
        await repository.remove(id)
        throw error
      }
      if (!moved) {
        await repository.remove(id)
        return undefined
      }
      if (moved.etag !== current?.etag || moved.size !== current.size) await repository.settle(id, moved)
      return id
    },

    async list (userId: string, continuationToken?: string) {
      const { shown, ...page } = pageOf(await repository.page(userId, PAGE_SIZE, decodeCursor(continuationToken)), PAGE_SIZE, (item) => item.deletedAt)
      return { items: shown.map(described), ...page }
    },

    /** Moves an item back to `key` (its own path's, or another), unless a file stands there (412). */
    async restore (userId: string, id: string, keyOf: (path: string) => string, to?: string) {
      const item = await repository.find(userId, id)
      if (!item) throw notFound()
      const path = to ?? item.path
      const restored = await publisher.move(item.objectKey, keyOf(path), { preconditions: { ifNoneMatch: ['*'] } }).catch((error: unknown) => {
        if (error instanceof PreconditionFailedError) throw new PreconditionFailedError(`a file now stands at ${path}: restore this one elsewhere with "to"`)
        throw error
      })
      await repository.remove(id)
      if (!restored) throw notFound()
      return { path, file: restored }
    },

    async purge (userId: string, id: string) {
      const item = await repository.find(userId, id)
      if (!item) throw notFound()
      await purge(item)
    },

    async empty (userId: string) {
      for (let items = await repository.page(userId, PAGE_SIZE); items.length > 0; items = await repository.page(userId, PAGE_SIZE)) {
        await inGroups(items, PURGED_TOGETHER, purge)
      }
    },

    /** Purges what has expired; resolves with how many items. */
    async sweep (now = new Date()): Promise<number> {
      let purged = 0
      for (let items = await repository.expired(now, PAGE_SIZE); items.length > 0; items = await repository.expired(now, PAGE_SIZE)) {
        await inGroups(items, PURGED_TOGETHER, purge)
        purged += items.length
      }
      return purged
    }
  }
}

export type Trash = ReturnType<typeof createTrash>
