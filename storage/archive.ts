import type { Readable } from 'node:stream'
import { ZipFile } from 'yazl'
import { NotFoundError } from '../errors.js'
import type { FileService } from './files.js'
import { checkPrefix } from './paths.js'

/**
 * Every file under `prefix` as one zip, streamed: names relative to the prefix, in UTF-8, stored
 * as they are (no compression: most of what people keep is compressed already, and the archive runs
 * at the store's speed), ZIP64 past 4 GiB (yazl decides per entry). Files are listed a page at a
 * time, each page added as the zip reaches the end of the one before, and each file read only when
 * its turn comes: memory holds one page and one read's buffers, whatever the size. Rejects with 404
 * when there is nothing under the prefix. A failure later (a store gone mid-way) destroys the stream
 * with it, so that the answer ends cut off, never as a short zip that looks whole.
 */
export async function zipFolder (files: FileService, userId: string, prefix: string): Promise<Readable> {
  checkPrefix(prefix)
  const zip = new ZipFile()
  const output = zip.outputStream as Readable
  const fail = (error: unknown) => output.destroy(error as Error)
  zip.on('error', fail)

  async function addPage (continuationToken?: string) {
    const page = await files.list(userId, { prefix, continuationToken })
    page.files.forEach((file, index) => {
      const last = index === page.files.length - 1
      zip.addReadStreamLazy(file.key.slice(prefix.length), { compress: false, mtime: new Date(file.lastModified) }, (give) => {
        if (last && page.isTruncated) addPage(page.continuationToken).catch(fail)
        files.read(userId, file.key).then(({ file: read }) => {
          if ('body' in read) {
            read.body.once('error', fail)
            give(null, read.body)
          }
        }, fail)
      })
    })
    if (!page.isTruncated) zip.end()
    return page.files.length
  }

  if (await addPage() === 0) throw new NotFoundError(`no files under ${prefix || 'your root'}`)
  return output
}
