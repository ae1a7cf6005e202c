import { BadRequestError, ConflictError, NotFoundError } from '../errors.js'
import type { TrashRepository } from '../db/trash.js'
import { isNotModified, rangeStillApplies, type ReadConditions } from './conditional.js'
import {
  checkPreconditions, compareKeys, directly, hasPreconditions,
  type Bytes, type Exclusive, type ObjectMeta, type ObjectRead, type ObjectStore, type Preconditions, type PresignRequest, type RangeRequest, type StagedPosition, type StagedState
} from './object-store.js'
import {
  checkFilePath, checkPrefix, decodeContinuationToken, encodeContinuationToken, isSafeSegment
} from './paths.js'
import { createTrash } from './trash.js'

export const PAGE_SIZE = 100
export const DEFAULT_CONTENT_TYPE = 'application/octet-stream'

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
  /** Keeps concurrent writers of one key apart while each compares and publishes. */
  exclusive?: Exclusive
  /** Where deleted files wait, and for how long; without it a delete is at once. */
  trash?: { repository: TrashRepository, retentionMs: number }
}

/** A copy's or move's preconditions: If-Match of the source, If-None-Match of the destination. */
export interface TransferConditions {
  source?: Preconditions
  destination?: Preconditions
}

export interface WriteRequest {
  contentType?: string
  /** Defaults to maxUploadBytes. */
  maxBytes?: number
  preconditions?: Preconditions
}

export interface FilePage {
  files: Array<{ key: string, size: number, lastModified: string, etag: string }>
  /** With a delimiter: the next level's folders. */
  folders?: string[]
  isTruncated: boolean
  continuationToken?: string
}

export type FileRead = { notModified: true, file: ObjectMeta } | { notModified: false, file: ObjectRead }

const described = (path: string, meta: ObjectMeta) => ({
  key: path, size: meta.size, contentType: meta.contentType, lastModified: meta.lastModified.toISOString(), etag: meta.etag
})

export function createFileService ({ store, root, bucket, region, maxFileBytes, maxUploadBytes, exclusive = directly, trash: kept }: FileServiceOptions) {
  const { staged } = store
  const trash = kept && createTrash({ store, exclusive, ...kept })
  function userPrefix (userId: string): string {
    if (!isSafeSegment(userId)) throw new BadRequestError('the caller identity is not usable as a storage folder')
    return `users/${userId}/${root}/`
  }

  const keyOf = (userId: string, path: string) => userPrefix(userId) + checkFilePath(path)
  const notFound = (path: string) => new NotFoundError(`file not found: ${path}`)
  const refuseEarly = async (key: string, preconditions: Preconditions | undefined) => {
    if (hasPreconditions(preconditions)) checkPreconditions(await store.head(key), preconditions)
  }

  /** Copy or move of one file by the store, answered as a write is, for the destination. */
  const transfer = (operation: 'copy' | 'move') => async (userId: string, from: string, to: string, { source, destination }: TransferConditions = {}) => {
    const [fromKey, toKey] = [keyOf(userId, from), keyOf(userId, to)]
    if (from === to) throw new ConflictError(`a file cannot be ${operation === 'copy' ? 'copied' : 'moved'} onto itself`)
    const done = await store[operation](fromKey, toKey, { sourcePreconditions: source, preconditions: destination, exclusive })
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

    /** One page of a user's files; with `delimiter: '/'`, one level: files and `folders` in key order, sharing the page. */
    async list (userId: string, query: { prefix?: string, continuationToken?: string, delimiter?: '/' }): Promise<FilePage> {
      const base = userPrefix(userId)
      const prefix = checkPrefix(query.prefix ?? '')
      const startAfter = query.continuationToken === undefined
        ? undefined
        : base + decodeContinuationToken(query.continuationToken)
      const page = await store.list(base + prefix, { startAfter, limit: PAGE_SIZE, delimiter: query.delimiter })
      const files = page.objects.map((object) => ({
        key: object.key.slice(base.length),
        size: object.size,
        lastModified: object.lastModified.toISOString(),
        etag: object.etag
      }))
      const folders = query.delimiter ? { folders: (page.folders ?? []).map((folder) => folder.slice(base.length)) } : {}
      // The page ends at its greatest entry, a file or a folder.
      const last = [files.at(-1)?.key, folders.folders?.at(-1)].filter((key) => key !== undefined)
        .sort(compareKeys).at(-1)
      return page.isTruncated && last !== undefined
        ? { files, ...folders, isTruncated: true, continuationToken: encodeContinuationToken(last) }
        : { files, ...folders, isTruncated: false }
    },

    async head (userId: string, path: string): Promise<ObjectMeta> {
      const file = await store.head(keyOf(userId, path))
      if (!file) throw notFound(path)
      return file
    },

    /** The file, or the range asked for, unless the conditions say the client's copy is current (304). */
    async read (userId: string, path: string, { range, ...conditions }: ReadConditions & { range?: RangeRequest } = {}): Promise<FileRead> {
      const key = keyOf(userId, path)
      const needsCurrent = conditions.ifNoneMatch || conditions.ifModifiedSince || (range && conditions.ifRange !== undefined)
      if (needsCurrent) {
        const current = await store.head(key)
        if (!current) throw notFound(path)
        if (isNotModified(current, conditions)) return { notModified: true, file: current }
        if (!rangeStillApplies(conditions.ifRange, current)) range = undefined
      }
      let file = await store.read(key, range)
      // Changed since it was looked at: the client's range is of another version.
      if (file?.range && !rangeStillApplies(conditions.ifRange, file)) {
        file.body.destroy()
        file = await store.read(key)
      }
      if (!file) throw notFound(path)
      return { notModified: false, file }
    },

    async write (userId: string, path: string, body: Bytes, { contentType = DEFAULT_CONTENT_TYPE, maxBytes = maxUploadBytes, preconditions }: WriteRequest = {}) {
      const key = keyOf(userId, path)
      // Refused before the body is read, when it already fails; checked again when it is published.
      await refuseEarly(key, preconditions)
      const stored = await store.write(key, body, { contentType, maxBytes, preconditions, exclusive })
      return described(path, stored)
    },

    /** To the trash when it keeps files (resolving with the trash item's id), else at once. */
    async delete (userId: string, path: string, preconditions?: Preconditions): Promise<{ trashId?: string }> {
      const key = keyOf(userId, path)
      if (trash?.keeps) {
        const trashId = await trash.discard(userId, path, key, preconditions)
        if (!trashId) throw notFound(path)
        return { trashId }
      }
      if (!(await store.delete(key, { preconditions, exclusive }))) throw notFound(path)
      return {}
    },

    /** A copy made by the store; If-Match of `source` picks the version copied. */
    copy: transfer('copy'),
    move: transfer('move'),

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

    /** Throws 412 when a write of this file with these preconditions would already be refused. */
    checkWritable: (userId: string, path: string, preconditions: Preconditions) => refuseEarly(keyOf(userId, path), preconditions),

    /** A URL straight to the store for one of the user's files (S3 presigned); undefined when the store cannot. */
    presign: store.presign && ((userId: string, path: string, link: PresignRequest) => store.presign!(keyOf(userId, path), link)),

    /** A user's file written in pieces (resumable uploads); undefined when the store cannot. */
    staged: staged && {
      begin: (id: string, userId: string, path: string, contentType: string) => staged.begin(id, keyOf(userId, path), contentType),
      append: (id: string, userId: string, path: string, state: StagedState, body: Bytes, position: StagedPosition) =>
        staged.append(id, keyOf(userId, path), state, body, position),
      async complete (id: string, userId: string, path: string, state: StagedState, { contentType, preconditions }: { contentType: string, preconditions: Preconditions }) {
        return described(path, await staged.complete(id, keyOf(userId, path), state, { contentType, preconditions, exclusive }))
      },
      discard: (id: string, userId: string, path: string, state: StagedState) => staged.discard(id, keyOf(userId, path), state)
    }
  }
}

export type FileService = ReturnType<typeof createFileService>
