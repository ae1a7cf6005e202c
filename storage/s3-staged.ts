import type { CompletedPart } from '@aws-sdk/client-s3'
import type { Readable } from 'node:stream'
import { checkStagedId, limitBytes, untilCut, type ObjectMeta, type StagedObject, type StagedWrites } from './object-store.js'
import { partsOf, partWindow } from './s3-parts.js'

// S3's least part, but for the last.
const MIN_PART_BYTES = 5 * 1024 * 1024
const MAX_PARTS = 10_000
// Where a resumable upload keeps the bytes that do not yet fill a part: outside every `users/` prefix.
const STAGING_PREFIX = 'stowage-uploads/'

interface S3StagedState {
  uploadId: string
  parts: Array<{ number: number, etag: string, size: number }>
  /** Bytes received after the last part, kept in the tail object that starts where the parts end. */
  tail: number
  /** A tail object the previous piece replaced: deleted once this state is known to be kept. */
  staleTail?: number
}

/** A part sent to the store as its `size` bytes arrive: `end` once they all came, else `abort`. */
export interface StreamedPart {
  size: number
  /** Resolves when the store can take more; does nothing once the part has failed. */
  write (bytes: Buffer): Promise<void>
  /** The part's ETag. */
  end (): Promise<string>
  abort (): void
}

export interface S3StagedOperations {
  partBytes: number
  begin (key: string, contentType: string): Promise<string>
  uploadPart (key: string, uploadId: string, number: number, part: Buffer): Promise<string>
  streamPart (key: string, uploadId: string, number: number, size: number): StreamedPart
  /** The upload's parts, to complete when published (and left as they are when not). */
  completion (key: string, uploadId: string, parts: CompletedPart[], size: number, contentType: string): StagedObject
  putEmpty (key: string, contentType: string, expected?: { current: ObjectMeta | undefined }): Promise<ObjectMeta>
  abort (key: string, uploadId: string): Promise<void>
  readTail (tailKey: string, bytes: number): Promise<Readable>
  putTail (tailKey: string, bytes: Buffer): Promise<void>
  deleteTail (tailKey: string): Promise<void>
}

/**
 * Resumable uploads on S3: one multipart upload on the final key, invisible until completed, whose
 * parts are recorded in the caller's state, so that no ListParts is needed (s3rver has none).
 * Pieces of any size: the bytes of a piece that do not fill a part (S3 takes at least 5 MiB but
 * for the last) wait in a tail object, read back before the next piece. A tail object is named by
 * where it starts, and always holds the upload's bytes from there: a state that a crash left behind
 * still reads the right prefix of whatever tail object carries its name.
 */
export function createS3StagedWrites (store: S3StagedOperations): StagedWrites {
  const tailKey = (id: string, start: number) => `${STAGING_PREFIX}${id}/${start}`
  const stateOf = (state: Record<string, unknown>) => state as unknown as S3StagedState
  const inParts = (parts: S3StagedState['parts']) => parts.reduce((bytes, part) => bytes + part.size, 0)

  return {
    async begin (id, key, contentType) {
      checkStagedId(id)
      const state: S3StagedState = { uploadId: await store.begin(key, contentType), parts: [], tail: 0 }
      return { ...state }
    },

    async append (id, key, recorded, body, { offset, length, announced }) {
      checkStagedId(id)
      const state = stateOf(recorded)
      const start = inParts(state.parts)
      if (start + state.tail !== offset) throw new Error(`staged upload ${id}: its parts do not end at offset ${offset}`)
      if (state.staleTail !== undefined) await store.deleteTail(tailKey(id, state.staleTail))
      // A part cut short by a piece's end must leave room for the rest within S3's 10,000 parts.
      const minPart = Math.max(MIN_PART_BYTES, Math.ceil(length / MAX_PARTS))
      const tail = state.tail > 0 ? await store.readTail(tailKey(id, start), state.tail) : undefined
      async function * source () {
        if (tail) yield * tail
        yield * limitBytes(untilCut(body, {}), length - offset)
      }
      const parts = [...state.parts]
      const window = partWindow()
      let partStart = start
      // A part the piece announces enough bytes to fill goes to the store as it arrives, rather than
      // once it is all here: the client's next piece waits for this one's answer.
      let streamed: StreamedPart | undefined
      let streamingFailed = false
      const onCopied = async (bytes: Buffer, partBegins: boolean) => {
        if (partBegins) {
          const size = Math.min(store.partBytes, length - partStart)
          streamed = !streamingFailed && announced !== undefined && partStart + size <= offset + announced
            ? store.streamPart(key, state.uploadId, parts.length + 1, size)
            : undefined
        }
        await streamed?.write(bytes)
      }
      const upload = (part: Buffer) => {
        const entry = { number: parts.length + 1, etag: '', size: part.length }
        parts.push(entry)
        const whole = () => store.uploadPart(key, state.uploadId, entry.number, part)
        const attempt = streamed
        streamed = undefined
        if (attempt && attempt.size !== part.length) attempt.abort()
        // A part whose streaming failed is sent again from its buffer, which the window keeps whole,
        // and the piece's next parts go whole.
        const sent = attempt?.size === part.length
          ? attempt.end().catch(async () => { streamingFailed = true; return await whole() })
          : whole()
        return window.add(sent.then((etag) => { entry.etag = etag }))
      }
      let nextTail = 0
      try {
        for await (const part of partsOf(source(), store.partBytes, onCopied)) {
          const reached = partStart + part.length
          // Only the upload's last part may be under S3's least; a short one before it waits in a tail object.
          if (part.length >= minPart || (part.length > 0 && reached === length)) {
            await upload(part)
          } else if (part.length > 0) {
            streamed?.abort()
            streamed = undefined
            await store.putTail(tailKey(id, partStart), part)
            nextTail = part.length
          }
          partStart = reached
        }
        await window.drain()
      } finally {
        // A store that failed mid-piece leaves no part waiting for bytes that will not come.
        streamed?.abort()
      }
      const reached = partStart
      const next: S3StagedState = { uploadId: state.uploadId, parts, tail: nextTail }
      const nextStart = reached - nextTail
      if (state.tail > 0 && (nextTail === 0 || nextStart !== start)) next.staleTail = start
      return { state: { ...next }, offset: reached }
    },

    async finish (id, key, recorded, contentType) {
      const state = stateOf(recorded)
      if (state.tail > 0) throw new Error(`staged upload ${id} is not complete`)
      if (state.staleTail !== undefined) await store.deleteTail(tailKey(id, state.staleTail))
      if (state.parts.length > 0) {
        return store.completion(key, state.uploadId, state.parts.map(({ number, etag }) => ({ PartNumber: number, ETag: etag })), inParts(state.parts), contentType)
      }
      // S3 has no multipart upload of no part: an empty file is one PutObject.
      return {
        async publish (expected) {
          const empty = await store.putEmpty(key, contentType, expected)
          await store.abort(key, state.uploadId)
          return empty
        },
        async discard () {}
      }
    },

    async discard (id, key, recorded) {
      const state = stateOf(recorded)
      await store.abort(key, state.uploadId)
      const start = inParts(state.parts)
      for (const at of [state.tail > 0 ? start : undefined, state.staleTail]) {
        if (at !== undefined) await store.deleteTail(tailKey(id, at))
      }
    }
  }
}
