import { Readable } from 'node:stream'
import { NotFoundError } from '../errors.js'
import type { FilePage, FileService } from './files.js'
import { compareKeys } from './object-store.js'
import { checkPrefix } from './paths.js'
import { zipOf, type ZipEntry, type ZipOptions } from './zip.js'

/**
 * Every file under `prefix` as one zip (storage/zip.ts), streamed: names relative to the prefix, and
 * the folders made on purpose (empty ones included) as folders' entries. The
 * files are listed a page at a time and read one after the other, each read opened while the one
 * before streams, so that a store's first-byte wait is not paid per file: memory holds one page and
 * two reads' buffers, whatever the size. Rejects with 404 when there is nothing under the prefix. A
 * failure later (a store gone mid-way) destroys the stream with it, so that the answer ends cut
 * off, never as a short zip that looks whole; a client that leaves stops the reads.
 */
export async function zipFolder (files: FileService, userId: string, prefix: string, options: ZipOptions = {}): Promise<Readable> {
  checkPrefix(prefix)
  const first = await files.list(userId, { prefix })
  if (first.files.length === 0 && !first.folders) throw new NotFoundError(`no files under ${prefix || 'your root'}`)
  return zipListed(files, userId, prefix, under(files, userId, prefix, first), options)
}

/**
 * Chosen files and folders of the folder `prefix` (names in it; a folder's ends in "/") as one zip,
 * as zipFolder makes it: names relative to `prefix`, a folder with everything under it. Rejects
 * with 404, before a byte is sent, naming the first chosen name that is not there.
 */
export async function zipSelection (files: FileService, userId: string, prefix: string, names: string[], options: ZipOptions = {}): Promise<Readable> {
  checkPrefix(prefix)
  // One look at a time, in order: up to 1,000 names are not 1,000 requests at once, and the 404 names
  // the first that is missing.
  const chosen: Array<{ file: Listed } | { folder: string, first: FilePage }> = []
  for (const name of [...new Set(names)].sort(compareKeys)) {
    const key = prefix + name
    if (!name.endsWith('/')) {
      chosen.push({ file: { key, lastModified: (await files.head(userId, key)).lastModified.toISOString() } })
      continue
    }
    const first = await files.list(userId, { prefix: key })
    if (first.files.length === 0 && !first.folders) throw new NotFoundError(`no folder or nothing under it: ${key}`)
    chosen.push({ folder: key, first })
  }
  async function * listed (): AsyncGenerator<Listed> {
    for (const item of chosen) {
      if ('file' in item) yield item.file
      else yield * under(files, userId, item.folder, item.first, true)
    }
  }
  return zipListed(files, userId, prefix, listed(), options)
}

interface Listed { key: string, lastModified: string }

/** Every file under `prefix` and the folders made on purpose in it (`a/b/`; `prefix` itself too when
 *  `withItself`), each page in key order, from its first page on. */
async function * under (files: FileService, userId: string, prefix: string, first: FilePage, withItself = false): AsyncGenerator<Listed> {
  for (let page = first; ; page = await files.list(userId, { prefix, continuationToken: page.continuationToken })) {
    const folders = (page.folders ?? []).filter((key) => withItself || key !== prefix).map((key) => ({ key, lastModified: new Date().toISOString() }))
    yield * [...page.files, ...folders].sort((a, b) => compareKeys(a.key, b.key))
    if (!page.isTruncated) return
  }
}

/** The zip of what `listed` names, each file read one after the other, one opened ahead (see zipFolder). */
function zipListed (files: FileService, userId: string, prefix: string, listed: AsyncGenerator<Listed>, options: ZipOptions): Readable {
  const open = async (file: Listed) => {
    if (file.key.endsWith('/')) return { name: file.key.slice(prefix.length), date: new Date(file.lastModified), size: 0, body: Readable.from([]) }
    const read = await files.read(userId, file.key)
    if (read.notModified) throw new Error('a read without conditions is never "not modified"')
    return { name: file.key.slice(prefix.length), date: new Date(file.lastModified), size: read.file.size, body: read.file.body }
  }
  const close = (entry: Promise<{ body: Readable }> | undefined) => entry?.then((opened) => opened.body.destroy(), () => {})

  async function * entries (): AsyncGenerator<ZipEntry> {
    let ahead: ReturnType<typeof open> | undefined
    try {
      for await (const file of listed) {
        const next = open(file)
        // A read opened ahead fails with the zip, not as an unhandled rejection.
        next.catch(() => {})
        const current = ahead
        ahead = next
        if (current) yield await current
      }
      const last = ahead
      ahead = undefined
      if (last) yield await last
    } finally {
      // The read opened ahead for a client that left, or for a zip that failed.
      await close(ahead)
    }
  }
  return Readable.from(zipOf(entries(), options), { objectMode: false })
}
