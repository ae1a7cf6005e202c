import { BadRequestError, ConflictError, FolderInTheWayError, InsufficientStorageError, NotFoundError, PreconditionFailedError } from '../errors.js'
import { directly, type Exclusive, type KeyLocks } from '../db/key-locks.js'
import type { TrashRepository } from '../db/trash.js'
import type { VersionRepository } from '../db/versions.js'
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
import type { ListSort, SortedAfter } from '../db/names.js'

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
  journal?: Pick<Journal, 'record'>
  /** The index of names the journal keeps with it: listings and HEADs read it; without it, the store. */
  names?: NameIndex
  /** One transaction for what the database records of each change (usage, version, journal, index). */
  record?: Recorder
  /** What is made from users' files and must go when they change (the image cache). */
  derived?: Pick<PublishHooks, 'published'>
  /** Usage and quotas: writes and copies reserve their room, every change is counted. */
  quotas: Quotas
}

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

/** A listed object as a page of files shows it: its path under the user's root (`base`). */
const listedUnder = (base: string) => (object: ObjectInfo) => ({
  key: object.key.slice(base.length), size: object.size, lastModified: object.lastModified.toISOString(), etag: object.etag
})

const described = (path: string, meta: ObjectMeta) => ({
  key: path, size: meta.size, contentType: meta.contentType, lastModified: meta.lastModified.toISOString(), etag: meta.etag
})

// A conditional write of a body up to this size is read before its preconditions are checked: its
// key is looked at once, under the lock. A larger one is refused before it is read.
const READ_BEFORE_LOOKING_BYTES = 1024 * 1024
// A copy whose source changes while it is copied is made again, this many times at most.
const COPY_ATTEMPTS = 3

export function createFileService ({ store, root, bucket, region, maxFileBytes, maxUploadBytes, locks = directly, trash: keptTrash, versions: keptVersions, journal, names, quotas, record, derived }: FileServiceOptions) {
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

  /** A one-level page in another order than S3's (see FileService.list): from the index. */
  async function listSorted (userId: string, base: string, prefix: string, { sort = 'name', order = 'asc', delimiter, continuationToken }: ListQuery): Promise<FilePage> {
    if (!delimiter) throw new BadRequestError('sort, order and folders=first are for one level: add delimiter=/')
    if (!names) throw new BadRequestError('sorting needs the index of names, which this service has not')
    if (prefix !== '' && !prefix.endsWith('/')) throw new BadRequestError('a sorted listing is of a folder: prefix must end with /')
    const after = continuationToken === undefined ? undefined : decodeSortedToken(continuationToken, sort, order)
    const page = await names.listSorted(userId, base + prefix, sort, order === 'desc', PAGE_SIZE,
      after && ('folder' in after ? { folder: base + checkPrefix(after.folder) } : { value: after.value, key: base + checkFilePath(after.key) }))
    const files = page.objects.map(listedUnder(base))
    const folders = page.folders.map((folder) => folder.slice(base.length))
    const ended: SortedAfter | undefined = page.next
    const next = ended && ('folder' in ended ? { folder: ended.folder.slice(base.length) } : { value: ended.value, key: ended.key.slice(base.length) })
    return next ? { files, folders, isTruncated: true, continuationToken: encodeSortedToken(sort, order, next) } : { files, folders, isTruncated: false }
  }

  /** Whether each folder of `paths` exists, made on purpose or holding anything: one lookup by key in
   *  the index (while the user's names are being built, whether the store lists anything under each). */
  async function foldersExist (userId: string, paths: string[]): Promise<boolean[]> {
    const keys = paths.map((path) => path === '' ? '' : userPrefix(userId) + checkFolderPath(path))
    if (names && await names.built(userId)) {
      const found = await names.folders(keys.filter((key) => key !== ''))
      return keys.map((key) => key === '' || found.has(key))
    }
    return await Promise.all(keys.map(async (key) => key === '' || (await store.list(key, { limit: 1 })).objects.length > 0))
  }

  /** 409 when a folder made on purpose stands at `key`'s name: a file and a folder of one name
   *  cannot both be shown (WebDAV, file managers), as makeFolder refuses a folder over a file. */
  async function refuseOverFolder (key: string, path: string) {
    if (await (await readsOfKey(key)).head(`${key}/`)) throw new FolderInTheWayError(path)
  }

  const transferKeys = (operation: 'copy' | 'move', userId: string, from: string, to: string) => {
    if (from === to) throw new ConflictError(`a file cannot be ${operation === 'copy' ? 'copied' : 'moved'} onto itself`)
    return [keyOf(userId, from), keyOf(userId, to)]
  }

  /** A copy by the store, answered as a write is, for the destination. Its room is the source's
   *  size, reserved before the copy; the version copied is pinned to the one measured. */
  async function copy (owner: Owner, from: string, to: string, { source, destination, contentType, metadata }: CopyRequest = {}) {
    const [fromKey, toKey] = transferKeys('copy', owner.userId, from, to)
    for (let attempt = 1; ; attempt++) {
      const current = await publisher.look(fromKey, source)
      if (!current) throw notFound(from)
      try {
        const done = await withRoom(owner, current.size, (reservation) => publisher.copy(current, toKey, { preconditions: destination, contentType, reservation, metadata }))
        if (!done) throw notFound(from)
        return described(to, done)
      } catch (error) {
        // The source changed since it was measured: measured again.
        const changed = error instanceof PreconditionFailedError && (await store.head(fromKey))?.etag !== current.etag
        if (!changed || attempt === COPY_ATTEMPTS) throw error
      }
    }
  }

  /** A move by the store: usage changes only by the file it replaces at `to`. */
  async function move (owner: Owner, from: string, to: string, { source, destination }: TransferConditions = {}) {
    const [fromKey, toKey] = transferKeys('move', owner.userId, from, to)
    const done = await publisher.move(fromKey, toKey, { sourcePreconditions: source, preconditions: destination })
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
      const base = userPrefix(userId)
      const prefix = checkPrefix(query.prefix ?? '')
      if ((query.sort ?? 'name') !== 'name' || query.order === 'desc' || query.foldersFirst === true) return await listSorted(userId, base, prefix, query)
      const startAfter = query.continuationToken === undefined
        ? undefined
        : base + decodeContinuationToken(query.continuationToken)
      const limit = Math.min(query.pageSize ?? PAGE_SIZE, MAX_PAGE_SIZE)
      const page = await (await readsOf(userId)).list(base + prefix, { startAfter, limit, delimiter: query.delimiter })
      const files = page.objects.filter((object) => !isMarker(object.key)).map(listedUnder(base))
      const made = page.objects.filter((object) => isMarker(object.key)).map((object) => object.key.slice(base.length))
      const folders = query.delimiter
        ? { folders: (page.folders ?? []).map((folder) => folder.slice(base.length)) }
        : made.length > 0 ? { folders: made } : {}
      const last = pageEnd(page)
      return page.isTruncated && last !== undefined
        ? { files, ...folders, isTruncated: true, continuationToken: encodeContinuationToken(last.slice(base.length)) }
        : { files, ...folders, isTruncated: false }
    },

    /** A page of the user's files (under `prefix`) whose path holds `text`, in any case: by name, or newest first. */
    async search (userId: string, { q, prefix = '', sort = 'name', continuationToken }: { q: string, prefix?: string, sort?: 'name' | 'newest', continuationToken?: string }): Promise<FilePage> {
      if ([...q].length < 2) throw new BadRequestError('q must be at least 2 characters: the text to look for in your files\' paths')
      if (!names) throw new BadRequestError('search needs the index of names, which this service has not')
      const base = userPrefix(userId)
      const root = base + checkPrefix(prefix)
      const newest = sort === 'newest'
      let after: { value?: string, key: string } | undefined
      if (continuationToken !== undefined && newest) {
        const ended = decodeSortedToken(continuationToken, 'lastModified', 'desc')
        if (!('key' in ended)) throw new BadRequestError('continuationToken is not one this service issued for this sort and order')
        after = { value: ended.value, key: base + checkFilePath(ended.key) }
      } else if (continuationToken !== undefined) after = { key: base + decodeContinuationToken(continuationToken) }
      const found = await names.search(userId, root, q, PAGE_SIZE, { newest, after })
      const files = found.files.map(listedUnder(base))
      if (!found.next) return { files, isTruncated: false }
      const next = { value: found.next.value, key: found.next.key.slice(base.length) }
      return { files, isTruncated: true, continuationToken: newest ? encodeSortedToken('lastModified', 'desc', next) : encodeContinuationToken(next.key) }
    },

    async head (userId: string, path: string): Promise<ObjectMeta> {
      const key = keyOf(userId, path)
      const file = await (await readsOf(userId)).head(key)
      if (!file) throw notFound(path)
      return file
    },

    /** The file, or the range asked for, unless the conditions say the client's copy is current (304). */
    read: (userId: string, path: string, options: ReadRequest = {}) => readAt(keyOf(userId, path), () => notFound(path), options),

    /** Replaces the x-amz-meta-* of the file at `path` as it is now (`etag`), its content unchanged. */
    async setMetadata (userId: string, path: string, etag: string, metadata: Metadata) {
      await names?.setMetadata(keyOf(userId, path), etag, metadata)
    },

    /** Refused before the body is read when its preconditions already fail (412) or its declared
     *  length has no room (507); a body of unknown length is refused as soon as it passes the quota. */
    async write (owner: Owner, path: string, body: Bytes, { contentType = DEFAULT_CONTENT_TYPE, maxBytes = maxUploadBytes, preconditions, length, metadata }: WriteRequest = {}) {
      const key = keyOf(owner.userId, path)
      const conditional = hasPreconditions(preconditions)
      // Asked at once, answered while room is reserved: no wait of its own before the body is read.
      const overFolder = refuseOverFolder(key, path)
      overFolder.catch(() => {})
      // A small body is refused once it has arrived rather than looked at twice.
      if (conditional && (length === undefined || length > READ_BEFORE_LOOKING_BYTES)) await publisher.look(key, preconditions)
      const stored = await withRoom(owner, length ?? 0, async (reservation) => {
        await overFolder
        return await publisher.write(key, length === undefined ? quotas.metered(body, reservation) : body, { contentType, maxBytes, preconditions, reservation, metadata })
      }).catch(async (error) => {
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
      const key = keyOf(userId, path)
      if (trash?.keeps && !skipTrash) {
        const trashId = await trash.discard(userId, path, key, preconditions)
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
            const { path, file } = await trash.restore(userId, id, (path) => keyOf(userId, path), to)
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
      if (await (await readsOf(userId)).head(keyOf(userId, folder.slice(0, -1)))) throw new ConflictError(`a file has that name: ${folder.slice(0, -1)}`)
      await publisher.write(userPrefix(userId) + folder, [], { contentType: FOLDER_TYPE, maxBytes: 0, preconditions: { ifNoneMatch: ['*'] } }).catch((error) => {
        if (!(error instanceof PreconditionFailedError)) throw error
      })
      return { path: folder }
    },

    /** When each folder of `paths` was made, on purpose or by the first file put in it: one lookup by
     *  key in the index. Undefined for a folder the index dates not (indexed before folders had a
     *  time) and, while the user's names are being built, for one not made on purpose. */
    async folderDates (userId: string, paths: string[]): Promise<Array<Date | undefined>> {
      const keys = paths.map((path) => userPrefix(userId) + checkFolderPath(path))
      if (names && await names.built(userId)) {
        const found = await names.folders(keys)
        return keys.map((key) => found.get(key))
      }
      return await Promise.all(keys.map(async (key) => (await store.head(key))?.lastModified))
    },

    foldersExist,

    /** Whether the folder exists: made on purpose, or holding anything. */
    folderExists: async (userId: string, path: string): Promise<boolean> => (await foldersExist(userId, [path]))[0],

    /** Removes an empty folder: 409 when it holds anything, 404 when there is none. `unlessEmpty`
     *  (a folder moved away): it is no longer kept for itself, and lasts while it holds anything. */
    async removeFolder (userId: string, path: string, { unlessEmpty = false } = {}) {
      const folder = checkFolderPath(path)
      const marker = userPrefix(userId) + folder
      if (unlessEmpty) {
        await publisher.delete(marker)
        return
      }
      const { objects, folders = [] } = await (await readsOf(userId)).list(marker, { limit: 2, delimiter: '/' })
      if (objects.some((object) => object.key !== marker) || folders.length > 0) throw new ConflictError(`the folder is not empty: ${folder}`)
      if (!await publisher.delete(marker)) throw new NotFoundError(`no such folder: ${folder}`)
    },

    /** Replaced files, kept as versions of their path; undefined when VERSION_RETENTION_DAYS is 0. */
    versions: versions && {
      list: (userId: string, path: string, continuationToken?: string) => versions.list(userId, checkFilePath(path), continuationToken),
      tokenAfter: versions.tokenAfter,
      /** A version's bytes, described as the file they were (its time and type), and that file's path. */
      async read (userId: string, id: string, options: ReadConditions & { range?: RangeRequest } = {}) {
        const version = await versions.find(userId, id)
        const read = await readAt(version.objectKey, versions.notFound, options, (meta) => ({ ...meta, contentType: version.contentType, lastModified: version.lastModified }))
        return { path: version.path, read }
      },
      /** Copies a version back to its path (or `to`): it becomes the file, and the file it replaces a version. */
      async restore (owner: Owner, id: string, { to, ifMatch }: { to?: string, ifMatch?: string[] } = {}) {
        const version = await versions.find(owner.userId, id)
        const object = await versions.objectOf(version)
        const path = to ?? version.path
        const key = keyOf(owner.userId, path)
        const restored = await withRoom(owner, object.size, (reservation) => publisher.copy(object, key, { preconditions: { ifMatch }, reservation }), { id, size: version.size })
        if (!restored) throw versions.notFound()
        return described(path, restored)
      },
      /** A version, described: its path, size, ETag, type and times; 404 for another user's. */
      find: versions.find,
      remove: versions.remove,
      sweep: versions.sweep
    },

    /** Throws 412 when a write of this file with these preconditions would already be refused. */
    checkWritable: async (userId: string, path: string, preconditions: Preconditions) => { await publisher.look(keyOf(userId, path), preconditions) },

    /** A URL straight to the store for one of the user's files (S3 presigned); undefined when the store cannot. */
    presign: store.presign && ((userId: string, path: string, link: PresignRequest) => store.presign!(keyOf(userId, path), link)),

    /** S3 multipart uploads made by the store itself at the file's key (stores with nativeParts):
     *  their parts go straight to it, and completing one publishes it as a write is. */
    nativeUploads: store.nativeParts && {
      begin: (userId: string, path: string, contentType: string) => store.nativeParts!.begin(keyOf(userId, path), contentType),
      upload: (userId: string, path: string, uploadId: string, partNumber: number, body: Bytes, length: number) =>
        store.nativeParts!.upload(keyOf(userId, path), uploadId, partNumber, body, length),
      /** Publishes the parts chosen; what the upload held (`uploadBytes`, every part sent) stops counting then. */
      async complete (owner: Owner, path: string, uploadId: string, parts: Array<{ partNumber: number, etag: string, size: number }>, { contentType, preconditions, metadata, uploadBytes }: { contentType: string, preconditions: Preconditions, metadata: Metadata, uploadBytes: number }) {
        const key = keyOf(owner.userId, path)
        await refuseOverFolder(key, path)
        const size = parts.reduce((total, part) => total + part.size, 0)
        const stored = await publisher.publishStaged(key, store.nativeParts!.completion(key, uploadId, parts, size, contentType), { preconditions, metadata, also: { uploadBytes: -uploadBytes } })
        return described(path, stored)
      },
      abort: (userId: string, path: string, uploadId: string) => store.nativeParts!.abort(keyOf(userId, path), uploadId)
    },

    /** A user's file written in pieces (resumable uploads); undefined when the store cannot. */
    staged: publisher.staged && {
      /** A resumable upload's declared length, held until it is published or dropped (507 when there is no room). */
      claim: (owner: Owner, bytes: number) => roomFor(owner, bytes, () => quotas.claimUpload(owner, bytes)),
      begin: (id: string, userId: string, path: string, contentType: string) => publisher.staged!.begin(id, keyOf(userId, path), contentType),
      append: (id: string, userId: string, path: string, state: StagedState, body: Bytes, position: StagedPosition) =>
        publisher.staged!.append(id, keyOf(userId, path), state, body, position),
      /** Publishes the upload; its declared length stops counting as an upload and counts as the file. */
      async complete (id: string, userId: string, path: string, state: StagedState, { contentType, preconditions, length }: { contentType: string, preconditions: Preconditions, length: number }) {
        await refuseOverFolder(keyOf(userId, path), path)
        const stored = await publisher.staged!.complete(id, keyOf(userId, path), state, { contentType, preconditions, also: { uploadBytes: -length } })
        return described(path, stored)
      },
      discard: (id: string, userId: string, path: string, state: StagedState) => publisher.staged!.discard(id, keyOf(userId, path), state)
    }
  }
}

export type FileService = ReturnType<typeof createFileService>
