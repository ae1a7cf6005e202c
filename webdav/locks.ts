import { randomUUID } from 'node:crypto'
import { BadRequestError } from '../errors.js'
import type { DavLock, DavLockRepository } from '../db/webdav.js'
import type { FileService } from '../storage/files.js'
import { DavError, locked } from './errors.js'
import { hrefOfKey } from './paths.js'

/** The longest a lock is given for (a client asking more, or Infinite, gets this). */
export const MAX_LOCK_SECONDS = 3600

/** A resource as locks see it: its path, and whether it is a folder ("" is the root). */
export interface Resource {
  path: string
  folder: boolean
}

/** How a resource is keyed among locks and properties: a folder's path ends in "/" (the root's is ""). */
export const keyOf = ({ path, folder }: Resource) => folder && path !== '' ? `${path}/` : path

/** The folders above a resource, the root first, as keys. */
function ancestorsOf (path: string): string[] {
  const segments = path === '' ? [] : path.split('/').slice(0, -1)
  return ['', ...segments.map((_, at) => `${segments.slice(0, at + 1).join('/')}/`)]
}

const parentKeyOf = (path: string) => ancestorsOf(path).at(-1)!

/** Timeout: `Second-N` or `Infinite`, the first that parses; at most MAX_LOCK_SECONDS. */
export function timeoutOf (header: string | undefined): number {
  for (const option of (header ?? '').split(',').map((text) => text.trim())) {
    const seconds = /^Second-(\d+)$/i.exec(option)?.[1]
    if (seconds !== undefined) return Math.max(1, Math.min(Number(seconds), MAX_LOCK_SECONDS))
    if (/^Infinite$/i.test(option)) return MAX_LOCK_SECONDS
  }
  return MAX_LOCK_SECONDS
}

/** What a write does to a resource: changes it, or also adds it to or removes it from its folder (its parent's locks then bear too). */
export interface Write extends Resource {
  membership: boolean
}

/**
 * Where WebDAV keeps a caller's resource's locks and dead properties: among their own files, or,
 * through a mount, among its owner's (DESIGN §13: while it lasts, an editor's lock binds the owner
 * too, and the owner's binds every grantee; what an editor sets, the owner sees).
 */
export interface LockSpace {
  userId: string
  /** The resource among that space's files. */
  resource: Resource
  /** The share it is reached through. */
  shareId?: string
  /** Whether it is a mount itself, which a grantee renames or leaves without touching the owner's files. */
  mountItself: boolean
  /** A lock's path in the space, as the caller names it (a lock above the mount: the mount). */
  shown: (path: string) => string
  /** A key of the caller's at or under the same mount (a folder's listing), as the space keys it. */
  inSpace: (key: string) => string
}

export type LockSpaceOf = (userId: string, resource: Resource) => Promise<LockSpace>

const ownSpace = (userId: string, resource: Resource): LockSpace => ({ userId, resource, mountItself: false, shown: (path) => path, inSpace: (key) => key })

/** The lock space of a caller's resource, by the resolver that decides where every path leads. */
export function lockSpaces (place: FileService['place']): LockSpaceOf {
  return async (userId, resource) => {
    if (resource.path === '') return ownSpace(userId, resource)
    const { mount, owner, path } = await place({ userId, orgId: null }, resource.path, 'read')
    if (!mount) return ownSpace(userId, resource)
    const folderMount = mount.path.endsWith('/')
    return {
      userId: owner.userId,
      resource: { path, folder: resource.folder },
      shareId: mount.shareId,
      mountItself: !resource.path.includes('/'),
      shown: (held) => folderMount && held.startsWith(mount.path) ? `${mount.name}/${held.slice(mount.path.length)}` : folderMount ? `${mount.name}/` : mount.name,
      inSpace: (key) => folderMount && key.startsWith(`${mount.name}/`) ? mount.path + key.slice(mount.name.length + 1) : key === mount.name ? mount.path : key
    }
  }
}

/**
 * WebDAV's write locks, kept in the database: every instance sees the same ones and a lock ends at
 * its time on all of them. A lock bears on its resource and, with depth infinity, on everything
 * under it; a lock on a folder also bears on adding or removing its members.
 */
export function createDavLocks (repository: DavLockRepository, spaceOf: LockSpaceOf = async (userId, resource) => ownSpace(userId, resource), now = () => new Date()) {
  /** The locks held that bear on `write` (a folder: and on everything under it), their paths as the caller names them. */
  const bearingOn = async (userId: string, write: Write) => await bearingIn(await spaceOf(userId, write), write.membership)

  /** The same, for a resource whose space the caller has already found (`membership`: as Write's). */
  async function bearingIn (space: LockSpace, membership: boolean): Promise<DavLock[]> {
    // A mount renamed or left: no lock of the owner's bears on that.
    if (space.mountItself && membership) return []
    const { resource } = space
    const key = keyOf(resource)
    const ancestors = resource.path === '' ? [] : ancestorsOf(resource.path)
    const under = resource.folder ? key : undefined
    const held = await repository.held(space.userId, { at: [key, ...ancestors], under })
    const parent = resource.path === '' ? undefined : parentKeyOf(resource.path)
    return held.filter((lock) => lock.path === key || (under !== undefined && lock.path.startsWith(under)) ||
      (ancestors.includes(lock.path) && (lock.depth === 'infinity' || (membership && lock.path === parent))))
      .map((lock) => ({ ...lock, path: space.shown(lock.path) }))
  }

  /** The lock `token` bearing on `resource`, when the caller took it: a lock taken through a share
   *  is seen by the owner and the other grantees, and its token (in lockdiscovery) is no key for them. */
  async function ownLock (userId: string, resource: Resource, token: string, missing: () => DavError) {
    const lock = (await bearingOn(userId, { ...resource, membership: false })).find((held) => held.token === token)
    if (!lock) throw missing()
    if (lock.takenBy !== userId) throw new DavError(403, 'that lock is someone else\'s: only who took it can refresh or remove it')
    return lock
  }

  /** Whether the caller may write under `lock`: they submitted its token, and it is theirs. */
  const holds = (userId: string, lock: DavLock, submitted: Set<string>) => submitted.has(lock.token) && lock.takenBy === userId

  return {
    bearingOn,
    bearingIn,
    holds,

    /** 423 unless every lock bearing on each of `writes` is the caller's, its token among `submitted`. */
    async checkUnlocked (userId: string, writes: Write[], submitted: Set<string>) {
      for (const write of writes) {
        const missing = (await bearingOn(userId, write)).filter((lock) => !holds(userId, lock, submitted))
        if (missing.length > 0) throw locked([...new Set(missing.map((lock) => hrefOfKey(lock.path)))])
      }
    },

    /** A new lock on `resource`, unless one held conflicts (423): an exclusive one, or any when this one is exclusive. */
    async lock (userId: string, asked: Resource, { depth, scope, owner, timeoutSeconds }: Pick<DavLock, 'depth' | 'scope' | 'owner' | 'timeoutSeconds'>): Promise<DavLock> {
      const space = await spaceOf(userId, asked)
      const { resource } = space
      const key = keyOf(resource)
      const lock: DavLock = {
        token: `urn:uuid:${randomUUID()}`, userId: space.userId, path: key, takenBy: userId, ...(space.shareId === undefined ? {} : { shareId: space.shareId }),
        depth, scope, owner, timeoutSeconds, expiresAt: new Date(now().getTime() + timeoutSeconds * 1000)
      }
      const ancestors = resource.path === '' ? [] : ancestorsOf(resource.path)
      const under = resource.folder && depth === 'infinity' ? key : undefined
      const taken = await repository.acquire(lock, { at: [key, ...ancestors], under }, (held) => held.some((other) =>
        (other.path === key || (ancestors.includes(other.path) && other.depth === 'infinity') || (under !== undefined && other.path.startsWith(under))) &&
        (other.scope === 'exclusive' || scope === 'exclusive')))
      if (!taken) throw new DavError(423, 'the resource is locked already', 'no-conflicting-lock')
      return { ...lock, path: space.shown(key) }
    },

    /** The lock `token` given again its time: it must bear on `resource` (a member of a locked folder refreshes the folder's lock). */
    async refresh (userId: string, resource: Resource, token: string, timeoutSeconds: number): Promise<DavLock> {
      const lock = await ownLock(userId, resource, token, () => new DavError(412, 'no lock with that token bears on this resource', 'lock-token-matches-request-uri'))
      const expiresAt = new Date(now().getTime() + timeoutSeconds * 1000)
      await repository.refresh(lock.userId, token, timeoutSeconds, expiresAt)
      return { ...lock, timeoutSeconds, expiresAt }
    },

    /** Removes the lock `token`, which must bear on `resource` (409 otherwise). */
    async unlock (userId: string, resource: Resource, token: string) {
      const lock = await ownLock(userId, resource, token, () => new DavError(409, 'no lock with that token bears on this resource', 'lock-token-matches-request-uri'))
      await repository.release(lock.userId, token)
    },

    /** A resource gone (deleted, moved away): its locks with it. A mount left or renamed is no
     *  change to its owner's files, whose locks stay. */
    async releaseAt (userId: string, resource: Resource) {
      const space = await spaceOf(userId, resource)
      if (!space.mountItself) await repository.releaseAt(space.userId, keyOf(space.resource))
    },

    sweep: () => repository.sweep()
  }
}

/** The Lock-Token header's token (`<urn:uuid:…>`); 400 when absent or malformed. */
export function lockTokenOf (header: string | undefined): string {
  const token = /^\s*<([^>]+)>\s*$/.exec(header ?? '')?.[1]
  if (token === undefined) throw new BadRequestError('UNLOCK needs a Lock-Token header: <token>')
  return token
}

export type DavLocks = ReturnType<typeof createDavLocks>
