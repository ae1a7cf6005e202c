import type { Readable } from 'node:stream'
import { crc32 } from 'node:zlib'
import CRC32 from 'crc-32'
import ZipStream from 'zip-stream'
import { NotFoundError } from '../errors.js'
import type { FileService } from './files.js'
import { checkPrefix } from './paths.js'

// zip-stream sums every byte with the crc-32 package, in JavaScript (2.4 GB/s here), which held a zip
// of files on a fast disk to half a raw read. Node's own CRC-32 is native (6.9 GB/s) and gives the
// same sums (crc-32's signed form; its first seed is a Buffer, read as 0).
CRC32.buf = (data: Uint8Array | number[], seed?: number) => crc32(data instanceof Uint8Array ? data : Uint8Array.from(data), Number(seed) >>> 0) | 0

// An entry with a Unix mode is written as "made by Unix": Info-ZIP's unzip reads the names of
// entries made by MS-DOS as code page 437 whatever their UTF-8 flag, and garbles every accent.
const FILE_MODE = 0o644

/**
 * Every file under `prefix` as one zip, streamed: names relative to the prefix, in UTF-8, stored
 * as they are (no compression: most of what people keep is compressed already, and the archive runs
 * at the store's speed), ZIP64 past 4 GiB (zip-stream, archiver's zip writer, decides). The files
 * are listed a page at a time and read one after the other, each as its turn comes: memory holds one
 * page and one read's buffers, whatever the size. Rejects with 404 when there is nothing under the
 * prefix. A failure later (a store gone mid-way) destroys the stream with it, so that the answer
 * ends cut off, never as a short zip that looks whole; a client that leaves stops the reads.
 */
export async function zipFolder (files: FileService, userId: string, prefix: string): Promise<Readable> {
  checkPrefix(prefix)
  let page = await files.list(userId, { prefix })
  if (page.files.length === 0) throw new NotFoundError(`no files under ${prefix || 'your root'}`)
  const zip = new ZipStream({ store: true })
  let reading: Readable | undefined
  let closed = false
  zip.once('close', () => {
    closed = true
    reading?.destroy()
  })

  /** The files in order, each read opened while the one before streams: a store's first-byte wait is not paid per file. */
  async function * entries () {
    for (;;) {
      for (const file of page.files) yield file
      if (!page.isTruncated) return
      page = await files.list(userId, { prefix, continuationToken: page.continuationToken })
    }
  }
  const open = (file: { key: string, lastModified: string }) => files.read(userId, file.key).then((read) => ({ file, read }))

  async function add ({ file, read }: Awaited<ReturnType<typeof open>>) {
    if (read.notModified) return
    reading = read.file.body
    if (closed) return reading.destroy()
    await new Promise<void>((resolve, reject) => {
      read.file.body.once('error', reject)
      zip.entry(read.file.body, { name: file.key.slice(prefix.length), date: new Date(file.lastModified), mode: FILE_MODE }, (error) => error ? reject(error) : resolve())
    })
  }

  void (async () => {
    let current: ReturnType<typeof open> | undefined
    for await (const file of entries()) {
      if (closed) break
      const next = open(file)
      // A read opened ahead fails with the zip, not as an unhandled rejection.
      next.catch(() => {})
      if (current) await add(await current)
      current = next
    }
    // The last read, or the one opened ahead for a client that left, which add() closes.
    if (current) await add(await current)
    if (!closed) await zip.finalize()
  })().catch((error) => {
    zip.destroy(error)
  })
  return zip as unknown as Readable
}
