import { randomUUID } from 'node:crypto'
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { BadRequestError } from '../errors.js'
import { compareKeys, type ListOptions, type ListPage, type ObjectInfo, type ObjectStore, type StoredObject } from './object-store.js'

// Folders end in `.d` and objects in `.o`, so that `a` and `a/b` can both exist, as they can in S3,
// and no key can name the temporary folder or the layout marker.
const DIR = '.d'
const OBJECT = '.o'
// An object file is a fixed header holding the content type, then the body: one file, renamed into
// place whole, so that a body and its content type can never part. Fixed, so that a listing learns
// each size from a stat alone.
const HEADER_BYTES = 256
// Version 1 kept the body in `<name>.f` and its content type in `<name>.m`.
const LAYOUT_MARKER = '.layout'
const LAYOUT_VERSION = '2'
const LEGACY_BODY = '.f'
const LEGACY_META = '.m'
// Older temporary files belong to a writer that died; younger ones may be another instance's.
const TMP_MAX_AGE_MS = 10 * 60_000
// A folder emptied by a concurrent delete can vanish during mkdir, or between mkdir and rename.
const PUBLISH_ATTEMPTS = 50
const FILE_MODE = 0o600
const DIR_MODE = 0o700

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code
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

function header (contentType: string): Buffer {
  if (Buffer.byteLength(contentType) >= HEADER_BYTES || /[\r\n]/.test(contentType)) {
    throw new BadRequestError(`contentType must be one line under ${HEADER_BYTES} bytes`)
  }
  const bytes = Buffer.alloc(HEADER_BYTES, ' ')
  bytes.write(contentType + '\n')
  return bytes
}

const contentTypeOf = (file: Buffer) => file.toString('latin1', 0, HEADER_BYTES).split('\n')[0]

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

  async function info (key: string): Promise<ObjectInfo | undefined> {
    const stats = await ifPresent(stat(locate(key).file))
    return stats && { key, size: stats.size - HEADER_BYTES, lastModified: stats.mtime }
  }

  async function writeTemporary (parts: Buffer[]): Promise<string> {
    const path = join(tmpDir, randomUUID())
    const create = () => open(path, 'wx', FILE_MODE)
    // The folder is made by open(), and again here if it was removed since.
    const handle = await create().catch(async (error) => {
      if (errorCode(error) !== 'ENOENT') throw error
      await mkdir(tmpDir, { recursive: true, mode: DIR_MODE })
      return create()
    })
    try {
      await handle.writev(parts)
    } finally {
      await handle.close()
    }
    return path
  }

  async function publish (from: string, dir: string, to: string) {
    for (let attempt = 1; ; attempt++) {
      try {
        await mkdir(dir, { recursive: true, mode: DIR_MODE })
        await rename(from, to)
        return
      } catch (error) {
        // Node's recursive mkdir reports ENOTDIR when a folder it found vanishes before it looks again.
        if (!['ENOENT', 'ENOTDIR'].includes(errorCode(error) ?? '') || attempt === PUBLISH_ATTEMPTS) throw error
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
      await rm(path, { force: true })
      await rm(base + LEGACY_META, { force: true })
    }
  }

  return {
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

    async list (prefix: string, { startAfter, limit }: ListOptions): Promise<ListPage> {
      const folders = prefix.split('/').slice(0, -1)
      const keys: string[] = []
      for await (const key of keysFrom(folderPath(folders), folders.map((f) => f + '/').join(''), prefix, startAfter)) {
        keys.push(key)
        if (keys.length > limit) break
      }
      const page = await Promise.all(keys.slice(0, limit).map(info))
      return {
        // A key deleted since its folder was read is left out.
        objects: page.filter((object): object is ObjectInfo => object !== undefined),
        isTruncated: keys.length > limit
      }
    },

    head: info,

    async get (key: string): Promise<StoredObject | undefined> {
      // One open file: a concurrent rename or unlink cannot mix two versions.
      const handle = await ifPresent(open(locate(key).file, 'r'))
      if (!handle) return undefined
      try {
        const [stats, file] = await Promise.all([handle.stat(), handle.readFile()])
        const body = file.subarray(HEADER_BYTES)
        return { key, body, contentType: contentTypeOf(file), size: body.length, lastModified: stats.mtime }
      } finally {
        await handle.close()
      }
    },

    async put (key: string, body: Buffer, contentType: string) {
      const { dir, file } = locate(key)
      let temporary: string | undefined
      try {
        temporary = await writeTemporary([header(contentType), body])
        await publish(temporary, dir, file)
      } catch (error) {
        if (temporary) await rm(temporary, { force: true })
        if (errorCode(error) === 'ENAMETOOLONG') {
          throw new BadRequestError('a path segment is too long for this storage driver (fs: 253 bytes)')
        }
        throw error
      }
      return (await info(key)) ?? { key, size: body.length, lastModified: new Date() }
    },

    async delete (key: string) {
      const { dir, file } = locate(key)
      try {
        await unlink(file)
      } catch (error) {
        if (isMissing(error)) return false
        throw error
      }
      await removeEmptyParents(dir)
      return true
    }
  }
}
