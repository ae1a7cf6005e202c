import { createHash, type Hash } from 'node:crypto'
import type { FileHandle } from 'node:fs/promises'
import { BadRequestError } from '../errors.js'

// An object file is a fixed header holding the content type and the ETag, then the body: one file,
// renamed into place whole, so that a body and its metadata can never part. Fixed, so that the
// body's size is the file's less the header.
export const HEADER_BYTES = 256
// The ETag (the body's MD5 in quotes, as S3 gives a single-part object) ends the header. Objects
// written before ETags have spaces there: theirs is computed on first need and written in.
export const ETAG_BYTES = 35
export const ETAG_AT = HEADER_BYTES - ETAG_BYTES
const ETAG = /^"[0-9a-f]{32}"\n$/
export const READ_CHUNK_BYTES = 256 * 1024
export const FILE_MODE = 0o600
export const DIR_MODE = 0o700

export function header (contentType: string): Buffer {
  if (Buffer.byteLength(contentType) >= ETAG_AT || /[\r\n]/.test(contentType)) {
    throw new BadRequestError(`contentType must be one line under ${ETAG_AT} bytes`)
  }
  const bytes = Buffer.alloc(HEADER_BYTES, ' ')
  bytes.write(contentType + '\n')
  return bytes
}

export const md5Etag = (hash: ReturnType<typeof createHash>) => `"${hash.digest('hex')}"`
export const etagBytes = (etag: string) => Buffer.from(etag + '\n', 'latin1')
export const contentTypeOf = (header: Buffer) => header.toString('latin1', 0, HEADER_BYTES).split('\n')[0]
/** Whether the content type leaves the header's last bytes free for the ETag. */
export const hasEtagRoom = (header: Buffer) => header.indexOf('\n') < ETAG_AT
export const etagOf = (header: Buffer) => {
  const slot = header.toString('latin1', ETAG_AT, HEADER_BYTES)
  return ETAG.test(slot) ? slot.slice(0, -1) : undefined
}

/** The MD5 ETag of an open object's body. */
export async function bodyEtag (handle: FileHandle): Promise<string> {
  const hash = createHash('md5')
  for await (const chunk of handle.createReadStream({ start: HEADER_BYTES, autoClose: false, highWaterMark: READ_CHUNK_BYTES })) hash.update(chunk)
  return md5Etag(hash)
}

/** Writes `chunks` from `position` on, each hashed while the thread pool writes it (in turn, the
 *  two took twice as long); resolves with the position reached. */
export async function writeHashed (handle: FileHandle, chunks: AsyncIterable<Buffer>, position: number, hash: Hash): Promise<number> {
  for await (const chunk of chunks) {
    const written = handle.write(chunk, 0, chunk.length, position)
    hash.update(chunk)
    await written
    position += chunk.length
  }
  return position
}
