import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import { PreconditionFailedError } from '../../errors.js'
import {
  compareKeys, limitBytes, resolveRange, type ListOptions, type ObjectMeta, type ObjectStore, type RangeRequest, type StagedObject
} from '../../storage/object-store.js'

interface Kept { meta: ObjectMeta, body: Buffer }

/**
 * A store kept in memory, written as a host would write its own store for Stowage: it keeps bytes
 * and publishes them, with no lock, precondition or usage code (the publisher has all of that).
 */
export function createMemoryStore (): ObjectStore {
  const objects = new Map<string, Kept>()
  const info = ({ contentType: _, ...rest }: ObjectMeta) => rest

  const staged = (key: string, body: Buffer, contentType: string, stillCurrent = () => true): StagedObject => ({
    async publish () {
      if (!stillCurrent()) throw new PreconditionFailedError('the file changed while it was copied')
      const meta = { key, size: body.length, contentType, lastModified: new Date(), etag: `"${createHash('md5').update(body).digest('hex')}"` }
      objects.set(key, { meta, body })
      return meta
    },
    async discard () {}
  })

  return {
    writeBufferBytes: 64 * 1024,
    async check () {},

    async list (prefix: string, { startAfter, limit, delimiter }: ListOptions) {
      const keys = [...objects.keys()].filter((key) => key.startsWith(prefix)).sort(compareKeys)
      const entries = new Map<string, ObjectMeta | undefined>()
      for (const key of keys) {
        const slash = delimiter ? key.indexOf('/', prefix.length) : -1
        const entry = slash === -1 ? key : key.slice(0, slash + 1)
        if (startAfter === undefined || compareKeys(entry, startAfter) > 0) entries.set(entry, slash === -1 ? objects.get(key)!.meta : undefined)
      }
      const shown = [...entries].slice(0, limit)
      return {
        objects: shown.flatMap(([, meta]) => meta ? [info(meta)] : []),
        ...delimiter ? { folders: shown.filter(([, meta]) => !meta).map(([key]) => key) } : {},
        isTruncated: entries.size > limit
      }
    },

    async head (key: string) {
      return objects.get(key)?.meta
    },

    async read (key: string, request?: RangeRequest) {
      const kept = objects.get(key)
      if (!kept) return undefined
      const range = request && resolveRange(request, kept.meta.size)
      const body = range ? kept.body.subarray(range.start, range.end + 1) : kept.body
      return { ...kept.meta, range, body: Readable.from([body]) }
    },

    async stage (key, body, { contentType, maxBytes }) {
      const chunks: Buffer[] = []
      for await (const chunk of limitBytes(body, maxBytes)) chunks.push(chunk)
      return staged(key, Buffer.concat(chunks), contentType)
    },

    async stageCopy (source, to, { contentType } = {}) {
      const kept = objects.get(source.key)
      if (!kept) return undefined
      return staged(to, kept.body, contentType ?? kept.meta.contentType, () => objects.get(source.key)?.meta.etag === source.etag)
    },

    async delete (key) {
      objects.delete(key)
    }
  }
}
