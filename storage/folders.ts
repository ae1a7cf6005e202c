import { BadRequestError, ConflictError, NotFoundError } from '../errors.js'
import { inGroups } from '../limits.js'
import type { Owner } from '../db/usage.js'
import type { FileService } from './files.js'
import type { Preconditions } from './object-store.js'
import { checkPrefix } from './paths.js'

// Files copied or moved at once within a page: the store's calls overlap, memory stays one page.
const TOGETHER = 8

export interface FolderTransfer {
  files: number
  bytes: number
  /** Stopped at its time budget: the same request again goes on where it stopped. */
  isTruncated: boolean
}

/**
 * Copies or moves every file under the folder `from` to the same place under `to` (and the folders
 * made on purpose, empty ones included), page by page, a
 * few files at a time, until all are done or `deadline` (a time) passes. Each file is copied or moved
 * whole, or not at all; a move takes its files away, so the same request again finds only those
 * left and finishes the work. A file deleted meanwhile is skipped. `destination` (If-None-Match: *)
 * applies to each file: the first that exists stops the request with 412. Once `signal` is aborted
 * (the client left), no file is begun.
 */
export async function transferFolder (
  service: FileService, owner: Owner, operation: 'copy' | 'move', from: string, to: string,
  { destination, deadline, signal, moving }: {
    destination?: Preconditions, deadline: number, signal?: AbortSignal
    /** Called once a move is found to have something to move, before anything is: the folder's shares go along. */
    moving?: () => Promise<void>
  }
): Promise<FolderTransfer> {
  checkPrefix(from)
  checkPrefix(to)
  if (to !== '' && !to.endsWith('/')) throw new BadRequestError('to must be a folder (end in "/", or be empty for your root) when from is one')
  if (to.startsWith(from)) throw new ConflictError(`${to || 'your root'} is inside ${from}: a folder cannot be put inside itself`)
  // What is shared with the caller, moved whole: the mount is renamed, the owner's files stay.
  const itself = operation === 'move' ? await service.mountItself(owner.userId, from) : undefined
  if (itself) {
    await service.renameMount(owner.userId, itself, to)
    return { files: 0, bytes: 0, isTruncated: false }
  }
  const done = { files: 0, bytes: 0 }
  let continuationToken: string | undefined
  for (let first = true; ; first = false) {
    const page = await service.list(owner.userId, { prefix: from, continuationToken })
    if (first && page.files.length === 0 && !page.folders) throw new NotFoundError(`no files under ${from}`)
    if (first && operation === 'move') await moving?.()
    // Folders made on purpose go along, empty ones included.
    for (const folder of page.folders ?? []) {
      signal?.throwIfAborted()
      const destination = to + folder.slice(from.length)
      if (destination !== '') await service.makeFolder(owner.userId, destination)
      if (operation === 'move') await service.removeFolder(owner.userId, folder, { unlessEmpty: true })
    }
    await inGroups(page.files, TOGETHER, async (file) => {
      signal?.throwIfAborted()
      try {
        const result = await service[operation](owner, file.key, to + file.key.slice(from.length), { destination })
        done.files++
        done.bytes += result.size
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error
      }
    })
    if (!page.isTruncated) return { ...done, isTruncated: false }
    if (Date.now() >= deadline) return { ...done, isTruncated: true }
    continuationToken = page.continuationToken
  }
}

/** A file a folder's delete left, and the status that says why. */
export interface NotDeleted { path: string, status: number }

// A folder's delete names at most this many files it left (memory stays bounded).
const MOST_NOT_DELETED = 1000

/**
 * Deletes the folder `folder` (ending in "/") and everything under it: each file to the trash as a
 * DELETE sends it, page by page, a few at a time, and the folders made on purpose. A file deleted
 * meanwhile is skipped; one `kept` says must stay (locked), or whose delete fails, is left and
 * named in `notDeleted` (with its folders); memory stays one page.
 */
export async function deleteFolder (service: FileService, userId: string, folder: string, { kept = () => false }: { kept?: (path: string) => boolean } = {}) {
  checkPrefix(folder)
  let deleted = 0
  const notDeleted: NotDeleted[] = []
  // What is shared with the caller, deleted whole: they leave it, the owner's files stay.
  if (await service.mountItself(userId, folder)) {
    await service.removeFolder(userId, folder)
    return { deleted, notDeleted }
  }
  const leave = (path: string, status: number) => { if (notDeleted.length < MOST_NOT_DELETED) notDeleted.push({ path, status }) }
  let continuationToken: string | undefined
  do {
    const page = await service.list(userId, { prefix: folder, continuationToken })
    await inGroups(page.files, TOGETHER, async (file) => {
      if (kept(file.key)) return leave(file.key, 423)
      try {
        await service.delete(userId, file.key)
        deleted++
      } catch (error) {
        if (!(error instanceof NotFoundError)) leave(file.key, (error as { statusCode?: number }).statusCode ?? 500)
      }
    })
    // A folder's marker, once its files are gone (the listing goes on after its last key).
    for (const made of page.folders ?? []) if (!kept(made)) await service.removeFolder(userId, made, { unlessEmpty: true })
    continuationToken = page.isTruncated ? page.continuationToken : undefined
  } while (continuationToken)
  return { deleted, notDeleted }
}
