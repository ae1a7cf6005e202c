import type { FastifyBaseLogger } from 'fastify'
import type { IndexedName, ListSort, NameChange, NameRepository, SortedAfter } from '../db/names.js'
import { BusyError } from '../errors.js'
import { compareKeys, listedPages, type ListOptions, type ListPage, type ObjectMeta, type ObjectStore } from './object-store.js'

// How long an instance holds a user's build between batches: a build whose instance stopped is
// taken up by another (or by itself, restarted) once this has passed.
const CLAIM_MS = 60_000
const BUILD_BATCH = 1000

/** What a listing and a HEAD read: the index's rows, or the store's. */
export interface NameReads {
  list (prefix: string, options: ListOptions): Promise<ListPage & { objects: Array<ObjectMeta | IndexedName> }>
  head (key: string): Promise<ObjectMeta | undefined>
}

export interface Differences { added: number, removed: number, changed: number }

export interface NameIndexOptions {
  repository: NameRepository
  store: ObjectStore
  /** A user's root in the store, `users/{userId}/<root>/`. */
  rootOf: (userId: string) => string
  log?: FastifyBaseLogger
  claimMs?: number
  batch?: number
}

/**
 * The index of names (db/names.ts) as the file service reads it: a user's listings and HEADs come
 * from it once their names are indexed, from the store before that. It is built from the store on
 * a deployment's first start with it, a user at a time, by one instance per user (claims in the
 * database), and resumed where it stopped; `reindex` compares it with the store and mends it.
 */
export function createNameIndex ({ repository, store, rootOf, log, claimMs = CLAIM_MS, batch = BUILD_BATCH }: NameIndexOptions) {
  let everyoneBuilt = false
  // Users seen built by this instance: a build, once done, stays done.
  const builtUsers = new Set<string>()

  async function built (userId: string) {
    if (everyoneBuilt || builtUsers.has(userId)) return true
    if (!await repository.built(userId)) return false
    builtUsers.add(userId)
    return true
  }

  const indexed: NameReads = {
    list: (prefix, options) => repository.list(prefix, options),
    async head (key) {
      const found = await repository.head(key)
      if (!found || found.contentType !== undefined) return found && { ...found, contentType: found.contentType! }
      // Built from a listing, which gives no content type: the store's, learnt once.
      const stored = await store.head(key)
      if (stored?.etag !== found.etag) return stored
      await repository.learnContentType(key, stored.etag, stored.contentType)
      return { ...stored, metadata: found.metadata }
    }
  }

  /** Every user with a folder in the store. */
  async function usersInStore () {
    const users: string[] = []
    for await (const page of listedPages(store, 'users/', { delimiter: '/' })) {
      users.push(...(page.folders ?? []).map((folder) => folder.slice('users/'.length, -1)))
    }
    return users
  }

  async function buildUser (userId: string, after: string | undefined, signal?: AbortSignal) {
    const root = rootOf(userId)
    for await (const page of listedPages(store, root, { startAfter: after, limit: batch })) {
      const last = page.objects.at(-1)?.key
      const done = !page.isTruncated || last === undefined
      await repository.addListed(userId, root, page.objects as IndexedName[], { after: last ?? after ?? '', claimedUntil: new Date(Date.now() + claimMs) })
      if (done) {
        // What the S3 endpoint kept before the index held it, before the user's reads turn to the index.
        await repository.adoptMetadata(userId, root)
        await repository.addListed(userId, root, [], 'done')
        builtUsers.add(userId)
      }
      if (signal?.aborted) return
    }
  }

  /** What only the index answers (sorted levels, search): 503 while the user's names are being built. */
  async function needBuilt (userId: string) {
    if (!await built(userId)) throw new BusyError('your files are still being indexed (a first start after an upgrade): try again in a minute')
  }

  return {
    /** One level of `parent` sorted by `sort` (folders first): see NameRepository.listSorted. */
    async listSorted (userId: string, parent: string, sort: ListSort, descending: boolean, limit: number, after?: SortedAfter) {
      await needBuilt(userId)
      return await repository.listSorted(parent, sort, descending, limit, after)
    },

    /** Files below `root` whose path after it holds `text`, in any case: by name or newest first. */
    async search (userId: string, root: string, text: string, limit: number, options: Parameters<NameRepository['search']>[3]) {
      await needBuilt(userId)
      return await repository.search(root, text, limit, options)
    },

    /** The reads for `userId`'s keys: the index's once their names are built. */
    readsFor: async (userId: string): Promise<NameReads> => await built(userId) ? indexed : store,

    /** Whether `userId`'s names are all indexed (search and sorted listings need it). */
    built,

    /**
     * Builds what is not built yet, a user at a time, until none is left or `signal` stops it:
     * what was indexed stays, and the next build goes on after it. Resolves with whether every
     * user's names are built (another instance may still be building some).
     */
    async build (signal?: AbortSignal): Promise<boolean> {
      if (everyoneBuilt) return true
      if (!await repository.planned()) await repository.plan(await usersInStore())
      for (;;) {
        if (signal?.aborted) return false
        const claimed = await repository.claim(new Date(), new Date(Date.now() + claimMs))
        if (!claimed) break
        const started = Date.now()
        await buildUser(claimed.userId, claimed.after, signal)
        if (builtUsers.has(claimed.userId)) log?.info({ userId: claimed.userId, ms: Date.now() - started }, 'indexed a user\'s names')
      }
      everyoneBuilt = await repository.allBuilt()
      return everyoneBuilt
    },

    /** Which of the folders `keys` exist (see NameRepository.folders); the user's names must be built. */
    folders: repository.folders,

    /** The x-amz-meta-* of the file at `key` as it is now (`etag`). */
    setMetadata: repository.setMetadata,

    /** A name the index has and the store has not (a read found it gone): taken out of the index, and said. */
    async repair (userId: string, key: string) {
      if (!await repository.head(key) || await store.head(key)) return
      await repository.apply([{ key, userId, root: rootOf(userId) }])
      log?.warn({ userId, key }, 'the index named a file the store does not have: taken out of the index')
    },

    /** Compares the user's names with the store's and mends the index where they differ. */
    async reindex (userId: string): Promise<Differences> {
      const root = rootOf(userId)
      const differences: Differences = { added: 0, removed: 0, changed: 0 }
      const stored = objectsOf(store, root, batch)
      const known = objectsOf(repository, root, batch)
      let [inStore, inIndex] = await Promise.all([stored.next(), known.next()])
      let changes: NameChange[] = []
      const mend = async (change: NameChange, kind: keyof Differences) => {
        differences[kind]++
        changes.push(change)
        if (changes.length >= batch) await flush()
      }
      const flush = async () => {
        if (changes.length > 0) await repository.apply(changes)
        changes = []
      }
      while (!inStore.done || !inIndex.done) {
        const order = inStore.done ? 1 : inIndex.done ? -1 : compareKeys(inStore.value.key, inIndex.value.key)
        if (order < 0) await mend({ key: inStore.value!.key, userId, root, after: asName(inStore.value!) }, 'added')
        else if (order > 0) await mend({ key: inIndex.value!.key, userId, root }, 'removed')
        else if (inStore.value!.etag !== inIndex.value!.etag || inStore.value!.size !== inIndex.value!.size) await mend({ key: inStore.value!.key, userId, root, after: asName(inStore.value!) }, 'changed')
        ;[inStore, inIndex] = await Promise.all([order <= 0 ? stored.next() : inStore, order >= 0 ? known.next() : inIndex])
      }
      await flush()
      builtUsers.add(userId)
      return differences
    },

    /** Every user whose files are in the store. */
    usersInStore
  }
}

/** A store's listed object as the index keeps it (a listing gives no content type). */
const asName = (object: { key: string, size: number, etag: string, lastModified: Date, contentType?: string }): NameChange['after'] =>
  ({ size: object.size, etag: object.etag, lastModified: object.lastModified, contentType: object.contentType })

/** The objects of a flat listing, one page read at a time. */
async function * objectsOf (lister: Pick<ObjectStore, 'list'>, prefix: string, limit: number) {
  for await (const page of listedPages(lister, prefix, { limit })) yield * page.objects
}

export type NameIndex = ReturnType<typeof createNameIndex>
