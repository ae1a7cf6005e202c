import { randomBytes } from 'node:crypto'
import type { Owner, Usage, UsageChange, UsageRepository } from '../db/usage.js'
import type { NameRepository } from '../db/names.js'
import type { Recording } from '../db/recording.js'
import { InsufficientStorageError } from '../errors.js'
import { listedPages, type ObjectStore } from './object-store.js'

// A reservation outlives its instance by at most this; a living one renews it a few times as often.
const RESERVATION_TTL_MS = 10 * 60_000
// A body of unknown length claims room in steps of at least this, then exactly what it needs.
const GROWTH_STEP = 1024 * 1024

/** What counts against a quota: everything stored, and the room held by writes in flight. */
const inUse = (usage: Usage) => usage.fileBytes + usage.trashBytes + usage.versionBytes + usage.uploadBytes + usage.reservedBytes

/** Room held for one write: grown while its body arrives, then settled into what it stored, or released. */
export interface Reservation {
  grow (bytes: number): Promise<void>
  /** Ends it with what the write changed; once ended, settle and release do nothing. */
  settle (changed: UsageChange, trx?: Recording['trx']): Promise<void>
  release (): Promise<void>
}

/**
 * Quotas: writes reserve their room before their body is read (507 when there is none), and settle
 * into what they really stored once published; deletes, moves and the trash change usage without
 * asking. Decided in the database, so they hold for every instance together.
 */
export function createQuotas (repository: UsageRepository) {
  async function overQuota (owner: Owner, bytes: number) {
    const { usage, quotaBytes } = await repository.read(owner)
    const used = inUse(usage)
    return new InsufficientStorageError(`over your storage quota: ${used} of ${quotaBytes} bytes in use (trash, versions and unfinished uploads included), and this needs ${bytes} more; delete files or empty the trash`)
  }

  /** Room for a write of someone no quota bounds: nothing to hold, only what it stored to count, in
   *  the transaction that records the write. */
  function unbounded (owner: Owner): Reservation {
    let ended = false
    return {
      async grow () {},
      async settle (changed, trx) {
        if (ended) return
        ended = true
        await repository.change(owner.userId, changed, trx)
      },
      async release () { ended = true }
    }
  }

  async function reserve (owner: Owner, bytes: number): Promise<Reservation> {
    // Most stores have no quota: a write's record is then its one transaction that writes. A quota
    // set while such a write runs binds the writes after it.
    if (!repository.alwaysBounded && await repository.quotaForWrite(owner) === null) return unbounded(owner)
    const id = randomBytes(16).toString('hex')
    const expiry = () => new Date(Date.now() + RESERVATION_TTL_MS)
    if (!(await repository.reserve(owner, id, bytes, expiry()))) throw await overQuota(owner, bytes)
    const renewal = setInterval(() => { repository.renew(id, expiry()).catch(() => {}) }, RESERVATION_TTL_MS / 4).unref()
    let ended = false
    const end = async (changed: UsageChange, trx?: Recording['trx']) => {
      if (ended) return
      ended = true
      clearInterval(renewal)
      await repository.settle(owner.userId, id, changed, trx)
    }
    return {
      async grow (more) {
        if (!(await repository.grow(owner, id, more))) throw await overQuota(owner, more)
      },
      settle: end,
      // A release that fails leaves the reservation to expire.
      release: () => end({}).catch(() => {})
    }
  }

  return {
    reserve,

    /** `body`, claiming room as it arrives beyond what `reservation` holds: 507 as soon as it passes the quota. */
    async * metered (body: AsyncIterable<Buffer> | Iterable<Buffer>, reservation: Reservation, held = 0): AsyncGenerator<Buffer> {
      let received = 0
      for await (const chunk of body) {
        received += chunk.length
        if (received > held) {
          const needed = received - held
          let step = Math.max(needed, GROWTH_STEP)
          try {
            await reservation.grow(step)
          } catch (error) {
            // Near the quota, exactly what the bytes need.
            if (!(error instanceof InsufficientStorageError) || step === needed) throw error
            step = needed
            await reservation.grow(step)
          }
          held += step
        }
        yield chunk
      }
    },

    /** A resumable upload's declared length, held until it is published or dropped: 507 when there is no room. */
    async claimUpload (owner: Owner, bytes: number) {
      if (!(await repository.claimUpload(owner, bytes))) throw await overQuota(owner, bytes)
    },

    change: repository.change,

    /** How many bytes `owner` lacks to take `bytes` more (at least 1: asked when a claim failed),
     *  and how many of those in use are versions, which may go to make room. */
    async shortfall (owner: Owner, bytes: number): Promise<{ missing: number, inVersions: number }> {
      const { usage, quotaBytes } = await repository.read(owner)
      return { missing: Math.max(1, inUse(usage) + bytes - (quotaBytes ?? Infinity)), inVersions: usage.versionBytes }
    },

    /** What GET /api/usage answers. */
    async usage (owner: Owner) {
      const { usage, quotaBytes } = await repository.read(owner)
      return {
        usedBytes: usage.fileBytes + usage.trashBytes + usage.versionBytes + usage.uploadBytes,
        quotaBytes,
        fileBytes: usage.fileBytes,
        trashBytes: usage.trashBytes,
        versionBytes: usage.versionBytes,
        uploadBytes: usage.uploadBytes,
        fileCount: usage.fileCount
      }
    },

    /** Whether a quota applies to `owner`: then no write may bypass Stowage (refreshed credentials, presigned uploads). */
    async applies (owner: Owner): Promise<boolean> {
      return (await repository.quota(owner)) !== null
    },

    /** Gives back the reservations of writes whose instance died. */
    expire: () => repository.expire()
  }
}

export type Quotas = ReturnType<typeof createQuotas>

/** The bytes and the number of the files below `root`, as the store lists them. */
async function storedFiles (store: ObjectStore, root: string) {
  let fileBytes = 0
  let fileCount = 0
  for await (const page of listedPages(store, root)) {
    // A folder's marker (`a/b/`) is no file.
    for (const object of page.objects.filter((object) => !object.key.endsWith('/'))) {
      fileBytes += object.size
      fileCount++
    }
  }
  return { fileBytes, fileCount }
}

/**
 * Rebuilds every user's usage from the index of names (their files under `users/{id}/<root>/`; the
 * store's listing for a user whose names are still being built) and from the database (the trash's
 * items, the versions, unfinished uploads): what `stowage admin usage --recount` runs. A write
 * published while a user is counted may be missed or counted twice; recount when it is quiet.
 */
export async function recountUsage (store: ObjectStore, root: string, repository: UsageRepository, names: NameRepository): Promise<Array<{ userId: string } & Omit<Usage, 'reservedBytes'>>> {
  const users = new Set([...await repository.users(), ...await names.users()])
  // Users the index does not know yet (their names are still being built) are found in the store.
  if (!await names.allBuilt()) {
    for await (const page of listedPages(store, 'users/', { delimiter: '/' })) {
      for (const folder of page.folders ?? []) users.add(folder.slice('users/'.length, -1))
    }
  }
  const counted = []
  for (const userId of [...users].sort()) {
    const files = await names.built(userId) ? await names.totals(userId) : await storedFiles(store, `users/${userId}/${root}/`)
    const usage = { ...files, ...await repository.recordedElsewhere(userId) }
    await repository.replace(userId, usage)
    counted.push({ userId, ...usage })
  }
  return counted
}
