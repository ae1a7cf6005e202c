import { BadRequestError, NotFoundError, PayloadTooLargeError } from '../errors.js'
import type { ObjectStore } from './object-store.js'
import {
  checkFilePath, checkPrefix, decodeContinuationToken, encodeContinuationToken, isSafeSegment
} from './paths.js'

export const PAGE_SIZE = 100
export const DEFAULT_CONTENT_TYPE = 'application/octet-stream'

export interface FileServiceOptions {
  store: ObjectStore
  /** The `<root>` of `users/{userId}/<root>/{path}`. */
  root: string
  bucket: string
  region: string
  maxFileBytes: number
}

export function createFileService ({ store, root, bucket, region, maxFileBytes }: FileServiceOptions) {
  function userPrefix (userId: string): string {
    if (!isSafeSegment(userId)) throw new BadRequestError('the caller identity is not usable as a storage folder')
    return `users/${userId}/${root}/`
  }

  const keyOf = (userId: string, path: string) => userPrefix(userId) + checkFilePath(path)

  return {
    maxFileBytes,
    userPrefix,

    /** Throws unless the store answers and takes writes. */
    check: () => store.check(),

    location (userId: string) {
      return { userId, bucket, region, prefix: userPrefix(userId) }
    },

    async list (userId: string, query: { prefix?: string, continuationToken?: string }) {
      const base = userPrefix(userId)
      const prefix = checkPrefix(query.prefix ?? '')
      const startAfter = query.continuationToken === undefined
        ? undefined
        : base + decodeContinuationToken(query.continuationToken)
      const page = await store.list(base + prefix, { startAfter, limit: PAGE_SIZE })
      const files = page.objects.map((object) => ({
        key: object.key.slice(base.length),
        size: object.size,
        lastModified: object.lastModified.toISOString()
      }))
      const last = files.at(-1)
      return page.isTruncated && last
        ? { files, isTruncated: true, continuationToken: encodeContinuationToken(last.key) }
        : { files, isTruncated: false }
    },

    async get (userId: string, path: string) {
      const object = await store.get(keyOf(userId, path))
      if (!object) throw new NotFoundError(`file not found: ${path}`)
      return { content: object.body.toString('base64'), contentType: object.contentType }
    },

    /** `bytes` is the decoded file (see decodeStrictBase64). */
    async put (userId: string, path: string, bytes: Buffer, contentType = DEFAULT_CONTENT_TYPE) {
      const key = keyOf(userId, path)
      if (bytes.length > maxFileBytes) throw new PayloadTooLargeError(`file is larger than ${maxFileBytes} bytes`)
      const stored = await store.put(key, bytes, contentType)
      return { key: path, size: stored.size, contentType, lastModified: stored.lastModified.toISOString() }
    },

    async delete (userId: string, path: string) {
      if (!(await store.delete(keyOf(userId, path)))) throw new NotFoundError(`file not found: ${path}`)
    }
  }
}

export type FileService = ReturnType<typeof createFileService>
