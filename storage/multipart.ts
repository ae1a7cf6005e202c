import { createHash, randomBytes } from 'node:crypto'
import type { MultipartRepository, MultipartUpload, Part } from '../db/multipart.js'
import type { Owner } from '../db/usage.js'
import { PayloadTooLargeError } from '../errors.js'
import type { FileService } from './files.js'
import type { Bytes, Metadata, ObjectStore, Preconditions } from './object-store.js'
import type { Quotas } from './quotas.js'

export const MULTIPART_PREFIX = 'stowage-multipart/'
export const MAX_PART_NUMBER = 10_000
// Every part but the last is at least this long, as S3 requires.
export const MIN_PART_BYTES = 5 * 1024 * 1024

export class MultipartError extends Error {
  name = 'MultipartError'
  constructor (readonly reason: 'no-upload' | 'invalid-part' | 'part-order' | 'too-small', message: string) {
    super(message)
  }
}

const md5Etag = (hash: ReturnType<typeof createHash>) => `"${hash.digest('hex')}"`

/** `body`, its bytes counted and hashed as they pass. */
function measured (body: Bytes) {
  const hash = createHash('md5')
  let size = 0
  const bytes = (async function * () {
    for await (const chunk of body) {
      hash.update(chunk)
      size += chunk.length
      yield chunk
    }
  })()
  return { bytes, result: () => ({ size, etag: md5Etag(hash) }) }
}

/**
 * Multipart uploads (S3's), their parts counted in the user's unfinished uploads from the moment
 * they arrive (a part over the quota is refused). Where the store makes multipart uploads itself
 * (the S3 driver), an upload is one of the store's at the file's key: each part goes straight to it
 * as it arrives, and completing it is the store's one request, published as a write is (the
 * publisher, versions, the journal). Elsewhere (fs) each part is an object of its own outside the
 * user's files, joined in order into one write of the file by the file API at completion.
 */
export function createMultipart ({ store, files, quotas, repository, maxUploadBytes }: { store: ObjectStore, files: FileService, quotas: Quotas, repository: MultipartRepository, maxUploadBytes: number }) {
  const native = files.nativeUploads
  const partKey = (upload: MultipartUpload, partNumber: number) => `${MULTIPART_PREFIX}${upload.userId}/${upload.id}/${partNumber}-${randomBytes(4).toString('hex')}`

  /** The key the upload publishes at. */
  const keyOfUpload = (upload: MultipartUpload) => upload.intoKey ?? files.ownKey(upload.userId, upload.path)
  /** Whose room its parts hold: the key's owner (a mount's owner, for an upload into a mount). */
  const accountOf = (upload: MultipartUpload) => files.userOfKey(keyOfUpload(upload)) ?? upload.userId
  /** Where the upload still goes for its caller: 404 once the share it went into has ended. */
  const targetOf = (caller: Owner, upload: MultipartUpload) => files.uploadTarget(caller, upload.path, keyOfUpload(upload))

  async function owned (userId: string, id: string): Promise<MultipartUpload> {
    const upload = await repository.find(userId, id)
    if (!upload) throw new MultipartError('no-upload', 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.')
    return upload
  }

  /** Removes parts (objects of their own; a part of the store's own upload goes with the upload) and gives their room back. */
  async function discard (upload: MultipartUpload, parts: Part[]) {
    await Promise.all(parts.filter((part) => part.objectKey !== '').map((part) => store.delete(part.objectKey)))
    const bytes = parts.reduce((total, part) => total + part.size, 0)
    if (bytes > 0) await quotas.change(accountOf(upload), { uploadBytes: -bytes })
  }

  /** Removes an unfinished upload, once, whoever else tries: its parts, the store's upload, their
   *  room. True when this call removed it. */
  async function end (upload: MultipartUpload): Promise<boolean> {
    const parts = await repository.remove(upload.id)
    if (!parts) return false
    if (upload.storeUploadId) await native!.abort(keyOfUpload(upload), upload.storeUploadId)
    await discard(upload, parts)
    return true
  }

  /** Sends the part where it is kept; resolves with where and its ETag. */
  async function sendPart (upload: MultipartUpload, partNumber: number, body: Bytes, length: number): Promise<{ objectKey: string, etag: string }> {
    if (upload.storeUploadId) return { objectKey: '', etag: await native!.upload(keyOfUpload(upload), upload.storeUploadId, partNumber, body, length) }
    const key = partKey(upload, partNumber)
    const counted = measured(body)
    try {
      const staged = await store.stage(key, counted.bytes, { contentType: 'application/octet-stream', maxBytes: length })
      await staged.publish()
      const stored = counted.result()
      if (stored.size !== length) throw new MultipartError('invalid-part', `the part had ${stored.size} bytes, not the ${length} its length said`)
      return { objectKey: key, etag: stored.etag }
    } catch (error) {
      await store.delete(key).catch(() => {})
      throw error
    }
  }

  return {
    async create (owner: Owner, path: string, contentType: string, metadata?: string): Promise<MultipartUpload> {
      // The file API's rules, before any part is sent (a viewer's upload into a mount is 403).
      await files.checkWritable(owner.userId, path, {})
      const { key } = await files.uploadTarget(owner, path)
      const storeUploadId = native && await native.begin(key, contentType)
      const upload = { id: randomBytes(24).toString('base64url'), userId: owner.userId, orgId: owner.orgId ?? null, path, contentType, createdAt: new Date(), metadata, intoKey: key, ...storeUploadId ? { storeUploadId } : {} }
      await repository.add(upload)
      return upload
    },

    find: owned,

    /** Stores part `partNumber` (replacing one of that number); resolves with its ETag. */
    async uploadPart (owner: Owner, id: string, partNumber: number, body: Bytes, length: number) {
      const upload = await owned(owner.userId, id)
      if (length > maxUploadBytes) throw new PayloadTooLargeError(`a part is at most MAX_UPLOAD_BYTES, ${maxUploadBytes} bytes`)
      const { account, claim } = await targetOf(owner, upload)
      await claim(length)
      let sent: { objectKey: string, etag: string }
      try {
        sent = await sendPart(upload, partNumber, body, length)
      } catch (error) {
        await quotas.change(account.userId, { uploadBytes: -length })
        throw error
      }
      const part = { partNumber, size: length, ...sent, uploadedAt: new Date() }
      // Aborted or completed meanwhile: this part goes too.
      if (!await repository.find(owner.userId, id)) {
        await discard(upload, [part])
        throw new MultipartError('no-upload', 'The specified upload does not exist: it was aborted or completed.')
      }
      // One of the same number sent before: the store's own upload replaced it already.
      const replaced = await repository.putPart(id, part)
      if (replaced) await discard(upload, [replaced])
      return sent.etag
    },

    parts: async (userId: string, id: string, after?: number, limit?: number) => {
      await owned(userId, id)
      return await repository.parts(id, after, limit)
    },

    list: (userId: string, prefix: string, limit: number, after?: { path: string, id: string }) => repository.list(userId, prefix, limit, after),

    /**
     * Joins the parts `chosen` names (each with its ETag, in increasing order) into the file: one
     * write through the file API, its preconditions applying to the file it replaces.
     */
    async complete (owner: Owner, id: string, chosen: Array<{ partNumber: number, etag: string }>, preconditions: Preconditions) {
      const upload = await owned(owner.userId, id)
      const { key } = await targetOf(owner, upload)
      const stored = new Map((await repository.parts(id)).map((part) => [part.partNumber, part]))
      const parts = chosen.map(({ partNumber, etag }, at) => {
        if (at > 0 && partNumber <= chosen[at - 1].partNumber) throw new MultipartError('part-order', 'The list of parts was not in ascending order. The parts list must be specified in order by part number.')
        const part = stored.get(partNumber)
        if (!part || part.etag.replace(/"/g, '') !== etag.replace(/"/g, '')) {
          throw new MultipartError('invalid-part', 'One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part\'s entity tag.')
        }
        return part
      })
      if (parts.length === 0) throw new MultipartError('invalid-part', 'You must specify at least one part.')
      if (parts.slice(0, -1).some((part) => part.size < MIN_PART_BYTES)) throw new MultipartError('too-small', 'Your proposed upload is smaller than the minimum allowed object size.')
      const metadata = JSON.parse(upload.metadata ?? '{}') as Metadata
      if (upload.storeUploadId) {
        // Parts not chosen go with the store's upload; every part's room stops counting as an upload.
        const uploadBytes = [...stored.values()].reduce((total, part) => total + part.size, 0)
        const written = await native!.complete(key, upload.path, upload.storeUploadId, parts, { contentType: upload.contentType, preconditions, metadata, uploadBytes })
        await repository.remove(id)
        return { ...written, upload }
      }
      const length = parts.reduce((total, part) => total + part.size, 0)
      const joined = (async function * () {
        for (const part of parts) {
          const read = await store.read(part.objectKey)
          if (!read) throw new MultipartError('invalid-part', `part ${part.partNumber} is gone`)
          for await (const chunk of read.body) yield chunk as Buffer
        }
      })()
      const written = await files.write(owner, upload.path, joined, { contentType: upload.contentType, maxBytes: maxUploadBytes, preconditions, length, metadata })
      const all = await repository.remove(id)
      if (all) await discard(upload, all)
      return { ...written, upload }
    },

    async abort (userId: string, id: string) {
      await end(await owned(userId, id))
    },

    /** Aborts the uploads begun before `before`; resolves with how many. */
    async sweep (before: Date): Promise<number> {
      let removed = 0
      for (const upload of await repository.older(before, 100)) if (await end(upload)) removed++
      return removed
    }
  }
}

export type Multipart = ReturnType<typeof createMultipart>
