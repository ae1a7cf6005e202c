// A body cut into S3's parts: in a few buffers used in turn, so that memory stays flat whatever its size.
import type { Bytes } from './object-store.js'

// Parts uploaded at once; one more fills meanwhile (defaults.ts's s3UploadBufferBytes counts them).
const PARALLEL_PARTS = 2
export const PART_BUFFERS = PARALLEL_PARTS + 1

/**
 * The body, re-cut into parts of exactly `partBytes` (the last holds the rest, and is empty only for
 * an empty body). Parts are copied into PART_BUFFERS buffers used in turn, so memory stays flat
 * however large the body: the caller is done with a part before the one after next is taken.
 * `onCopied` sees each run of bytes as it lands in its part, and whether the part begins with it.
 */
export async function * partsOf (body: Bytes, partBytes: number, onCopied?: (bytes: Buffer, partBegins: boolean) => Promise<void>): AsyncGenerator<Buffer> {
  const buffers: Buffer[] = []
  let turn = 0
  let part: Buffer | undefined
  let filled = 0
  for await (const chunk of body) {
    for (let at = 0; at < chunk.length;) {
      // A full part goes only once more bytes come, so that the last part is never empty.
      if (part && filled === partBytes) {
        yield part
        turn = (turn + 1) % PART_BUFFERS
        part = undefined
        filled = 0
      }
      part ??= buffers[turn] ??= Buffer.allocUnsafe(partBytes)
      const copied = chunk.copy(part, filled, at)
      filled += copied
      at += copied
      if (onCopied) await onCopied(part.subarray(filled - copied, filled), filled === copied)
    }
  }
  yield part ? part.subarray(0, filled) : Buffer.alloc(0)
}

/**
 * The body's chunks until they pass one part: the body itself when it ended before (a small upload
 * then takes no part buffer, 8 MiB each), else the chunks read and the rest, to be cut into parts.
 */
export async function firstPart (body: AsyncIterable<Buffer>, partBytes: number): Promise<{ whole: Buffer } | { rest: AsyncIterable<Buffer> }> {
  const iterator = body[Symbol.asyncIterator]()
  const read: Buffer[] = []
  let size = 0
  while (size <= partBytes) {
    const next = await iterator.next()
    if (next.done) return { whole: read.length === 1 ? read[0] : Buffer.concat(read, size) }
    read.push(next.value)
    size += next.value.length
  }
  return {
    rest: (async function * () {
      // Let go of each chunk once it is given: the part buffers hold it from then on.
      while (read.length > 0) yield read.shift() as Buffer
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value
    })()
  }
}

/** A body whole in memory (the JSON form's one buffer, or a small upload), cut into parts that share
 *  its bytes: none is copied into a part buffer. */
export async function * slicesOf (whole: Buffer, partBytes: number): AsyncGenerator<Buffer> {
  let at = 0
  do {
    yield whole.subarray(at, at + partBytes)
    at += partBytes
  } while (at < whole.length)
}

/**
 * Parts uploaded PARALLEL_PARTS at a time, the oldest awaited first: partsOf fills its buffers in
 * turn, so the buffer of the oldest part is the next one it fills. The first failure is thrown.
 */
export function partWindow () {
  const inFlight: Array<Promise<void>> = []
  let failure: unknown
  return {
    async add (upload: Promise<void>) {
      inFlight.push(upload.catch((error) => { failure ??= error }))
      if (inFlight.length >= PARALLEL_PARTS) await inFlight.shift()
      if (failure) throw failure
    },
    async drain () {
      await Promise.all(inFlight)
      if (failure) throw failure
    }
  }
}
