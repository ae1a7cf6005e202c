import type { ChangeEntry, ChangeOp, ChangeRepository, MountChange, SharedSource } from '../db/changes.js'
import { seenThrough, type Mount, type MountRepository } from '../db/mounts.js'
import type { Recording } from '../db/recording.js'
import { BadRequestError, CursorResetError } from '../errors.js'
import type { ChangeBell } from './change-bell.js'
import type { ObjectMeta } from './object-store.js'
import type { PublishedChange } from './publisher.js'

// Entries in one answer at most.
export const CHANGES_PAGE = 1000
export const MAX_WAIT_SECONDS = 300

export interface JournalOptions {
  repository: ChangeRepository
  bell: ChangeBell
  /** What is shared with each reader: they follow the owners' changes there too (DESIGN §13). */
  mounts?: MountRepository
  now?: () => Date
}

/** A cursor is the journal's position, as the client keeps it. */
const encodeCursor = (seq: number) => Buffer.from(`c${seq}`).toString('base64url')

function decodeCursor (cursor: string): number {
  const match = /^c(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString())
  if (!match || encodeCursor(Number(match[1])) !== cursor) throw new BadRequestError('cursor is not one this service gave: start from GET /api/changes/latest')
  return Number(match[1])
}

const described = ({ op, key, from, size, etag, contentType, at }: ChangeEntry) =>
  ({ op, key, ...from === undefined ? {} : { from }, ...size === undefined ? {} : { size }, ...etag === undefined ? {} : { etag }, ...contentType === undefined ? {} : { contentType }, at: at.toISOString() })

/**
 * The change journal: an entry for every change of a user's files, written by the publisher before
 * the change is answered, read by clients from a cursor, oldest first, and waited on (long-polling)
 * through the bell, which holds no database connection while it waits.
 */
export function createJournal ({ repository, bell, mounts, now = () => new Date() }: JournalOptions) {
  const queuedListeners = new Set<() => void>()
  /** Resolves true when any of `places` is rung, false when `ms` pass or `signal` aborts first. */
  async function waitForAny (places: Array<{ userId: string, prefix: string }>, ms: number, signal: AbortSignal): Promise<boolean> {
    if (places.length === 1) return await bell.wait(places[0].userId, ms, signal, places[0].prefix)
    const settled = new AbortController()
    try {
      return await Promise.race(places.map(({ userId, prefix }) => bell.wait(userId, ms, AbortSignal.any([signal, settled.signal]), prefix)))
    } finally {
      settled.abort()
    }
  }
  let waiting = 0
  async function counted (wait: Promise<boolean>) {
    waiting++
    try {
      return await wait
    } finally {
      waiting--
    }
  }
  function announceMounts (changes: MountChange[]) {
    // At the mount's name and within it: a wait under a prefix in the mount hears it come and go.
    for (const { userId, key } of changes) bell.ring(userId, [key, `${key}/`])
    // Their webhooks may have deliveries queued.
    if (changes.length > 0) for (const listener of queuedListeners) listener()
  }

  /** What the reader follows of others' journals under `prefix`: their mounts' owners' changes. */
  async function sharedWith (userId: string, prefix: string): Promise<Array<{ mount: Mount, source: SharedSource }>> {
    const received = mounts ? await mounts.list(userId, now()) : []
    return received.flatMap((mount) => {
      const folder = mount.path.endsWith('/')
      const source = (ownerPrefix: string, exact: boolean) => [{ mount, source: { ownerId: mount.ownerId, prefix: ownerPrefix, exact, since: mount.mountedAt } }]
      if (mount.name.startsWith(prefix)) return source(mount.path, !folder)
      if (folder && prefix.startsWith(`${mount.name}/`)) return source(mount.path + prefix.slice(mount.name.length + 1), false)
      return []
    })
  }

  /** The entries of a page as the reader sees them: theirs as they are, their mounts' owners' at the mounts' paths. */
  function asSeenBy (userId: string, prefix: string, entries: ChangeEntry[], shared: Array<{ mount: Mount }>): ChangeEntry[] {
    if (shared.length === 0) return entries
    const under = (entry: ChangeEntry) => entry.key.startsWith(prefix) || (entry.from?.startsWith(prefix) ?? false)
    return entries.flatMap((entry) => entry.userId === userId
      ? [entry]
      : shared.filter(({ mount }) => mount.ownerId === entry.userId).map(({ mount }) => seenThrough(entry, mount)).filter((seen): seen is ChangeEntry => seen !== undefined && under(seen)))
  }

  return {
    /** Journals `change`, as `pathOf` names its keys (a user's path, undefined for any other key). */
    async record ({ key, before, after, from }: PublishedChange, pathOf: (key: string) => { userId: string, path: string } | undefined, recording?: Recording) {
      const at = pathOf(key)
      const source = from && pathOf(from.key)
      let entry: { userId: string, op: ChangeOp, key: string, from?: string, size?: number, etag?: string, contentType?: string } | undefined
      if (at && after) {
        const folder = at.path.endsWith('/')
        entry = folder
          ? { userId: at.userId, op: 'folder', key: at.path }
          : { userId: at.userId, op: source ? 'move' : 'put', key: at.path, from: source?.path, size: after.size, etag: after.etag, contentType: after.contentType }
      } else if (at && before) {
        entry = { userId: at.userId, op: at.path.endsWith('/') ? 'folder-delete' : 'delete', key: at.path }
      } else if (source && after) {
        // Out of the user's files, into the trash: deleted.
        entry = { userId: source.userId, op: 'delete', key: source.path }
      }
      if (!entry) return
      // The index of names changes with the journal: the source of a move is gone, the key is what stands now.
      const nameChange = (key: string, { userId, path }: { userId: string, path: string }, after?: ObjectMeta) => ({ key, userId, root: key.slice(0, key.length - path.length), after })
      const names = [...source ? [nameChange(from!.key, source)] : [], ...at ? [nameChange(key, at, after)] : []]
      const { queued, unshared } = await repository.add({ ...entry, at: now() }, names, recording?.trx)
      const rung = entry.from === undefined ? [entry.key] : [entry.key, entry.from]
      const { userId } = entry
      const announce = () => {
        bell.ring(userId, rung)
        announceMounts(unshared)
        if (queued > 0) for (const listener of queuedListeners) listener()
      }
      if (recording) recording.afterCommit(announce)
      else announce()
    },

    /** Mounts came or went (journaled by the repositories of shares and mounts): their people's waits wake here. */
    announceMounts,

    /** Journals mounts made, renamed or changed (`share`) or hidden (`unshare`), and wakes their people's waits. */
    async recordMounts (changes: MountChange[]) {
      await repository.mounts(changes)
      announceMounts(changes)
    },

    /** Calls `listener` when this instance queued webhook deliveries. */
    onDeliveriesQueued (listener: () => void) { queuedListeners.add(listener) },

    /** The user's position: it moves with their changes only, and their mounts' owners' there. */
    latest: async (userId: string) => ({ cursor: encodeCursor(await repository.latest(userId, (await sharedWith(userId, '')).map(({ source }) => source))) }),

    /**
     * The user's changes after `cursor`, under `prefix`, oldest first, at most CHANGES_PAGE; with
     * `waitSeconds`, held until there is one or the time is up (or `signal` aborts: the client left).
     */
    async list (userId: string, { cursor, prefix = '', waitSeconds = 0, signal }: { cursor: string, prefix?: string, waitSeconds?: number, signal?: AbortSignal }) {
      const after = decodeCursor(cursor)
      if (after < await repository.sweptThrough(userId)) throw new CursorResetError('the cursor is older than the journal keeps (CHANGES_RETENTION_DAYS): list your files again, then follow from GET /api/changes/latest')
      const until = Date.now() + Math.min(waitSeconds, MAX_WAIT_SECONDS) * 1000
      const shared = await sharedWith(userId, prefix)
      const sources = shared.map(({ source }) => source)
      // Woken by the user's changes there, and by their mounts' owners' under what is shared.
      const rungAt = [{ userId, prefix }, ...sources.map((source) => ({ userId: source.ownerId, prefix: source.prefix }))]
      for (;;) {
        // Listening before looking: a change made between the look and the wait still wakes it.
        const left = until - Date.now()
        const looked = new AbortController()
        const woken = left > 0 ? waitForAny(rungAt, left, signal ? AbortSignal.any([signal, looked.signal]) : looked.signal) : undefined
        let entries: ChangeEntry[]
        try {
          entries = await repository.page(userId, after, prefix, CHANGES_PAGE, sources)
        } catch (error) {
          looked.abort()
          throw error
        }
        const found = entries.length > 0
        if (found) looked.abort()
        if (found || !woken || !await counted(woken)) {
          const shown = entries.slice(0, CHANGES_PAGE)
          return { changes: asSeenBy(userId, prefix, shown, shared).map(described), cursor: encodeCursor(shown.at(-1)?.seq ?? after), hasMore: entries.length > CHANGES_PAGE }
        }
      }
    },

    /** Requests waiting for a change now. */
    waiting: () => waiting,

    /** Removes the entries older than `retentionMs`; resolves with how many. */
    sweep: (retentionMs: number) => repository.sweep(new Date(now().getTime() - retentionMs))
  }
}

export type Journal = ReturnType<typeof createJournal>
