import { createHash, randomUUID } from 'node:crypto'
import type { Stats } from 'node:fs'
import { constants, copyFile, link, mkdir, open, readdir, readFile, rename, rm, rmdir, stat, unlink, utimes, writeFile, type FileHandle } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { BadRequestError, PreconditionFailedError } from '../errors.js'
import {
  compareKeys, limitBytes, resolveRange,
  type Bytes, type CopyOptions, type ListOptions, type ListPage, type ObjectMeta, type ObjectRead, type ObjectStore, type RangeRequest, type StagedObject
} from './object-store.js'
import {
  bodyEtag, contentTypeOf, DIR_MODE, ETAG_AT, ETAG_BYTES, etagBytes, etagOf, FILE_MODE, hasEtagRoom, header, HEADER_BYTES, md5Etag, READ_CHUNK_BYTES, writeHashed
} from './fs-object-file.js'
import { createStagedWrites } from './fs-staged.js'

// Folders end in `.d` and objects in `.o`, so that `a` and `a/b` can both exist, as they can in S3,
// and no key can name the temporary folder or the layout marker.
const DIR = '.d'
const OBJECT = '.o'
// Version 1 kept the body in `<name>.f` and its content type in `<name>.m`.
const LAYOUT_MARKER = '.layout'
const LAYOUT_VERSION = '2'
const LEGACY_BODY = '.f'
const LEGACY_META = '.m'
// Older temporary files belong to a writer that died; younger ones may be another instance's.
const TMP_MAX_AGE_MS = 10 * 60_000
// A folder emptied by a concurrent delete can vanish during mkdir, or between mkdir and rename.
const PUBLISH_ATTEMPTS = 50
// A body up to this long is held whole before it is written, so that it costs the thread pool one
// write rather than one a chunk and one for the header.
const SMALL_BODY_BYTES = 128 * 1024

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code

/** A page's objects as a listing shows them: a key deleted since its folder was read is left out. */
const listed = (heads: Array<ObjectMeta | undefined>) => heads.filter((object) => object !== undefined).map(({ contentType: _, ...info }) => info)
// A name too long for the file system cannot exist: reads treat it as missing.
const isMissing = (error: unknown) => errorCode(error) === 'ENOENT' || errorCode(error) === 'ENAMETOOLONG'

async function ifPresent<T> (work: Promise<T>): Promise<T | undefined> {
  try {
    return await work
  } catch (error) {
    if (isMissing(error)) return undefined
    throw error
  }
}

interface FolderEntry { name: string, key: string, bytes: Buffer, folder: boolean }

export function createFsStore (rootDir: string): ObjectStore {
  const root = resolve(rootDir)
  const tmpDir = join(root, '.tmp')
  const folderPath = (segments: string[]) => join(root, ...segments.map((segment) => segment + DIR))

  function locate (key: string) {
    const segments = key.split('/')
    const name = segments.pop() as string
    const dir = folderPath(segments)
    return { dir, file: join(dir, name + OBJECT) }
  }

  /** What the header and a stat of an open object say; a missing ETag is computed and kept. */
  async function metaOf (handle: FileHandle, key: string): Promise<ObjectMeta> {
    const [stats, { buffer }] = await Promise.all([handle.stat(), handle.read(Buffer.alloc(HEADER_BYTES), 0, HEADER_BYTES, 0)])
    const etag = etagOf(buffer) ?? await rememberEtag(handle, key, buffer, stats)
    return { key, size: stats.size - HEADER_BYTES, lastModified: stats.mtime, contentType: contentTypeOf(buffer), etag }
  }

  /** An object written before ETags: hashed once, and the ETag written into its header, unless the
   *  object was replaced meanwhile (or its content type fills the header: then it is hashed each time). */
  async function rememberEtag (handle: FileHandle, key: string, headerBytes: Buffer, stats: Stats): Promise<string> {
    const etag = await bodyEtag(handle)
    if (!hasEtagRoom(headerBytes)) return etag
    const writable = await ifPresent(open(locate(key).file, 'r+'))
    if (!writable) return etag
    try {
      const now = await writable.stat()
      if (now.ino === stats.ino && now.dev === stats.dev) {
        await writable.write(etagBytes(etag), 0, ETAG_BYTES, ETAG_AT)
        // Naming the ETag is not a change of the file.
        await writable.utimes(stats.atime, stats.mtime)
      }
    } finally {
      await writable.close()
    }
    return etag
  }

  async function head (key: string): Promise<ObjectMeta | undefined> {
    const handle = await ifPresent(open(locate(key).file, 'r'))
    if (!handle) return undefined
    try {
      return await metaOf(handle, key)
    } finally {
      await handle.close()
    }
  }

  /** A new temporary file made by `create`; its folder is made by open(), and again here if it was removed since. */
  async function temporary<T> (create: (path: string) => Promise<T>): Promise<{ path: string, made: T }> {
    const path = join(tmpDir, randomUUID())
    const made = await create(path).catch(async (error) => {
      if (errorCode(error) !== 'ENOENT' || await ifPresent(stat(tmpDir))) throw error
      await mkdir(tmpDir, { recursive: true, mode: DIR_MODE })
      return create(path)
    })
    return { path, made }
  }

  async function createTemporary (): Promise<{ path: string, handle: FileHandle }> {
    const { path, made } = await temporary((path) => open(path, 'wx', FILE_MODE))
    return { path, handle: made }
  }

  /**
   * The object at `key` in a temporary file, its ETag sealed in; undefined when there is no such
   * object. A hard link, so that no byte is copied (objects are replaced by a rename, never written
   * in place); a copy (a reflink where the file system has them) where links are not allowed.
   */
  async function copyToTemporary (key: string, contentType?: string) {
    const source = locate(key).file
    let copied
    // A new content type is written into the copy's header: a link would write it into the source's.
    let linked = contentType === undefined
    try {
      copied = await temporary(async (path) => {
        if (linked) {
          try {
            return await link(source, path)
          } catch (error) {
            if (!['EPERM', 'EXDEV', 'EMLINK', 'ENOTSUP'].includes(errorCode(error) ?? '')) throw error
            linked = false
          }
        }
        return await copyFile(source, path, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE)
      })
    } catch (error) {
      if (isMissing(error)) return undefined
      throw error
    }
    const handle = await open(copied.path, 'r+')
    try {
      const [{ size }, { buffer }] = await Promise.all([handle.stat(), handle.read(Buffer.alloc(HEADER_BYTES), 0, HEADER_BYTES, 0)])
      let etag = etagOf(buffer)
      if (!etag) {
        // Copied from an object written before ETags: the copy is this one's own, so it is written in here.
        etag = await bodyEtag(handle)
        if (hasEtagRoom(buffer)) await handle.write(etagBytes(etag), 0, ETAG_BYTES, ETAG_AT)
      }
      if (contentType !== undefined) await handle.write(header(contentType), 0, ETAG_AT, 0)
      return { path: copied.path, etag, size: size - HEADER_BYTES, contentType: contentType ?? contentTypeOf(buffer), linked }
    } catch (error) {
      await rm(copied.path, { force: true })
      throw error
    } finally {
      await handle.close()
    }
  }

  async function writeTemporary (parts: Buffer[]): Promise<string> {
    const { path, handle } = await createTemporary()
    try {
      await handle.writev(parts)
    } finally {
      await handle.close()
    }
    return path
  }

  /** The body into a temporary file, after its header; resolves with the file and its ETag. A body
   *  of at most SMALL_BODY_BYTES is read before its file is made, and written with its header at once. */
  async function stage (body: Bytes, contentType: string, maxBytes: number) {
    const headerBytes = header(contentType)
    const hash = createHash('md5')
    const chunks = limitBytes(body, maxBytes)[Symbol.asyncIterator]()
    const first: Buffer[] = []
    let firstBytes = 0
    let ended = false
    while (!ended && firstBytes <= SMALL_BODY_BYTES) {
      const next = await chunks.next()
      if (next.done === true) ended = true
      else {
        first.push(next.value)
        firstBytes += next.value.length
        hash.update(next.value)
      }
    }
    const { path, handle } = await createTemporary()
    let stored = false
    try {
      if (ended) {
        const etag = md5Etag(hash)
        etagBytes(etag).copy(headerBytes, ETAG_AT)
        await handle.writev([headerBytes, ...first], 0)
        stored = true
        return { path, etag, size: firstBytes }
      }
      await handle.writev(first, HEADER_BYTES)
      const rest = { [Symbol.asyncIterator]: () => chunks }
      const position = await writeHashed(handle, rest, HEADER_BYTES + firstBytes, hash)
      const etag = md5Etag(hash)
      etagBytes(etag).copy(headerBytes, ETAG_AT)
      await handle.write(headerBytes, 0, HEADER_BYTES, 0)
      stored = true
      return { path, etag, size: position - HEADER_BYTES }
    } finally {
      await handle.close()
      if (!stored) await rm(path, { force: true })
    }
  }

  /** A complete temporary object, published at `key` by a rename. What it answers is what it
   *  published, not read back. `owned`: discarding it removes the file (a resumable upload's is its
   *  own). `linked`: it shares its file with another object, whose time it keeps. */
  function publishable (path: string, key: string, { etag, size, contentType, linked }: { etag: string, size: number, contentType: string, linked?: Date }, owned = true): StagedObject {
    const { dir, file } = locate(key)
    return {
      async publish () {
        // Published now: an upload that began before another and ended after it is the newer.
        const now = linked ?? new Date()
        if (!linked) await utimes(path, now, now)
        if (!await publish(path, dir, file).catch((error) => { throw tooLong(error) })) throw new Error(`${path} vanished before it was published`)
        return { key, size, lastModified: now, contentType, etag }
      },
      async discard () {
        if (owned) await rm(path, { force: true })
      }
    }
  }

  const tooLong = (error: unknown) => errorCode(error) === 'ENAMETOOLONG'
    ? new BadRequestError('a path segment is too long for this storage driver (fs: 253 bytes)')
    : error

  /** Renames `from` to `to`, making `to`'s folder; false when `from` itself is gone (a move whose
   *  source another instance took: SQLite's key locks are per instance). */
  async function publish (from: string, dir: string, to: string): Promise<boolean> {
    // Most writes go to a folder that is there: the rename is tried before the folder is made.
    for (let attempt = 1; ; attempt++) {
      try {
        if (attempt > 1) await mkdir(dir, { recursive: true, mode: DIR_MODE })
        await rename(from, to)
        return true
      } catch (error) {
        // Node's recursive mkdir reports ENOTDIR when a folder it found vanishes before it looks again.
        if (!['ENOENT', 'ENOTDIR'].includes(errorCode(error) ?? '') || attempt === PUBLISH_ATTEMPTS) throw error
        if (!await ifPresent(stat(from))) return false
        // Deletes keep emptying and removing the folder between mkdir and rename: a random pause,
        // growing with each loss, lets a run of them pass instead of racing it in lockstep.
        if (attempt > 2) await sleep(Math.random() * attempt)
      }
    }
  }

  async function removeEmptyParents (dir: string) {
    for (let current = dir; current.startsWith(root + '/') && current !== root; current = resolve(current, '..')) {
      try {
        await rmdir(current)
      } catch {
        return
      }
    }
  }

  /** The entries of one folder in the byte order of their keys; a folder's key ends in `/`, so its
   *  whole subtree sorts as one block at that place. */
  async function readFolder (dir: string, keyPrefix: string): Promise<FolderEntry[]> {
    const dirents = await ifPresent(readdir(dir, { withFileTypes: true })) ?? []
    const entries: FolderEntry[] = []
    for (const dirent of dirents) {
      const folder = dirent.isDirectory() && dirent.name.endsWith(DIR)
      if (!folder && !(dirent.isFile() && dirent.name.endsWith(OBJECT))) continue
      const key = keyPrefix + dirent.name.slice(0, -(folder ? DIR : OBJECT).length) + (folder ? '/' : '')
      entries.push({ name: dirent.name, key, bytes: Buffer.from(key), folder })
    }
    return entries.sort((a, b) => Buffer.compare(a.bytes, b.bytes))
  }

  /** Keys under `prefix` after `startAfter`, in order, read one folder at a time: folders that sort
   *  wholly before `startAfter` are never opened, and the walk stops when the caller has enough. */
  async function * keysFrom (dir: string, keyPrefix: string, prefix: string, startAfter: string | undefined): AsyncGenerator<string> {
    for (const entry of await readFolder(dir, keyPrefix)) {
      if (!entry.key.startsWith(prefix) && !(entry.folder && prefix.startsWith(entry.key))) continue
      if (entry.folder) {
        const whollyBefore = startAfter !== undefined && compareKeys(entry.key, startAfter) < 0 && !startAfter.startsWith(entry.key)
        if (!whollyBefore) yield * keysFrom(join(dir, entry.name), entry.key, prefix, startAfter)
      } else if (startAfter === undefined || compareKeys(entry.key, startAfter) > 0) {
        yield entry.key
      }
    }
  }

  async function sweepTemporaryFiles () {
    for (const name of await ifPresent(readdir(tmpDir)) ?? []) {
      const path = join(tmpDir, name)
      const stats = await ifPresent(stat(path))
      if (stats && Date.now() - stats.mtimeMs > TMP_MAX_AGE_MS) await rm(path, { force: true })
    }
  }

  /** Rewrites version-1 objects (body and content type in two files) as one file each. */
  async function upgradeLayout (dir: string) {
    for (const dirent of await ifPresent(readdir(dir, { withFileTypes: true })) ?? []) {
      const path = join(dir, dirent.name)
      if (dirent.isDirectory() && dirent.name.endsWith(DIR)) await upgradeLayout(path)
      if (!dirent.isFile() || !dirent.name.endsWith(LEGACY_BODY)) continue
      const base = path.slice(0, -LEGACY_BODY.length)
      const body = await ifPresent(readFile(path))
      if (!body) continue
      const meta = await ifPresent(readFile(base + LEGACY_META, 'utf8'))
      const { contentType } = meta ? JSON.parse(meta) as { contentType: string } : { contentType: 'application/octet-stream' }
      await rename(await writeTemporary([header(contentType), body]), base + OBJECT)
      // Its ETag is computed on first need.
      await rm(path, { force: true })
      await rm(base + LEGACY_META, { force: true })
    }
  }

  return {
    // A write holds a small body whole, a larger one a chunk of the request at a time.
    writeBufferBytes: SMALL_BODY_BYTES + 64 * 1024,

    async open () {
      await mkdir(tmpDir, { recursive: true, mode: DIR_MODE })
      const marker = join(root, LAYOUT_MARKER)
      if ((await ifPresent(readFile(marker, 'utf8')))?.trim() !== LAYOUT_VERSION) {
        await upgradeLayout(root)
        await writeFile(marker, LAYOUT_VERSION + '\n', { mode: FILE_MODE })
      }
      await sweepTemporaryFiles()
    },

    async check () {
      const probe = await writeTemporary([Buffer.from('ok')])
      await rm(probe, { force: true })
    },

    async list (prefix: string, { startAfter, limit, delimiter }: ListOptions): Promise<ListPage> {
      const folders = prefix.split('/').slice(0, -1)
      const [dir, keyPrefix] = [folderPath(folders), folders.map((f) => f + '/').join('')]
      if (delimiter) {
        // One folder read, whatever lies below it.
        const entries = (await readFolder(dir, keyPrefix))
          .filter((entry) => entry.key.startsWith(prefix) && (startAfter === undefined || compareKeys(entry.key, startAfter) > 0))
        const shown = entries.slice(0, limit)
        const files = await Promise.all(shown.filter((entry) => !entry.folder).map((entry) => head(entry.key)))
        return {
          objects: listed(files),
          folders: shown.filter((entry) => entry.folder).map((entry) => entry.key),
          isTruncated: entries.length > limit
        }
      }
      const keys: string[] = []
      for await (const key of keysFrom(dir, keyPrefix, prefix, startAfter)) {
        keys.push(key)
        if (keys.length > limit) break
      }
      const page = await Promise.all(keys.slice(0, limit).map(head))
      return {
        objects: listed(page),
        isTruncated: keys.length > limit
      }
    },

    head,

    async read (key: string, request?: RangeRequest): Promise<ObjectRead | undefined> {
      // One open file: a concurrent rename or unlink cannot mix two versions.
      const handle = await ifPresent(open(locate(key).file, 'r'))
      if (!handle) return undefined
      try {
        const meta = await metaOf(handle, key)
        const range = request && resolveRange(request, meta.size)
        const { start, end } = range ?? { start: 0, end: meta.size - 1 }
        if (end < start) {
          await handle.close()
          return { ...meta, body: Readable.from([]), range }
        }
        // The stream owns the handle from here, and closes it.
        const body = handle.createReadStream({ start: HEADER_BYTES + start, end: HEADER_BYTES + end, highWaterMark: READ_CHUNK_BYTES })
        return { ...meta, body, range }
      } catch (error) {
        await handle.close()
        throw error
      }
    },

    async stage (key: string, body: Bytes, { contentType, maxBytes }) {
      const staged = await stage(body, contentType, maxBytes)
      return publishable(staged.path, key, { ...staged, contentType })
    },

    staged: createStagedWrites(join(root, '.uploads'), (path, key, meta) => publishable(path, key, meta, false)),

    /** A copy of the file as it is now (a reflink where the file system has them): the version `source` names, or 412. */
    async stageCopy (source: ObjectMeta, to: string, { contentType }: CopyOptions = {}) {
      const copied = await copyToTemporary(source.key, contentType)
      if (!copied) return undefined
      if (copied.etag !== source.etag) {
        await rm(copied.path, { force: true })
        throw new PreconditionFailedError('the file changed while it was copied')
      }
      return publishable(copied.path, to, { ...copied, linked: copied.linked ? source.lastModified : undefined })
    },

    async rename (source: ObjectMeta, to: string) {
      const [from, destination] = [locate(source.key), locate(to)]
      const moved = await publish(from.file, destination.dir, destination.file).catch((error) => { throw tooLong(error) })
      if (!moved) return undefined
      await removeEmptyParents(from.dir)
      return { ...source, key: to }
    },

    async delete (key: string) {
      const { dir, file } = locate(key)
      try {
        await unlink(file)
      } catch (error) {
        if (isMissing(error)) return
        throw error
      }
      await removeEmptyParents(dir)
    }
  }
}
