import type { ChangeEntry, ChangeOp, ChangeRepository } from '../db/changes.js'
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
export function createJournal ({ repository, bell, now = () => new Date() }: JournalOptions) {
  const queuedListeners = new Set<() => void>()
  let waiting = 0
  async function counted (wait: Promise<boolean>) {
    waiting++
    try {
      return await wait
    } finally {
      waiting--
    }
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
      const queued = await repository.add({ ...entry, at: now() }, names, recording?.trx)
      const rung = entry.from === undefined ? [entry.key] : [entry.key, entry.from]
      const { userId } = entry
      const announce = () => {
        bell.ring(userId, rung)
        if (queued > 0) for (const listener of queuedListeners) listener()
      }
      if (recording) recording.afterCommit(announce)
      else announce()
    },

    /** Calls `listener` when this instance queued webhook deliveries. */
    onDeliveriesQueued (listener: () => void) { queuedListeners.add(listener) },

    /** The user's position: it moves with their changes only. */
    latest: async (userId: string) => ({ cursor: encodeCursor(await repository.latest(userId)) }),

    /**
     * The user's changes after `cursor`, under `prefix`, oldest first, at most CHANGES_PAGE; with
     * `waitSeconds`, held until there is one or the time is up (or `signal` aborts: the client left).
     */
    async list (userId: string, { cursor, prefix = '', waitSeconds = 0, signal }: { cursor: string, prefix?: string, waitSeconds?: number, signal?: AbortSignal }) {
      const after = decodeCursor(cursor)
      if (after < await repository.sweptThrough(userId)) throw new CursorResetError('the cursor is older than the journal keeps (CHANGES_RETENTION_DAYS): list your files again, then follow from GET /api/changes/latest')
      const until = Date.now() + Math.min(waitSeconds, MAX_WAIT_SECONDS) * 1000
      for (;;) {
        // Listening before looking: a change made between the look and the wait still wakes it.
        const left = until - Date.now()
        const looked = new AbortController()
        const woken = left > 0 ? bell.wait(userId, left, signal ? AbortSignal.any([signal, looked.signal]) : looked.signal, prefix) : undefined
        let entries: ChangeEntry[]
        try {
          entries = await repository.page(userId, after, prefix, CHANGES_PAGE)
        } catch (error) {
          looked.abort()
          throw error
        }
        const found = entries.length > 0
        if (found) looked.abort()
        if (found || !woken || !await counted(woken)) {
          const shown = entries.slice(0, CHANGES_PAGE)
          return { changes: shown.map(described), cursor: encodeCursor(shown.at(-1)?.seq ?? after), hasMore: entries.length > CHANGES_PAGE }
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
