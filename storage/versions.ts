import { randomBytes } from 'node:crypto'
import type { Recording } from '../db/recording.js'
import type { UsageChange } from '../db/usage.js'
import type { Version, VersionRepository } from '../db/versions.js'
import { NotFoundError, PreconditionFailedError } from '../errors.js'
import { inGroups } from '../limits.js'
import { decodeCursor, encodeCursor, pageOf } from './newest-first.js'
import type { ObjectMeta, ObjectStore } from './object-store.js'
import type { PublishedChange } from './publisher.js'
import { thinned } from './version-schedule.js'

// Outside every `users/` prefix: listings and the refreshed credentials never reach a version.
export const VERSIONS_PREFIX = 'stowage-versions/'
const PAGE_SIZE = 100
// A sweep's or a reclaim's hold on a version it removes, so that no other instance removes it too.
const CLAIM_MS = 60_000
// Paths thinned per page of a sweep, and versions removed at once.
const PATHS_PER_PAGE = 100
const REMOVED_TOGETHER = 8

export interface VersionsOptions {
  store: ObjectStore
  repository: VersionRepository
  /** How long a replaced file is kept; 0: nothing is kept. */
  retentionMs: number
  /** The user and path of a key of a user's file; undefined for any other key (and a folder's marker). */
  fileOf: (key: string) => { userId: string, path: string } | undefined
  /** Counts what a removal frees (a version kept is counted by the publish that replaced it). */
  count: (userId: string, change: UsageChange) => Promise<void>
  now?: () => Date
}

const described = ({ id, size, etag, contentType, lastModified }: Version) => ({ id, size, etag, contentType, lastModified: lastModified.toISOString() })

/**
 * Replaced files, kept as versions of their path: when a publish is about to replace a user's file,
 * the store copies it under VERSIONS_PREFIX (S3: CopyObject; fs: a hard link), and once published a
 * row records it. Versions are thinned on a schedule (version-schedule.ts) and removed past the
 * retention, by a sweep that claims each version it removes; when a write needs room, the user's
 * oldest go first.
 */
export function createVersions ({ store, repository, retentionMs, fileOf, count, now = () => new Date() }: VersionsOptions) {
  const notFound = () => new NotFoundError('no such version of your files')

  /** Removes a version once, whoever else tries: true when this call removed it. */
  async function remove (version: Version): Promise<boolean> {
    const at = now()
    if (!await repository.claim(version.id, at, new Date(at.getTime() + CLAIM_MS))) return false
    await store.delete(version.objectKey)
    if (!await repository.remove(version.id)) return false
    await count(version.userId, { versionBytes: -version.size })
    return true
  }

  return {
    notFound,

    /** The publisher's hooks: a user's file about to be replaced is copied aside, and recorded once replaced. */
    hooks: {
      async keep (current: ObjectMeta): Promise<ObjectMeta | undefined> {
        const file = fileOf(current.key)
        if (!file) return undefined
        try {
          const staged = await store.stageCopy(current, `${VERSIONS_PREFIX}${file.userId}/${randomBytes(16).toString('hex')}`)
          return await staged?.publish()
        } catch (error) {
          // Replaced by a writer the lock did not keep out (instances sharing one SQLite file): its
          // write is not refused for that; the version is not kept.
          if (error instanceof PreconditionFailedError) return undefined
          throw error
        }
      },
      async published ({ key, before, kept }: PublishedChange, recording?: Recording) {
        const file = fileOf(key)
        if (!kept || !before || !file) return
        await repository.add({
          id: kept.key.slice(kept.key.lastIndexOf('/') + 1),
          userId: file.userId,
          path: file.path,
          objectKey: kept.key,
          size: kept.size,
          etag: kept.etag,
          contentType: before.contentType,
          lastModified: before.lastModified,
          keptAt: now()
        }, recording?.trx)
      }
    },

    async list (userId: string, path: string, continuationToken?: string) {
      const { shown, ...page } = pageOf(await repository.page(userId, path, PAGE_SIZE, decodeCursor(continuationToken)), PAGE_SIZE, (version) => version.keptAt)
      return { versions: shown.map(described), ...page }
    },

    /** The continuation token of a page that starts after `version` (S3's version-id-marker). */
    tokenAfter: (version: Version) => encodeCursor({ at: version.keptAt.toISOString(), id: version.id }),

    /** The version `id`, whoever's: who may reach it is the caller's to decide (FileService.versions). */
    async find (id: string): Promise<Version> {
      const version = await repository.find(id)
      if (!version) throw notFound()
      return version
    },

    /** The object that holds `version`, as the store has it (to copy it back); 404 when it is gone. */
    async objectOf (version: Version): Promise<ObjectMeta> {
      const object = await store.head(version.objectKey)
      if (!object) throw notFound()
      return { ...object, contentType: version.contentType, lastModified: version.lastModified }
    },

    async remove (version: Version) {
      if (!await remove(version)) throw notFound()
    },

    /** Removes the user's oldest versions but `spared` (one being restored), one by one, until
     *  `bytes` are freed or none is left: true when any was. */
    async free (userId: string, bytes: number, spared?: string): Promise<boolean> {
      let freed = 0
      for (;;) {
        let removing = false
        for (const version of await repository.oldest(userId, REMOVED_TOGETHER, spared)) {
          if (freed >= bytes) break
          if (!await remove(version)) continue
          freed += version.size
          removing = true
        }
        if (!removing || freed >= bytes) return freed > 0
      }
    },

    /** Thins every path's versions on the schedule and removes those past the retention; resolves with how many went. */
    async sweep (): Promise<number> {
      const at = now()
      let removed = 0
      let after: { userId: string, path: string } | undefined
      for (;;) {
        const paths = await repository.pathsToThin(new Date(at.getTime() - retentionMs), PATHS_PER_PAGE, after)
        for (const { userId, path } of paths) {
          const dropped = thinned(await repository.ofPath(userId, path), at, retentionMs)
          await inGroups(dropped, REMOVED_TOGETHER, async (version) => { if (await remove(version)) removed++ })
        }
        if (paths.length < PATHS_PER_PAGE) return removed
        after = paths.at(-1)
      }
    }
  }
}

export type Versions = ReturnType<typeof createVersions>
