import { AsyncLocalStorage } from 'node:async_hooks'
import { BadRequestError, ConflictError, FolderInTheWayError, ForbiddenError, InsufficientStorageError, NotFoundError, PreconditionFailedError } from '../errors.js'
import { directly, type Exclusive, type KeyLocks } from '../db/key-locks.js'
import type { TrashRepository } from '../db/trash.js'
import type { Version, VersionRepository } from '../db/versions.js'
import type { Recorder } from '../db/recording.js'
import type { Owner } from '../db/usage.js'
import { hasPreconditions, isNotModified, rangeStillApplies, type ReadConditions } from './conditional.js'
import { pageEnd, type Bytes, type Metadata, type ObjectInfo, type ObjectMeta, type ObjectRead, type ObjectStore, type Preconditions, type PresignRequest, type RangeRequest, type StagedPosition, type StagedState } from './object-store.js'
import {
  checkFilePath, checkFolderPath, checkPrefix, decodeContinuationToken, encodeContinuationToken, isSafeSegment
} from './paths.js'
import { createPublisher, type AccountOf, type Described, type PublishHooks } from './publisher.js'
import type { Quotas, Reservation } from './quotas.js'
import { createTrash, TRASH_PREFIX } from './trash.js'
import { createVersions, VERSIONS_PREFIX } from './versions.js'
import type { Journal } from './changes.js'
import type { NameIndex } from './names.js'
import { foldCase, upperBound, type ListSort, type SortedAfter } from '../db/names.js'
import { shownThrough, type ListedMount, type Mount, type MountRepository } from '../db/mounts.js'

export const PAGE_SIZE = 100
export const DEFAULT_CONTENT_TYPE = 'application/octet-stream'
// A folder's marker: an object of no bytes at the folder's key (`a/b/`), as S3's console makes them.
const FOLDER_TYPE = 'application/x-directory'
const isMarker = (key: string) => key.endsWith('/')

export interface FileServiceOptions {
  store: ObjectStore
  /** The `<root>` of `users/{userId}/<root>/{path}`. */
  root: string
  bucket: string
  region: string
  /** The largest file of the JSON form (base64 in JSON). */
  maxFileBytes: number
  /** The largest streamed upload. */
  maxUploadBytes: number
  /** Keeps concurrent publishers of one key apart while each compares and publishes; with `shared`,
   *  unconditional writes publish beside each other. */
  locks?: Exclusive | KeyLocks
  /** Where deleted files wait, and for how long; without it a delete is at once. */
  trash?: { repository: TrashRepository, retentionMs: number }
  /** Where replaced files are kept, and for how long; without it (or with 0) nothing is kept. */
  versions?: { repository: VersionRepository, retentionMs: number, now?: () => Date }
  /** Where every change is journaled, before it is answered. */
  journal?: Pick<Journal, 'record' | 'recordMounts' | 'announceMounts'>
  /** The index of names the journal keeps with it: listings and HEADs read it; without it, the store. */
  names?: NameIndex
  /** One transaction for what the database records of each change (usage, version, journal, index). */
  record?: Recorder
  /** What is made from users' files and must go when they change (the image cache). */
  derived?: Pick<PublishHooks, 'published'>
  /** Usage and quotas: writes and copies reserve their room, every change is counted. */
  quotas: Quotas
  /** What was shared with each person, mounted at the top of their tree (DESIGN §13): a path
   *  under a mount is the owner's file, reached with the mount's role. Without it, no mounts. */
  mounts?: Pick<MountRepository, 'find' | 'list' | 'listed' | 'listedPage' | 'rename' | 'leave'>
}

/** Where a caller's path leads: the key, whose files it is among, and the mount it passes, if any. */
export interface Place {
  key: string
  /** The owner of the file: the caller, or the mount's owner. */
  owner: Owner
  /** The path among the owner's files. */
  path: string
  mount?: Mount
}

/** Where a search looks: the caller's own files, or a mount's, the owner's shown under the mount's name. */
interface SearchSource { ownerId: string, base: string, shown: string, shared?: SharedMark, fileMount?: ListedMount }

/** What a file listed under a mount carries: the share it is reached by. */
export interface SharedMark { id: string, role: Mount['role'], owner: string }

/** A copy's or move's preconditions: If-Match of the source, If-None-Match of the destination. */
export interface TransferConditions {
  source?: Preconditions
  destination?: Preconditions
}

/** A copy's conditions, and the content type it takes instead of the source's (S3's REPLACE). */
export interface CopyRequest extends TransferConditions, Described {
  contentType?: string
}

export interface ReadRequest extends ReadConditions {
  range?: RangeRequest
  /** Also the x-amz-meta-* the index holds of the file (`file.metadata`, when it has them). */
  withMetadata?: boolean
}

export interface WriteRequest extends Described {
  contentType?: string
  /** Defaults to maxUploadBytes. */
  maxBytes?: number
  preconditions?: Preconditions
  /** The body's length, when it is declared: its room is reserved at once, else as it arrives. */
  length?: number
}

export interface FilePage {
  files: Array<{ key: string, size: number, lastModified: string, etag: string }>
  /** With a delimiter: the next level's folders. Without: the folders made on purpose in this page
   *  (empty ones included), when there are any. */
  folders?: string[]
  isTruncated: boolean
  continuationToken?: string
}

export interface ListQuery {
  prefix?: string
  continuationToken?: string
  delimiter?: '/'
  sort?: ListSort
  order?: 'asc' | 'desc'
  /** Folders before files in the name order too (any other order has them first). */
  foldersFirst?: boolean
  /** Entries a page, PAGE_SIZE unless a front end that answers more at once asks (up to S3's 1,000). */
  pageSize?: number
}

// The most entries a page of the file service holds: S3's max-keys.
const MAX_PAGE_SIZE = 1000

// A sorted listing's token: `~` (never in a name-ordered token) and its order and where it ended, so
// that a page of another order is refused rather than misread.
const encodeSortedToken = (sort: ListSort, order: string, after: SortedAfter) => `~${Buffer.from(JSON.stringify({ sort, order, after })).toString('base64url')}`

function decodeSortedToken (token: string, sort: ListSort, order: string): SortedAfter {
  let decoded: { sort?: unknown, order?: unknown, after?: { folder?: unknown, value?: unknown, key?: unknown } } | undefined
  try {
    decoded = token.startsWith('~') ? JSON.parse(Buffer.from(token.slice(1), 'base64url').toString()) : undefined
  } catch {}
  const after = decoded?.after
  if (decoded?.sort !== sort || decoded.order !== order) throw new BadRequestError('continuationToken is not one this service issued for this sort and order')
  if (typeof after?.folder === 'string') return { folder: after.folder }
  if (typeof after?.value === 'string' && typeof after.key === 'string') return { value: after.value, key: after.key }
  throw new BadRequestError('continuationToken is not one this service issued for this sort and order')
}

export type FileRead = { notModified: true, file: ObjectMeta } | { notModified: false, file: ObjectRead }

const lookedUp = new AsyncLocalStorage<Map<string, Promise<Mount | undefined>>>()

/**
 * Runs `work` with each of a caller's mounts looked up once: for a request that asks where one path
 * leads several times (a WebDAV PUT: for its locks, its folder, its write), its rights as they were
 * when it began. Not for a request that changes a mount (leaving or renaming one).
 */
export const withMountsLookedUpOnce = <T>(work: () => Promise<T>): Promise<T> => lookedUp.run(new Map(), work)

function mountNamed (mounts: Pick<MountRepository, 'find'>, userId: string, name: string): Promise<Mount | undefined> {
  const memo = lookedUp.getStore()
  if (!memo) return mounts.find(userId, name)
  const key = JSON.stringify([userId, name])
  let found = memo.get(key)
  if (!found) {
    found = mounts.find(userId, name)
    memo.set(key, found)
  }
  return found
}

/** A listed object as a page of files shows it: its path under the user's root (`base`), or under
 *  a mount (`shown`, the mount's name and `/`, in place of the owner's `base`). */
const listedUnder = (base: string, shown = '', shared?: SharedMark) => (object: ObjectInfo) => ({
  key: shown + object.key.slice(base.length), size: object.size, lastModified: object.lastModified.toISOString(), etag: object.etag, ...(shared ? { shared } : {})
})

const sharedMark = (mount: Pick<Mount, 'shareId' | 'role' | 'ownerId'>): SharedMark => ({ id: mount.shareId, role: mount.role, owner: mount.ownerId })

const described = (path: string, meta: ObjectMeta) => ({
  key: path, size: meta.size, contentType: meta.contentType, lastModified: meta.lastModified.toISOString(), etag: meta.etag
})

// A conditional write of a body up to this size is read before its preconditions are checked: its
// key is looked at once, under the lock. A larger one is refused before it is read.
const READ_BEFORE_LOOKING_BYTES = 1024 * 1024
// A copy whose source changes while it is copied is made again, this many times at most.
const COPY_ATTEMPTS = 3

export function createFileService ({ store, root, bucket, region, maxFileBytes, maxUploadBytes, locks = directly, trash: keptTrash, versions: keptVersions, journal, names, quotas, record, derived, mounts }: FileServiceOptions) {
  /** The user and path of a key under a user's root: a file's, or a folder's marker (ending in `/`). */
  const pathOf = (key: string) => {
    const [area, userId, folder] = key.split('/', 3)
    return area === 'users' && folder === root ? { userId, path: key.slice(`users/${userId}/${root}/`.length) } : undefined
  }
  const fileOf = (key: string) => isMarker(key) ? undefined : pathOf(key)
  /** A user's files count as theirs, and so do their trash and their versions. */
  const accountOf: AccountOf = (key) => {
    const file = fileOf(key)
    if (file) return { userId: file.userId, counts: 'file' }
    const [area, userId] = key.split('/', 2)
    if (`${area}/` === TRASH_PREFIX) return { userId, counts: 'trash' }
    if (`${area}/` === VERSIONS_PREFIX) return { userId, counts: 'version' }
    return undefined
  }
  const versions = keptVersions && keptVersions.retentionMs > 0 ? createVersions({ store, ...keptVersions, fileOf, count: quotas.change }) : undefined
  const publisher = createPublisher({
    store, locks, accountOf, count: quotas.change,
    hooks: {
      keep: versions?.hooks.keep,
      async published (change, recording) {
        await versions?.hooks.published(change, recording)
        await journal?.record(change, pathOf, recording)
        await derived?.published?.(change, recording)
      }
    },
    record
  })
  const trash = keptTrash && createTrash({ store, publisher, ...keptTrash })

  /** What `claim` takes, once there is room: when there is none, the user's oldest versions go
   *  first (when going would make enough), but never `spared` (the version being restored), and
   *  only then is it 507. */
  async function roomFor<T> (owner: Owner, bytes: number, claim: () => Promise<T>, spared?: { id: string, size: number }): Promise<T> {
    for (;;) {
      try {
        return await claim()
      } catch (error) {
        if (!(error instanceof InsufficientStorageError) || !versions) throw error
        const { missing, inVersions } = await quotas.shortfall(owner, bytes)
        if (missing > inVersions - (spared?.size ?? 0) || !await versions.free(owner.userId, missing, spared?.id)) throw error
      }
    }
  }

  /** Runs `write` with `bytes` of room reserved for `owner` (and more as its body grows): the
   *  publisher settles it into what was published; else it is released. */
  async function withRoom<T> (owner: Owner, bytes: number, write: (reservation: Reservation) => Promise<T>, spared?: { id: string, size: number }): Promise<T> {
    const reserved = await roomFor(owner, bytes, () => quotas.reserve(owner, bytes), spared)
    const reservation: Reservation = { ...reserved, grow: (more) => roomFor(owner, more, () => reserved.grow(more), spared) }
    try {
      return await write(reservation)
    } finally {
      await reservation.release()
    }
  }

  /** The object at `key`, or the range asked for, unless the conditions say the client's copy is
   *  current (304); `as` is how it is described (a version's own time and type). */
  async function readAt (key: string, notFound: () => Error, { range, withMetadata = false, ...conditions }: ReadRequest, as = <T extends ObjectMeta>(meta: T) => meta): Promise<FileRead> {
    const needsCurrent = conditions.ifNoneMatch || conditions.ifModifiedSince || (range && conditions.ifRange !== undefined)
    const reads = await readsOfKey(key)
    let found: ObjectMeta | undefined
    if (needsCurrent) {
      found = await reads.head(key)
      if (!found) throw notFound()
      const current = as(found)
      if (isNotModified(current, conditions)) return { notModified: true, file: current }
      if (!rangeStillApplies(conditions.ifRange, current)) range = undefined
    }
    // The index's row, asked while the store reads: its x-amz-meta-* cost no wait of their own.
    const row = withMetadata && !found && reads !== store ? reads.head(key) : undefined
    row?.catch(() => {})
    let file = await store.read(key, range)
    // Changed since it was looked at: the client's range is of another version.
    if (file?.range && !rangeStillApplies(conditions.ifRange, file)) {
      file.body.destroy()
      file = await store.read(key)
    }
    if (!file) {
      const at = pathOf(key)
      if (at && reads !== store) await names?.repair(at.userId, key)
      throw notFound()
    }
    const indexed = found ?? await row
    return { notModified: false, file: as(indexed?.metadata && indexed.etag === file.etag ? { ...file, metadata: indexed.metadata } : file) }
  }

  function userPrefix (userId: string): string {
    if (!isSafeSegment(userId)) throw new BadRequestError('the caller identity is not usable as a storage folder')
    return `users/${userId}/${root}/`
  }

  const keyOf = (userId: string, path: string) => userPrefix(userId) + checkFilePath(path)
  /** Where a user's listings and HEADs are read: the index of names, once theirs are built. */
  const readsOf = async (userId: string) => names ? await names.readsFor(userId) : store
  const readsOfKey = async (key: string) => {
    const at = pathOf(key)
    return at ? await readsOf(at.userId) : store
  }
  const notFound = (path: string) => new NotFoundError(`file not found: ${path}`)

  /**
   * Where the caller's `path` leads (DESIGN §13): their own file, or, when its first segment names a
   * mount of theirs, the owner's, reached with the mount's role. The one place rights are decided: a
   * viewer's write is refused here, before anything is read or stored. One indexed query.
   */
  async function placeOf (caller: Owner, path: string, access: 'read' | 'write'): Promise<Place> {
    const mount = mounts && await mountNamed(mounts, caller.userId, firstSegment(checkFilePath(path)))
    return placeWith(mount, caller, path, access)
  }

  /** Places of several paths, from one list of the caller's mounts (one lookup when they begin alike). */
  async function placesOf (caller: Owner, paths: string[], access: 'read' | 'write'): Promise<Place[]> {
    if (new Set(paths.map(firstSegment)).size < 2) return await Promise.all(paths.map((path) => placeOf(caller, path, access)))
    const received = new Map((mounts ? await mounts.list(caller.userId) : []).map((mount) => [mount.name, mount]))
    return paths.map((path) => placeWith(received.get(firstSegment(path)), caller, path, access))
  }

  const firstSegment = (path: string) => path.includes('/') ? path.slice(0, path.indexOf('/')) : path

  function placeWith (mount: Mount | undefined, caller: Owner, path: string, access: 'read' | 'write'): Place {
    const own = { key: keyOf(caller.userId, path), owner: caller, path }
    if (!mount) return own
    if (access === 'write') refuseViewer(mount)
    const slash = path.indexOf('/')
    const rest = slash === -1 ? '' : path.slice(slash + 1)
    if (!mount.path.endsWith('/') && rest !== '') throw notFound(path)
    // A folder's mount itself, as a file's path: the owner's folder, which no file can be.
    const ownerPath = mount.path.endsWith('/') ? (rest === '' ? mount.path.slice(0, -1) : mount.path + rest) : mount.path
    return { key: keyOf(mount.ownerId, ownerPath), owner: { userId: mount.ownerId, orgId: mount.ownerOrgId }, path: ownerPath, mount }
  }
  const reader = (userId: string): Owner => ({ userId, orgId: null })

  /** A viewer's write: 403 (DESIGN §13). */
  function refuseViewer (mount: Pick<Mount, 'name' | 'role'> | undefined) {
    if (mount && mount.role !== 'editor') throw new ForbiddenError(`${mount.name} is shared with you to view: its files cannot be changed by you`)
  }

  /** A version as the caller reaches it: of one of their own files, or of a file under a mount of
   *  theirs, at the path they see it by; 404 for any other (DESIGN §13: a grantee reaches ids only
   *  through paths they can see). */
  async function reachedVersion (userId: string, id: string, at?: string): Promise<Version & { mount?: ListedMount }> {
    const version = await versions!.find(id)
    // Named by a path (S3's key and versionId): a version of another path is none.
    const seenAt = (path: string | undefined) => path !== undefined && (at === undefined || path === at)
    if (version.userId === userId) {
      if (seenAt(version.path)) return version
      throw versions!.notFound()
    }
    for (const mount of mounts ? await mounts.listed(userId) : []) {
      const path = mount.ownerId === version.userId ? shownThrough(version.path, mount) : undefined
      if (seenAt(path)) return { ...version, path: path!, mount }
    }
    throw versions!.notFound()
  }

  /** The mount `place` is, when `path` names the mount itself (a file's mount by a file path, a
   *  folder's by a folder's): deleting or moving it is leaving or renaming it (DESIGN §13). */
  const mountAt = (place: Place, path: string, folder: boolean) =>
    place.mount && path === place.mount.name && place.mount.path.endsWith('/') === folder ? place.mount : undefined

  /**
   * The mount `path` names itself, if it does: a file's by its name, a folder's by its name and "/".
   * Deleting or moving it is leaving or renaming it, never a change to the owner's files (DESIGN §13).
   */
  async function mountItself (userId: string, path: string): Promise<Mount | undefined> {
    const folder = path.endsWith('/')
    const name = folder ? path.slice(0, -1) : path
    if (!mounts || name === '' || name.includes('/')) return undefined
    // A name no path may have is refused before it is looked up (PostgreSQL takes no NUL in text).
    const mount = await mounts.find(userId, checkFilePath(name))
    return mount && mount.path.endsWith('/') === folder ? mount : undefined
  }

  /** Names the caller's mount `to` (one name at the top of their tree, a folder's with or without its "/"): 409 when anything there has it. */
  async function renameMount (userId: string, mount: Mount, to: string): Promise<void> {
    const name = to.endsWith('/') ? to.slice(0, -1) : to
    if (name.includes('/') || checkFilePath(name) !== name) throw new BadRequestError('what is shared with you stays at the top of your files: give it one name, with no "/"')
    if (name === mount.name) return
    if (await takenByOwn(userId, name) || !await mounts!.rename(mount.shareId, userId, name)) throw new ConflictError(`${name} is taken at the top of your files: choose another name`)
    await journal?.recordMounts([{ userId, op: 'unshare', key: mount.name }, { userId, op: 'share', key: name }])
  }

  /** The caller leaves the share of `mount` (deleting the mount itself is leaving it). */
  async function leaveMount (userId: string, mount: Mount): Promise<void> {
    journal?.announceMounts(await mounts!.leave(mount.shareId, userId))
  }

  /** Whether a file or folder of the user's own stands at `name`, at the top of their tree (mounts aside). */
  async function takenByOwn (userId: string, name: string): Promise<boolean> {
    const key = keyOf(userId, name)
    const reads = await readsOf(userId)
    return await reads.head(key) !== undefined || (await reads.list(`${key}/`, { limit: 1 })).objects.length > 0
  }

  /** Room for `bytes` of an upload in pieces at `place`, in its owner's quota (a 507 says whose). */
  const claimUploadRoom = (place: Place, bytes: number) => inOwnersRoom(place, () => roomFor(place.owner, bytes, () => quotas.claimUpload(place.owner, bytes)))

  /** Where a resumable upload goes, as begun: its key and whose room holds it (undefined: an upload begun before they were kept, the caller's own). */
  const intoOf = (state: StagedState) => state.into as { key: string, account: string } | undefined

  /** The key a resumable upload writes: the one it began at, while the caller's path still leads there (404 once a share it went into has ended). */
  async function stagedKey (userId: string, path: string, state: StagedState): Promise<{ into?: { key: string, account: string }, key: string }> {
    const into = intoOf(state)
    if (!into) return { key: keyOf(userId, path) }
    return { into, key: (await uploadPlace(reader(userId), path, into.key)).key }
  }

  /** Where an upload in pieces at the caller's `path` goes (403 for a viewer); with `begun`, the key
   *  it began at, 404 once the path leads elsewhere (the share it went into has ended). */
  async function uploadPlace (caller: Owner, path: string, begun?: string): Promise<Place> {
    const place = await placeOf(caller, path, 'write')
    if (begun !== undefined && place.key !== begun) throw new NotFoundError(`${path} no longer leads where this upload was going (the share it went into has ended): upload it again`)
    return place
  }

  /** An editor's write that finds no room says whose storage is full: the owner's. */
  const inOwnersRoom = async <T>(place: Place, write: () => Promise<T>): Promise<T> => {
    if (!place.mount) return await write()
    return await write().catch((error: unknown) => {
      if (error instanceof InsufficientStorageError) throw new InsufficientStorageError(`the storage of ${place.mount!.ownerId}, who shared ${place.mount!.name} with you, is full: ${(error as Error).message.replace('over your storage quota', 'over their storage quota')}`)
      throw error
    })
  }

  /** A one-level page in another order than S3's (see FileService.list): from the index. */
  async function listSorted (userId: string, base: string, shown: string, prefix: string, { sort = 'name', order = 'asc', delimiter, continuationToken }: ListQuery): Promise<FilePage> {
    if (!delimiter) throw new BadRequestError('sort, order and folders=first are for one level: add delimiter=/')
    if (!names) throw new BadRequestError('sorting needs the index of names, which this service has not')
    if (prefix !== '' && !prefix.endsWith('/')) throw new BadRequestError('a sorted listing is of a folder: prefix must end with /')
    const after = continuationToken === undefined ? undefined : decodeSortedToken(continuationToken, sort, order)
    const keyOfShown = (path: string) => {
      if (!path.startsWith(shown)) throw new BadRequestError('continuationToken is not one this service issued for this folder')
      return base + path.slice(shown.length)
    }
    const page = await names.listSorted(userId, base + prefix, sort, order === 'desc', PAGE_SIZE,
      after && ('folder' in after ? { folder: keyOfShown(checkPrefix(after.folder)) } : { value: after.value, key: keyOfShown(checkFilePath(after.key)) }))
    const files = page.objects.map(listedUnder(base, shown))
    const folders = page.folders.map((folder) => shown + folder.slice(base.length))
    const ended: SortedAfter | undefined = page.next
    const next = ended && ('folder' in ended ? { folder: shown + ended.folder.slice(base.length) } : { value: ended.value, key: shown + ended.key.slice(base.length) })
    return next ? { files, folders, isTruncated: true, continuationToken: encodeSortedToken(sort, order, next) } : { files, folders, isTruncated: false }
  }

  /** A page in S3's key order of what lies under `base` + `prefix`, shown under `shown`. */
  async function listInKeyOrder (userId: string, base: string, shown: string, prefix: string, query: ListQuery): Promise<FilePage> {
    let startAfter: string | undefined
    if (query.continuationToken !== undefined) {
      const after = decodeContinuationToken(query.continuationToken)
      if (!after.startsWith(shown)) throw new BadRequestError('continuationToken is not one this service issued for this folder')
      startAfter = base + after.slice(shown.length)
    }
    const limit = Math.min(query.pageSize ?? PAGE_SIZE, MAX_PAGE_SIZE)
    const page = await (await readsOf(userId)).list(base + prefix, { startAfter, limit, delimiter: query.delimiter })
    const files = page.objects.filter((object) => !isMarker(object.key)).map(listedUnder(base, shown))
    const made = page.objects.filter((object) => isMarker(object.key)).map((object) => shown + object.key.slice(base.length))
    const folders = query.delimiter
      ? { folders: (page.folders ?? []).map((folder) => shown + folder.slice(base.length)) }
      : made.length > 0 ? { folders: made } : {}
    const last = pageEnd(page)
    return page.isTruncated && last !== undefined
      ? { files, ...folders, isTruncated: true, continuationToken: encodeContinuationToken(shown + last.slice(base.length)) }
      : { files, ...folders, isTruncated: false }
  }

  /** The caller's mounts whose names begin with `prefix` (a prefix at the top of their tree). */
  const mountsBeginning = async (userId: string, prefix: string) => (await mounts!.listed(userId)).filter((mount) => mount.name.startsWith(prefix))

  /** A file's mount as listings and searches show it: the owner's file at the mount's name, marked
   *  shared; undefined once the file is gone. */
  async function listedFileMount (mount: ListedMount) {
    const key = userPrefix(mount.ownerId) + mount.path
    const file = await (await readsOf(mount.ownerId)).head(key)
    return file && listedUnder(key, mount.name, sharedMark(mount))({ ...file, key })
  }

  /**
   * The top of a caller's tree with their mounts among its entries (those whose name begins with
   * `prefix`): a folder's mount as a folder, a file's as a file. In key order each is on the page
   * whose range of names holds it; a sorted listing has them all on its first page (folders among
   * its folders by name, files before its files).
   */
  async function withMounts (userId: string, prefix: string, page: FilePage, limit: number, at: { after?: string } | { firstPage: boolean, descending: boolean }): Promise<FilePage> {
    if ('firstPage' in at && !at.firstPage) return page
    const startAfter = 'after' in at && at.after !== undefined ? decodeContinuationToken(at.after) : undefined
    const end = 'after' in at && page.isTruncated && page.continuationToken !== undefined ? decodeContinuationToken(page.continuationToken) : undefined
    // In key order, only the mounts within the page's range, one more than it holds at most.
    const received = 'after' in at ? await mounts!.listedPage(userId, { prefix, after: startAfter, through: end, limit: limit + 1 }) : await mountsBeginning(userId, prefix)
    if (received.length === 0) return page
    const folders = received.filter((mount) => mount.path.endsWith('/')).map((mount) => `${mount.name}/`)
    const sharedFiles = received.filter((mount) => !mount.path.endsWith('/'))
    const files = (await Promise.all(sharedFiles.map(listedFileMount))).filter((file) => file !== undefined)
    const descending = 'descending' in at && at.descending
    const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0) * (descending ? -1 : 1)
    if (!('after' in at)) return { ...page, files: [...files, ...page.files], folders: [...page.folders ?? [], ...folders].sort(byName) }
    // In key order the page holds `limit` entries at most, mounts among them: one past it ends the
    // page there, and the next starts after the last one shown (the store's own token's form).
    const entries = [...page.files.map((file) => ({ name: file.key, file })), ...[...page.folders ?? [], ...folders].map((name) => ({ name, file: undefined })), ...files.map((file) => ({ name: file.key, file }))]
      .sort((a, b) => byName(a.name, b.name))
    const shown = entries.slice(0, limit)
    const cut = entries.length > limit
    return {
      files: shown.flatMap(({ file }) => file ? [file] : []),
      folders: shown.flatMap(({ name, file }) => file ? [] : [name]),
      ...(cut ? { isTruncated: true, continuationToken: encodeContinuationToken(shown.at(-1)!.name) } : page.isTruncated ? { isTruncated: true, continuationToken: page.continuationToken } : { isTruncated: false })
    }
  }

  /**
   * A listing without a delimiter at the top of a caller's tree: their own files and, as under any
   * folder, what lies under their mounts (DESIGN §13), merged in key order, `limit` entries a page.
   * Each source is listed from the page's start, for a page at most; a mount whose names all lie past
   * the page's last so far is not asked.
   */
  async function withMountsBelow (userId: string, prefix: string, own: FilePage, limit: number, after?: string): Promise<FilePage> {
    const received = await mountsBeginning(userId, prefix)
    if (received.length === 0) return own
    const startAfter = after === undefined ? undefined : decodeContinuationToken(after)
    type Listed = FilePage['files'][number] & { shared?: SharedMark }
    // The page so far, in key order, `limit` entries at most; `more` once anything was left past it.
    const entries: Array<{ name: string, file?: Listed }> = [...own.files.map((file) => ({ name: file.key, file })), ...(own.folders ?? []).map((name) => ({ name }))]
    let more = own.isTruncated
    const keep = () => {
      entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
      if (entries.length > limit) {
        entries.length = limit
        more = true
      }
    }
    keep()
    for (const mount of received) {
      const folder = mount.path.endsWith('/')
      const shown = folder ? `${mount.name}/` : mount.name
      if (entries.length === limit && shown > entries[limit - 1].name) {
        more = true
        continue
      }
      if (!folder) {
        const file = startAfter === undefined || shown > startAfter ? await listedFileMount(mount) : undefined
        if (file) entries.push({ name: shown, file })
        keep()
        continue
      }
      const inside = startAfter !== undefined && startAfter.startsWith(shown)
      if (startAfter !== undefined && !inside && startAfter > shown) continue
      const page = await listInKeyOrder(mount.ownerId, userPrefix(mount.ownerId) + mount.path, shown, '', { pageSize: limit, ...(inside ? { continuationToken: encodeContinuationToken(startAfter) } : {}) })
      const shared = sharedMark(mount)
      entries.push(...page.files.map((file) => ({ name: file.key, file: { ...file, shared } })), ...(page.folders ?? []).map((name) => ({ name })))
      more ||= page.isTruncated
      keep()
    }
    const folders = entries.flatMap(({ name, file }) => file ? [] : [name])
    return {
      files: entries.flatMap(({ file }) => file ? [file] : []),
      ...(folders.length > 0 ? { folders } : {}),
      ...(more && entries.length > 0 ? { isTruncated: true, continuationToken: encodeContinuationToken(entries.at(-1)!.name) } : { isTruncated: false })
    }
  }

  /**
   * Where a search under `prefix` looks: under a mount, the owner's folder there; at the top of a
   * tree, the caller's own files and every mount whose name begins with the prefix (DESIGN §13: what
   * lies under mounts, as under any folder).
   */
  async function searchSources (userId: string, prefix: string): Promise<SearchSource[]> {
    const own: SearchSource = { ownerId: userId, base: userPrefix(userId), shown: '' }
    const asSource = (mount: ListedMount): SearchSource =>
      ({ ownerId: mount.ownerId, base: userPrefix(mount.ownerId) + mount.path, shown: mount.path.endsWith('/') ? `${mount.name}/` : mount.name, shared: sharedMark(mount), ...(mount.path.endsWith('/') ? {} : { fileMount: mount }) })
    if (prefix.includes('/')) {
      const { mount } = await placeOf(reader(userId), prefix.slice(0, prefix.indexOf('/')), 'read')
      if (!mount) return [own]
      return mount.path.endsWith('/') ? [asSource(mount)] : []
    }
    return [own, ...mounts ? (await mountsBeginning(userId, prefix)).map(asSource) : []]
  }

  /** A source's first `limit` files whose path below `prefix` holds `text`, after `after` (in the
   *  caller's names), shown in the caller's names; `more` when there are more. */
  async function searchIn (source: SearchSource, prefix: string, text: string, limit: number, newest: boolean, after?: { value?: string, key: string }): Promise<{ files: FilePage['files'], more: boolean }> {
    const { ownerId, base, shown, shared } = source
    // The mount's name below the prefix is part of its files' paths, as a folder's is: when it holds
    // the text, everything in the mount is found.
    const named = prefix.length < shown.length && foldCase(shown.slice(prefix.length)).includes(foldCase(text))
    if (source.fileMount) {
      const listed = named ? await listedFileMount(source.fileMount) : undefined
      if (!listed) return { files: [], more: false }
      const past = after && (newest ? listed.lastModified < after.value! || (listed.lastModified === after.value && listed.key > after.key) : listed.key > after.key)
      return { files: after && !past ? [] : [listed], more: false }
    }
    // `after` among the source's keys: inside it, as its key there; before it, its start; past it, its end.
    let from = after
    if (after && !after.key.startsWith(shown)) {
      const before = after.key < shown
      if (!newest && !before) return { files: [], more: false }
      from = newest ? { value: after.value, key: before ? base : upperBound(base) } : undefined
    } else if (after) from = { ...after, key: base + after.key.slice(shown.length) }
    const found = await names!.search(ownerId, base + prefix.slice(shown.length), named ? '' : text, limit, { newest, after: from })
    return { files: found.files.map(listedUnder(base, shown, shared)), more: found.next !== undefined }
  }

  /** Whether each folder of `paths` exists, made on purpose or holding anything: one lookup by key in
   *  the index (while the user's names are being built, whether the store lists anything under each). */
  async function foldersExist (userId: string, paths: string[]): Promise<boolean[]> {
    return await foldersAt(userId, await folderKeys(userId, paths))
  }

  /** Whether folders stand at these markers' keys (as folderKeys gives them: '' for the root). */
  async function foldersAt (userId: string, keys: string[]): Promise<boolean[]> {
    if (names && await names.built(userId) && keys.every((key) => key === '' || pathOf(key)?.userId === userId)) {
      const found = await names.folders(keys.filter((key) => key !== ''))
      return keys.map((key) => key === '' || found.has(key))
    }
    return await Promise.all(keys.map(async (key) => key === '' || (await store.list(key, { limit: 1 })).objects.length > 0))
  }

  /** The markers' keys of the caller's folders at `paths` (a mount's folder is the owner's): '' for the root. */
  async function folderKeys (userId: string, paths: string[]): Promise<string[]> {
    const folders = paths.filter((path) => path !== '').map((path) => checkFolderPath(path).slice(0, -1))
    const places = new Map((await placesOf(reader(userId), folders, 'read')).map((place, index) => [folders[index], `${place.key}/`]))
    return paths.map((path) => path === '' ? '' : places.get(checkFolderPath(path).slice(0, -1))!)
  }

  /** 409 when a folder made on purpose stands at `key`'s name: a file and a folder of one name
   *  cannot both be shown (WebDAV, file managers), as makeFolder refuses a folder over a file. */
  async function refuseOverFolder (key: string, path: string) {
    if (await (await readsOfKey(key)).head(`${key}/`)) throw new FolderInTheWayError(path)
  }

  const refuseOntoItself = (operation: 'copy' | 'move', origin: Place, target: Place) => {
    if (origin.key === target.key) throw new ConflictError(`a file cannot be ${operation === 'copy' ? 'copied' : 'moved'} onto itself`)
  }

  /** A copy by the store, answered as a write is, for the destination. Its room is the source's
   *  size, reserved before the copy for the destination's owner; the version copied is pinned to the
   *  one measured (answered as `source`). */
  async function copyBetween (origin: Place, target: Place, from: string, to: string, { source, destination, contentType, metadata }: CopyRequest) {
    for (let attempt = 1; ; attempt++) {
      const current = await publisher.look(origin.key, source)
      if (!current) throw notFound(from)
      try {
        const done = await inOwnersRoom(target, () => withRoom(target.owner, current.size, (reservation) => publisher.copy(current, target.key, { preconditions: destination, contentType, reservation, metadata })))
        if (!done) throw notFound(from)
        return { copied: described(to, done), source: current }
      } catch (error) {
        // The source changed since it was measured: measured again.
        const changed = error instanceof PreconditionFailedError && (await store.head(origin.key))?.etag !== current.etag
        if (!changed || attempt === COPY_ATTEMPTS) throw error
      }
    }
  }

  async function copy (owner: Owner, from: string, to: string, request: CopyRequest = {}) {
    const [origin, target] = await Promise.all([placeOf(owner, from, 'read'), placeOf(owner, to, 'write')])
    refuseOntoItself('copy', origin, target)
    return (await copyBetween(origin, target, from, to, request)).copied
  }

  /** A move by the store: usage changes only by the file it replaces at `to`. Across a mount's edge
   *  (two owners) it is a copy, counted for the destination's owner, then the source's removal. */
  async function move (owner: Owner, from: string, to: string, { source, destination }: TransferConditions = {}) {
    const origin = await placeOf(owner, from, 'read')
    const itself = mountAt(origin, from, false)
    if (itself) {
      await renameMount(owner.userId, itself, to)
      const file = await (await readsOfKey(origin.key)).head(origin.key)
      if (!file) throw notFound(from)
      return described(to, file)
    }
    refuseViewer(origin.mount)
    const target = await placeOf(owner, to, 'write')
    refuseOntoItself('move', origin, target)
    if (origin.owner.userId !== target.owner.userId) {
      const { copied, source: moved } = await copyBetween(origin, target, from, to, { source, destination })
      await publisher.delete(origin.key, { ifMatch: [moved.etag] })
      return copied
    }
    const done = await publisher.move(origin.key, target.key, { sourcePreconditions: source, preconditions: destination })
    if (!done) throw notFound(from)
    return described(to, done)
  }

  return {
    maxFileBytes,
    maxUploadBytes,
    userPrefix,
    /** Bytes one write holds in memory at most. */
    writeBufferBytes: store.writeBufferBytes,

    /** Throws unless the store answers and takes writes. */
    check: () => store.check(),

    location (userId: string) {
      return { userId, bucket, region, prefix: userPrefix(userId) }
    },

    /** One page of a user's files; with `delimiter: '/'`, one level: files and `folders` in key order,
     *  sharing the page, or, sorted by size or time (or by name, descending, or asked so), folders first. */
    async list (userId: string, query: ListQuery): Promise<FilePage> {
      const prefix = checkPrefix(query.prefix ?? '')
      // Under a mount: the owner's folder, shown under the mount's name.
      const within = prefix.includes('/') ? await placeOf(reader(userId), prefix.slice(0, prefix.indexOf('/')), 'read') : undefined
      const mount = within?.mount
      if (mount && !mount.path.endsWith('/')) return { files: [], ...(query.delimiter ? { folders: [] } : {}), isTruncated: false }
      const base = mount ? userPrefix(mount.ownerId) + mount.path : userPrefix(userId)
      const shown = mount ? `${mount.name}/` : ''
      const inside = prefix.slice(shown.length)
      const sorted = (query.sort ?? 'name') !== 'name' || query.order === 'desc' || query.foldersFirst === true
      const page = sorted
        ? await listSorted(mount?.ownerId ?? userId, base, shown, inside, query)
        : await listInKeyOrder(mount?.ownerId ?? userId, base, shown, inside, query)
      if (mount) {
        const shared = sharedMark(mount)
        return { ...page, files: page.files.map((file) => ({ ...file, shared })) }
      }
      if (!mounts || prefix.includes('/')) return page
      if (!query.delimiter) return await withMountsBelow(userId, prefix, page, Math.min(query.pageSize ?? PAGE_SIZE, MAX_PAGE_SIZE), query.continuationToken)
      return await withMounts(userId, prefix, page, Math.min(query.pageSize ?? PAGE_SIZE, MAX_PAGE_SIZE), sorted ? { firstPage: query.continuationToken === undefined, descending: query.order === 'desc' } : { after: query.continuationToken })
    },

    /** A page of the user's files (under `prefix`) whose path holds `text`, in any case: by name, or newest first. */
    async search (userId: string, { q, prefix = '', sort = 'name', continuationToken, pageSize = PAGE_SIZE }: { q: string, prefix?: string, sort?: 'name' | 'newest', continuationToken?: string, pageSize?: number }): Promise<FilePage> {
      if ([...q].length < 2) throw new BadRequestError('q must be at least 2 characters: the text to look for in your files\' paths')
      if (!names) throw new BadRequestError('search needs the index of names, which this service has not')
      const checked = checkPrefix(prefix)
      const newest = sort === 'newest'
      let after: { value?: string, key: string } | undefined
      if (continuationToken !== undefined && newest) {
        const ended = decodeSortedToken(continuationToken, 'lastModified', 'desc')
        if (!('key' in ended)) throw new BadRequestError('continuationToken is not one this service issued for this sort and order')
        after = { value: ended.value, key: checkFilePath(ended.key) }
      } else if (continuationToken !== undefined) after = { key: decodeContinuationToken(continuationToken) }
      // Each source's first page after `after`; together, in the order asked, the page's first entries.
      const limit = Math.min(pageSize, MAX_PAGE_SIZE)
      const pages = await Promise.all((await searchSources(userId, checked)).map((source) => searchIn(source, checked, q, limit, newest, after)))
      const order = (a: FilePage['files'][number], b: FilePage['files'][number]) =>
        (newest ? (a.lastModified > b.lastModified ? -1 : a.lastModified < b.lastModified ? 1 : 0) : 0) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
      const found = pages.flatMap((page) => page.files).sort(order)
      const files = found.slice(0, limit)
      if (found.length <= limit && !pages.some((page) => page.more)) return { files, isTruncated: false }
      const last = files.at(-1)!
      return { files, isTruncated: true, continuationToken: newest ? encodeSortedToken('lastModified', 'desc', { value: last.lastModified, key: last.key }) : encodeContinuationToken(last.key) }
    },

    async head (userId: string, path: string): Promise<ObjectMeta> {
      const { key } = await placeOf(reader(userId), path, 'read')
      const file = await (await readsOfKey(key)).head(key)
      if (!file) throw notFound(path)
      return file
    },

    /** The file, or the range asked for, unless the conditions say the client's copy is current (304). */
    read: async (userId: string, path: string, options: ReadRequest = {}) => readAt((await placeOf(reader(userId), path, 'read')).key, () => notFound(path), options),

    /** Replaces the x-amz-meta-* of the file at `path` as it is now (`etag`), its content unchanged. */
    async setMetadata (userId: string, path: string, etag: string, metadata: Metadata) {
      await names?.setMetadata((await placeOf(reader(userId), path, 'write')).key, etag, metadata)
    },

    /** Where the caller's path leads, and with what right (DESIGN §13): for front ends that name
     *  keys of their own (thumbnails, links). 403 for a write a viewer cannot make. */
    place: (caller: Owner, path: string, access: 'read' | 'write') => placeOf(caller, path, access),

    /** Refused before the body is read when its preconditions already fail (412) or its declared
     *  length has no room (507); a body of unknown length is refused as soon as it passes the quota. */
    async write (caller: Owner, path: string, body: Bytes, { contentType = DEFAULT_CONTENT_TYPE, maxBytes = maxUploadBytes, preconditions, length, metadata }: WriteRequest = {}) {
      const place = await placeOf(caller, path, 'write')
      const { key, owner } = place
      const conditional = hasPreconditions(preconditions)
      // Asked at once, answered while room is reserved: no wait of its own before the body is read.
      const overFolder = refuseOverFolder(key, path)
      overFolder.catch(() => {})
      // A small body is refused once it has arrived rather than looked at twice.
      if (conditional && (length === undefined || length > READ_BEFORE_LOOKING_BYTES)) await publisher.look(key, preconditions)
      const stored = await inOwnersRoom(place, () => withRoom(owner, length ?? 0, async (reservation) => {
        await overFolder
        return await publisher.write(key, length === undefined ? quotas.metered(body, reservation) : body, { contentType, maxBytes, preconditions, reservation, metadata })
      })).catch(async (error) => {
        // A write refused for its room and for its preconditions is told of the preconditions.
        if (conditional && error instanceof InsufficientStorageError) await publisher.look(key, preconditions)
        throw error
      })
      // `replaced`: whether a file stood there (WebDAV answers 201 or 204 by it); not part of the file API's answers.
      return { ...described(path, stored), replaced: stored.replaced }
    },

    /** To the trash when it keeps files (resolving with the trash item's id), else, or with
     *  `skipTrash` (an S3 credential made so), at once. */
    async delete (userId: string, path: string, preconditions?: Preconditions, { skipTrash = false }: { skipTrash?: boolean } = {}): Promise<{ trashId?: string }> {
      const place = await placeOf(reader(userId), path, 'read')
      const itself = mountAt(place, path, false)
      if (itself) {
        await leaveMount(userId, itself)
        return {}
      }
      refuseViewer(place.mount)
      const { key, owner, path: ownersPath, mount } = place
      if (trash?.keeps && !skipTrash) {
        // Under a mount, to the owner's trash: the grantee is not told its id (DESIGN §13).
        const trashId = await trash.discard(owner.userId, ownersPath, key, preconditions)
        if (mount && trashId) return {}
        if (!trashId) throw notFound(path)
        return { trashId }
      }
      if (!await publisher.delete(key, preconditions)) throw notFound(path)
      return {}
    },

    /** A copy made by the store; If-Match of `source` picks the version copied. */
    copy,
    move,

    /** Deleted files; undefined when deletes are at once. */
    trash: trash?.keeps
      ? {
          list: trash.list,
          restore: async (userId: string, id: string, to?: string) => {
            const into = to === undefined ? undefined : await placeOf(reader(userId), to, 'write')
            const { path, file } = await trash.restore(userId, id, (path) => into && path === to ? into.key : keyOf(userId, path), to)
            return described(path, file)
          },
          purge: trash.purge,
          empty: trash.empty,
          sweep: trash.sweep
        }
      : undefined,

    /** Makes a folder that exists while it is empty (a marker: no file, no quota); one that exists
     *  already is left as it is. 409 when a file has its name. */
    async makeFolder (userId: string, path: string) {
      const folder = checkFolderPath(path)
      const { key } = await placeOf(reader(userId), folder.slice(0, -1), 'write')
      if (await (await readsOfKey(key)).head(key)) throw new ConflictError(`a file has that name: ${folder.slice(0, -1)}`)
      await publisher.write(`${key}/`, [], { contentType: FOLDER_TYPE, maxBytes: 0, preconditions: { ifNoneMatch: ['*'] } }).catch((error) => {
        if (!(error instanceof PreconditionFailedError)) throw error
      })
      return { path: folder }
    },

    /** When each folder of `paths` was made, on purpose or by the first file put in it: one lookup by
     *  key in the index. Undefined for a folder the index dates not (indexed before folders had a
     *  time) and, while the user's names are being built, for one not made on purpose. */
    async folderDates (userId: string, paths: string[]): Promise<Array<Date | undefined>> {
      const keys = await folderKeys(userId, paths)
      if (names && await names.built(userId) && keys.every((key) => pathOf(key)?.userId === userId)) {
        const found = await names.folders(keys)
        return keys.map((key) => found.get(key))
      }
      return await Promise.all(keys.map(async (key) => (await store.head(key))?.lastModified))
    },

    foldersExist,

    takenByOwn,
    mountItself,
    renameMount,

    /** Whether the folder exists: made on purpose, or holding anything. */
    folderExists: async (userId: string, path: string): Promise<boolean> => (await foldersExist(userId, [path]))[0],

    /** What stands at `name` at the top of the caller's tree: a folder of their own, one shared with
     *  them (a mount, which lasts only while its share does), or nothing. */
    async topFolder (userId: string, name: string): Promise<'own' | 'shared' | undefined> {
      const place = await placeOf(reader(userId), checkFolderPath(name).slice(0, -1), 'read')
      const [found] = await foldersAt(userId, [`${place.key}/`])
      return !found ? undefined : place.mount ? 'shared' : 'own'
    },

    /** Removes an empty folder: 409 when it holds anything, 404 when there is none. `unlessEmpty`
     *  (a folder moved away): it is no longer kept for itself, and lasts while it holds anything. */
    async removeFolder (userId: string, path: string, { unlessEmpty = false } = {}) {
      const folder = checkFolderPath(path)
      const place = await placeOf(reader(userId), folder.slice(0, -1), 'read')
      const itself = mountAt(place, folder.slice(0, -1), true)
      if (itself) {
        if (!unlessEmpty) await leaveMount(userId, itself)
        return
      }
      refuseViewer(place.mount)
      const marker = `${place.key}/`
      if (unlessEmpty) {
        await publisher.delete(marker)
        return
      }
      const { objects, folders = [] } = await (await readsOfKey(marker)).list(marker, { limit: 2, delimiter: '/' })
      if (objects.some((object) => object.key !== marker) || folders.length > 0) throw new ConflictError(`the folder is not empty: ${folder}`)
      if (!await publisher.delete(marker)) throw new NotFoundError(`no such folder: ${folder}`)
    },

    /** Replaced files, kept as versions of their path; undefined when VERSION_RETENTION_DAYS is 0. */
    versions: versions && {
      list: async (userId: string, path: string, continuationToken?: string) => {
        const { owner, path: ownersPath } = await placeOf(reader(userId), path, 'read')
        return await versions.list(owner.userId, ownersPath, continuationToken)
      },
      tokenAfter: async (userId: string, id: string) => versions.tokenAfter(await reachedVersion(userId, id)),
      /** A version's bytes, described as the file they were (its time and type), and that file's path;
       *  `at`: 404 unless it is a version of that path. */
      async read (userId: string, id: string, { at, ...options }: ReadConditions & { range?: RangeRequest, at?: string } = {}) {
        const version = await reachedVersion(userId, id, at)
        const read = await readAt(version.objectKey, versions.notFound, options, (meta) => ({ ...meta, contentType: version.contentType, lastModified: version.lastModified }))
        return { path: version.path, read }
      },
      /** Copies a version back to its path (or `to`): it becomes the file, and the file it replaces a version. */
      async restore (owner: Owner, id: string, { to, ifMatch }: { to?: string, ifMatch?: string[] } = {}) {
        const version = await reachedVersion(owner.userId, id)
        const object = await versions.objectOf(version)
        const path = to ?? version.path
        const place = await placeOf(owner, path, 'write')
        const restored = await inOwnersRoom(place, () => withRoom(place.owner, object.size, (reservation) => publisher.copy(object, place.key, { preconditions: { ifMatch }, reservation }), { id, size: version.size }))
        if (!restored) throw versions.notFound()
        return described(path, restored)
      },
      /** A version the caller reaches, described at the path they see it by: its size, ETag, type and times. */
      find: reachedVersion,
      async remove (userId: string, id: string, at?: string) {
        const version = await reachedVersion(userId, id, at)
        refuseViewer(version.mount)
        await versions.remove(version)
      },
      sweep: versions.sweep
    },

    /** Throws 412 when a write of this file with these preconditions would already be refused. */
    checkWritable: async (userId: string, path: string, preconditions: Preconditions) => { await publisher.look((await placeOf(reader(userId), path, 'write')).key, preconditions) },

    /** A URL straight to the store for one of the user's files (S3 presigned); undefined when the store cannot. */
    presign: store.presign && (async (userId: string, path: string, link: PresignRequest) => store.presign!((await placeOf(reader(userId), path, 'read')).key, link)),

    /**
     * Where an upload in pieces of the caller's (S3 multipart) goes: the key it publishes at and
     * whose room holds its parts (a mount's owner's, for an editor's upload into it; 403 for a
     * viewer's). With `begun`, the key it began at: 404 once the caller's path leads elsewhere
     * (the share it went into has ended).
     */
    async uploadTarget (caller: Owner, path: string, begun?: string): Promise<{ key: string, account: Owner, claim: (bytes: number) => Promise<void> }> {
      const place = await uploadPlace(caller, path, begun)
      return { key: place.key, account: place.owner, claim: (bytes) => claimUploadRoom(place, bytes) }
    },

    /** The user a key of the users' files is counted for (see uploadTarget). */
    userOfKey: (key: string) => pathOf(key)?.userId,

    /** The key of a user's own file at `path` (an upload begun before its key was kept goes there). */
    ownKey: keyOf,

    /** S3 multipart uploads made by the store itself at the file's key (stores with nativeParts):
     *  their parts go straight to it, and completing one publishes it as a write is. */
    nativeUploads: store.nativeParts && {
      begin: (key: string, contentType: string) => store.nativeParts!.begin(key, contentType),
      upload: (key: string, uploadId: string, partNumber: number, body: Bytes, length: number) =>
        store.nativeParts!.upload(key, uploadId, partNumber, body, length),
      /** Publishes the parts chosen at `key` (shown to the caller as `path`); what the upload held (`uploadBytes`, every part sent) stops counting then. */
      async complete (key: string, path: string, uploadId: string, parts: Array<{ partNumber: number, etag: string, size: number }>, { contentType, preconditions, metadata, uploadBytes }: { contentType: string, preconditions: Preconditions, metadata: Metadata, uploadBytes: number }) {
        await refuseOverFolder(key, path)
        const size = parts.reduce((total, part) => total + part.size, 0)
        const stored = await publisher.publishStaged(key, store.nativeParts!.completion(key, uploadId, parts, size, contentType), { preconditions, metadata, also: { uploadBytes: -uploadBytes } })
        return described(path, stored)
      },
      abort: (key: string, uploadId: string) => store.nativeParts!.abort(key, uploadId)
    },

    /**
     * A caller's file written in pieces (resumable uploads); undefined when the store cannot. Into
     * a mount, an editor's upload is the owner's: their quota holds its length, and its key is kept
     * in its state (`into`), so that a piece or the completion after the share ended is refused.
     */
    staged: publisher.staged && {
      /** A resumable upload's declared length, held until it is published or dropped (507 when there
       *  is no room; 403 for a viewer): resolves with whose room holds it. */
      async claim (caller: Owner, path: string, bytes: number): Promise<Owner> {
        const place = await uploadPlace(caller, path)
        await claimUploadRoom(place, bytes)
        return place.owner
      },
      async begin (id: string, caller: Owner, path: string, contentType: string): Promise<StagedState> {
        const { key, owner } = await uploadPlace(caller, path)
        return { ...await publisher.staged!.begin(id, key, contentType), into: { key, account: owner.userId } }
      },
      async append (id: string, userId: string, path: string, state: StagedState, body: Bytes, position: StagedPosition) {
        const { into, key } = await stagedKey(userId, path, state)
        const appended = await publisher.staged!.append(id, key, state, body, position)
        return { ...appended, state: { ...appended.state, ...(into ? { into } : {}) } }
      },
      /** Publishes the upload; its declared length stops counting as an upload and counts as the file. */
      async complete (id: string, userId: string, path: string, state: StagedState, { contentType, preconditions, length }: { contentType: string, preconditions: Preconditions, length: number }) {
        const { key } = await stagedKey(userId, path, state)
        await refuseOverFolder(key, path)
        const stored = await publisher.staged!.complete(id, key, state, { contentType, preconditions, also: { uploadBytes: -length } })
        return described(path, stored)
      },
      discard: (id: string, userId: string, path: string, state: StagedState) => publisher.staged!.discard(id, intoOf(state)?.key ?? keyOf(userId, path), state),
      /** Whose quota holds the upload's length: the owner's, for one into a mount. */
      accountOf: (userId: string, state: StagedState) => intoOf(state)?.account ?? userId
    }
  }
}

export type FileService = ReturnType<typeof createFileService>
