import { directly, type Exclusive, type KeyLocks, type LockTransaction } from '../db/key-locks.js'
import { recordWithin, unrecorded, type Recorder, type Recording } from '../db/recording.js'
import type { UsageChange } from '../db/usage.js'
import { PreconditionFailedError } from '../errors.js'
import { checkPreconditions, hasPreconditions } from './conditional.js'
import type { Bytes, CopyOptions, Metadata, ObjectMeta, ObjectStore, Preconditions, StagedObject, StagedPosition, StagedState } from './object-store.js'

/** What may happen only once a change's record has committed (long-polls woken, webhooks sent). */
type Effects = Array<() => void>
const runAll = (effects: Effects) => { for (const effect of effects) effect() }

/** Whose usage a key counts in, and as what; undefined for a key no one's usage holds. */
export type AccountOf = (key: string) => { userId: string, counts: 'file' | 'trash' | 'version' } | undefined

/** A change published at a key: `before` is what stood there, `after` what stands now (undefined: nothing). */
export interface PublishedChange {
  key: string
  before?: ObjectMeta
  after?: ObjectMeta
  /** A move's source, gone from there. */
  from?: ObjectMeta
  /** Where `before` was kept (a version), when it was. */
  kept?: ObjectMeta
}

export interface PublishHooks {
  /** Under the key's lock, before a publish replaces `current`: keeps it elsewhere (a version), and
   *  answers where, so that it is counted with the change. Store operations only: no database. */
  keep? (current: ObjectMeta): Promise<ObjectMeta | undefined>
  /** Once a change is published, in the transaction that counts it, before its request is answered (versions' rows, the journal). */
  published? (change: PublishedChange, recording?: Recording): Promise<void>
}

export interface PublisherOptions {
  store: ObjectStore
  locks?: Exclusive | KeyLocks
  accountOf?: AccountOf
  /** Counts a change of usage (after the lock is let go: counts add up in any order). */
  count?: (userId: string, change: UsageChange, trx?: Recording['trx']) => Promise<void>
  hooks?: PublishHooks
  /** One transaction for what the database records of a change: its count and its hooks' rows. */
  record?: Recorder
}

/** How a publish is counted: into a write's reservation, and with what else it ends (an upload's room). */
export interface Settlement {
  reservation?: { settle (change: UsageChange, trx?: Recording['trx']): Promise<void> }
  also?: UsageChange
}

/** What a publish records with the file besides its bytes: the x-amz-meta-* it came with (none: the old file's go). */
export interface Described {
  metadata?: Metadata
}

export interface WriteOptions extends Settlement, Described {
  contentType: string
  /** A body longer than this fails with PayloadTooLargeError, and nothing is published. */
  maxBytes: number
  preconditions?: Preconditions
}

export interface TransferOptions {
  /** The source's: checked against the version copied or moved. */
  sourcePreconditions?: Preconditions
  /** The destination's, checked when the object is published there. */
  preconditions?: Preconditions
}

const counted = (counts: 'file' | 'trash' | 'version', before: ObjectMeta | undefined, after: ObjectMeta | undefined): UsageChange => {
  const bytes = (after?.size ?? 0) - (before?.size ?? 0)
  if (counts === 'file') return { fileBytes: bytes, fileCount: Number(Boolean(after)) - Number(Boolean(before)) }
  return counts === 'trash' ? { trashBytes: bytes } : { versionBytes: bytes }
}

const sum = (a: UsageChange, b: UsageChange = {}): UsageChange => {
  const total: Record<string, number> = { ...a }
  for (const [field, value] of Object.entries(b)) total[field] = (total[field] ?? 0) + (value ?? 0)
  return total
}

/**
 * The one way a file is published, for every route and front end: takes the key's lock, reads the
 * key once, checks the preconditions, publishes what the store staged, keeps what it replaces
 * (hooks), settles usage and journals the change (hooks). Stores only stage, publish, copy, rename
 * and delete; they never lock nor compare. Unconditional writes of one key share a turn of its lock
 * (KeyLocks.shared): the turn reads the key before its first publish and, with several members,
 * after its last, and is counted once, into the reservation of the write that began it.
 */
export function createPublisher ({ store, locks = directly, accountOf = () => undefined, count = async () => {}, hooks = {}, record = unrecorded }: PublisherOptions) {
  const shared = 'shared' in locks ? locks.shared : undefined

  /** Counts the changes at `changes`' keys (and where they kept what they replaced), per user, into
   *  the settlement's reservation or as they are. */
  async function settle (changes: PublishedChange[], { reservation, also }: Settlement = {}, recording?: Recording) {
    const perUser = new Map<string, UsageChange>()
    const atKeys = changes.flatMap(({ key, before, after, kept }) => [{ key, before, after }, ...kept ? [{ key: kept.key, after: kept }] : []])
    for (const { key, before, after } of atKeys) {
      const account = accountOf(key)
      if (account) perUser.set(account.userId, sum(perUser.get(account.userId) ?? {}, counted(account.counts, before, after)))
    }
    const [first] = [...perUser.keys()]
    if (first !== undefined && also) perUser.set(first, sum(perUser.get(first)!, also))
    for (const [userId, change] of perUser) {
      if (reservation && userId === first) await reservation.settle(change, recording?.trx)
      else await count(userId, change, recording?.trx)
    }
  }

  /** `change` counted and recorded (its hooks) under the key's lock, so that records of one key
   *  commit in the order of its publishes: in the lock's transaction when it holds one. */
  const recorded = (trx: LockTransaction, effects: Effects, change: PublishedChange, settlement: Settlement = {}, counted: PublishedChange[] = [change]) =>
    recordWithin(record, trx, effects, async (recording) => {
      await settle(counted, settlement, recording)
      await hooks.published?.(change, recording)
    })

  const keep = async (current: ObjectMeta | undefined) => current && hooks.keep ? await hooks.keep(current) : undefined

  /** Runs `replace` once `current` is kept (hooks.keep); what was kept goes again when `replace` fails or finds nothing. */
  async function keeping<T> (current: ObjectMeta | undefined, replace: () => Promise<T>): Promise<{ kept?: ObjectMeta, result: T }> {
    const kept = await keep(current)
    const result = await replace().catch(async (error) => {
      if (kept) await store.delete(kept.key)
      throw error
    })
    if (result === undefined && kept) await store.delete(kept.key)
    return { kept: result === undefined ? undefined : kept, result }
  }

  /** Publishes `staged` at `key` when the preconditions hold; unless `keepStaged`, what a refusal
   *  or a failure left unpublished is discarded. */
  async function publish (key: string, staged: StagedObject, { preconditions, keepStaged = false, metadata, ...settlement }: Settlement & Described & { preconditions?: Preconditions, keepStaged?: boolean }) {
    let done = false
    const publishStaged = async (expected?: { current: ObjectMeta | undefined }): Promise<ObjectMeta> => {
      const stored = await staged.publish(expected)
      done = true
      return metadata === undefined ? stored : { ...stored, metadata }
    }
    try {
      if (!hasPreconditions(preconditions) && shared) return await publishShared(key, publishStaged, settlement)
      let before: ObjectMeta | undefined
      const effects: Effects = []
      const after = await locks(key, async (trx) => {
        before = await store.head(key)
        checkPreconditions(before, preconditions)
        const { result, kept } = await keeping(before, () => publishStaged(hasPreconditions(preconditions) ? { current: before } : undefined))
        await recorded(trx, effects, { key, before, after: result, kept }, settlement)
        return result
      })
      runAll(effects)
      return { ...after, replaced: before !== undefined }
    } catch (error) {
      if (!keepStaged && !done) await staged.discard()
      throw error
    }
  }

  /**
   * An unconditional publish, in a turn of others of the same key (see KeyLocks.shared). The one
   * that began the turn records it whole, in one transaction: the turn counted once, and each
   * member's change, the one that stands last (so the journal ends, and the index stays, with what
   * the store has), the first carrying what was replaced.
   */
  async function publishShared (key: string, publishStaged: () => Promise<ObjectMeta>, settlement: Settlement) {
    let before: ObjectMeta | undefined
    let after: ObjectMeta | undefined
    let kept: ObjectMeta | undefined
    let began = false
    const effects: Effects = []
    const stored = await shared!(key, publishStaged, {
      opening: async () => {
        began = true
        before = await store.head(key)
        kept = await keep(before)
      },
      // One member: what it published stands; several: the store's order decided which. None: nothing was replaced.
      closing: async (published, tried, trx) => {
        if (published.length === 0 && kept) await store.delete(kept.key)
        if (published.length === 0) kept = undefined
        after = tried === 1 && published.length === 1 ? published[0] : await store.head(key)
        const standing = (member: ObjectMeta) => member.etag === after?.etag && member.lastModified.getTime() === after.lastModified.getTime()
        const members = [...published.filter((member) => !standing(member)), ...published.filter(standing)]
        await recordWithin(record, trx, effects, async (recording) => {
          await settle([{ key, before, after, kept }], settlement, recording)
          for (const [at, member] of members.entries()) await hooks.published?.(at === 0 ? { key, before, after: member, kept } : { key, after: member }, recording)
        })
      },
      closed: async () => { runAll(effects) }
    })
    if (began) return { ...stored, replaced: before !== undefined }
    // A member that joined a turn begun by another: only what else it ends is its own to count, and
    // it replaced what that one published.
    const account = accountOf(key)
    if (settlement.also && account) await record(async (recording) => await count(account.userId, settlement.also!, recording?.trx))
    return { ...stored, replaced: true }
  }

  return {
    /** What stands at `key`, when these preconditions hold of it (412 otherwise): a refusal before a
     *  body is read, or the version a copy will copy. The publish looks again under the lock. */
    async look (key: string, preconditions?: Preconditions) {
      const current = await store.head(key)
      checkPreconditions(current, preconditions)
      return current
    },

    /** Stores `body` at `key` whole or not at all: a body that fails, is cut off or is refused leaves the old object. */
    async write (key: string, body: Bytes, { contentType, maxBytes, ...options }: WriteOptions) {
      const staged = await store.stage(key, body, { contentType, maxBytes })
      return publish(key, staged, options)
    },

    /** Resolves with what it deleted, or undefined when there was nothing at `key`. */
    async delete (key: string, preconditions?: Preconditions) {
      let before: ObjectMeta | undefined
      const effects: Effects = []
      await locks(key, async (trx) => {
        before = await store.head(key)
        checkPreconditions(before, preconditions)
        if (!before) return
        await store.delete(key)
        await recorded(trx, effects, { key, before })
      })
      runAll(effects)
      return before
    },

    /**
     * A copy made by the store of `source` (the version the caller measured: a source changed since
     * is 412, with no file published), published at `to` as a write is.
     */
    async copy (source: ObjectMeta, to: string, { contentType, ...options }: Omit<TransferOptions, 'sourcePreconditions'> & CopyOptions & Settlement & Described = {}) {
      const staged = await store.stageCopy(source, to, { contentType })
      if (!staged) return undefined
      return publish(to, staged, options)
    },

    /** Moves the object at `from` to `to` under both keys' locks: it ends at `to` and `from` is gone,
     *  or, on a failure, it is still at `from` (and perhaps also at `to`). */
    async move (from: string, to: string, { sourcePreconditions, preconditions }: TransferOptions = {}) {
      const effects: Effects = []
      const moved = await locks([from, to], async (trx) => {
        const source = await store.head(from)
        checkPreconditions(source, sourcePreconditions)
        if (!source) return undefined
        const before = await store.head(to)
        checkPreconditions(before, preconditions)
        const { result: after, kept } = await keeping(before, () => renamed(source, to))
        if (!after) return undefined
        const changes = [{ key: from, before: source }, { key: to, before, after, from: source, kept }]
        await recorded(trx, effects, changes[1], {}, changes)
        return after
      })
      runAll(effects)
      return moved
    },

    /** Publishes what the store has staged at `key` already (a multipart upload of its own); a
     *  refusal or a failure leaves it as it was, to publish again or to discard. */
    publishStaged: (key: string, staged: StagedObject, options: Settlement & Described & { preconditions?: Preconditions }) =>
      publish(key, staged, { ...options, keepStaged: true }),

    /** A user's file written in pieces (resumable uploads); undefined when the store cannot. */
    staged: store.staged && {
      begin: store.staged.begin,
      append: (id: string, key: string, state: StagedState, body: Bytes, position: StagedPosition) => store.staged!.append(id, key, state, body, position),
      /** Publishes the upload; a refusal or a failure leaves it as it was, to complete again or to discard. */
      async complete (id: string, key: string, state: StagedState, { contentType, ...options }: { contentType: string, preconditions?: Preconditions } & Settlement & Described) {
        return publish(key, await store.staged!.finish(id, key, state, contentType), { ...options, keepStaged: true })
      },
      discard: store.staged.discard
    }
  }

  /** `source` at `to`: renamed by the store, or copied and deleted (the caller holds both locks). */
  async function renamed (source: ObjectMeta, to: string) {
    if (store.rename) return store.rename(source, to)
    const staged = await store.stageCopy(source, to)
    if (!staged) return undefined
    let after: ObjectMeta
    try {
      after = await staged.publish()
    } catch (error) {
      await staged.discard()
      if (error instanceof PreconditionFailedError) throw new PreconditionFailedError('the file changed while it was moved')
      throw error
    }
    await store.delete(source.key)
    return after
  }
}

export type Publisher = ReturnType<typeof createPublisher>
