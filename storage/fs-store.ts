import { randomUUID } from 'node:crypto'
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { BadRequestError } from '../errors.js'
import { compareKeys, type ListOptions, type ListPage, type ObjectInfo, type ObjectStore, type StoredObject } from './object-store.js'

// Folders end in `.d`, bodies in `.f` and their metadata in `.m`, so that `a` and `a/b` can both
// exist, as they can in S3, and no key can name the temporary folder.
const DIR = '.d'
const BODY = '.f'
const META = '.m'

interface Meta { contentType: string }

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code
// A name too long for the file system cannot exist: reads treat it as missing.
const isMissing = (error: unknown) => errorCode(error) === 'ENOENT' || errorCode(error) === 'ENAMETOOLONG'

export function createFsStore (rootDir: string): ObjectStore {
  const root = resolve(rootDir)
  const tmpDir = join(root, '.tmp')

  function locate (key: string) {
    const segments = key.split('/')
    const name = segments.pop() as string
    const dir = join(root, ...segments.map((segment) => segment + DIR))
    return { dir, body: join(dir, name + BODY), meta: join(dir, name + META) }
  }

  async function info (key: string, bodyPath: string): Promise<ObjectInfo | undefined> {
    try {
      const stats = await stat(bodyPath)
      return { key, size: stats.size, lastModified: stats.mtime }
    } catch (error) {
      if (isMissing(error)) return undefined
      throw error
    }
  }

  async function readMeta (metaPath: string): Promise<Meta> {
    try {
      return JSON.parse(await readFile(metaPath, 'utf8')) as Meta
    } catch (error) {
      if (isMissing(error)) return { contentType: 'application/octet-stream' }
      throw error
    }
  }

  async function publish (dir: string, from: string, to: string) {
    try {
      await rename(from, to)
    } catch (error) {
      // A concurrent delete may have removed the (then empty) folder between mkdir and rename.
      if (errorCode(error) !== 'ENOENT') throw error
      await mkdir(dir, { recursive: true })
      await rename(from, to)
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

  async function collectKeys (dir: string, keyPrefix: string, out: string[]) {
    let entries
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch (error) {
      if (isMissing(error)) return
      throw error
    }
    for (const entry of entries) {
      if (entry.isDirectory() && entry.name.endsWith(DIR)) {
        await collectKeys(join(dir, entry.name), keyPrefix + entry.name.slice(0, -DIR.length) + '/', out)
      } else if (entry.isFile() && entry.name.endsWith(BODY)) {
        out.push(keyPrefix + entry.name.slice(0, -BODY.length))
      }
    }
  }

  return {
    async list (prefix: string, { startAfter, limit }: ListOptions): Promise<ListPage> {
      const folders = prefix.split('/').slice(0, -1)
      const keys: string[] = []
      await collectKeys(join(root, ...folders.map((segment) => segment + DIR)), folders.map((f) => f + '/').join(''), keys)
      const matching = keys
        .filter((key) => key.startsWith(prefix) && (startAfter === undefined || compareKeys(key, startAfter) > 0))
        .sort(compareKeys)
      const page = await Promise.all(matching.slice(0, limit).map((key) => info(key, locate(key).body)))
      return {
        objects: page.filter((object): object is ObjectInfo => object !== undefined),
        isTruncated: matching.length > limit
      }
    },

    async head (key: string) {
      return info(key, locate(key).body)
    },

    async get (key: string): Promise<StoredObject | undefined> {
      const paths = locate(key)
      let body: Buffer
      try {
        body = await readFile(paths.body)
      } catch (error) {
        if (isMissing(error)) return undefined
        throw error
      }
      const [meta, stats] = await Promise.all([readMeta(paths.meta), info(key, paths.body)])
      return { key, body, contentType: meta.contentType, size: body.length, lastModified: stats?.lastModified ?? new Date() }
    },

    async put (key: string, body: Buffer, contentType: string) {
      const paths = locate(key)
      const tmpBody = join(tmpDir, randomUUID())
      const tmpMeta = tmpBody + META
      try {
        await mkdir(tmpDir, { recursive: true })
        await mkdir(paths.dir, { recursive: true })
        await writeFile(tmpBody, body)
        await writeFile(tmpMeta, JSON.stringify({ contentType } satisfies Meta))
        await publish(paths.dir, tmpMeta, paths.meta)
        await publish(paths.dir, tmpBody, paths.body)
      } catch (error) {
        await Promise.all([rm(tmpBody, { force: true }), rm(tmpMeta, { force: true })])
        if (errorCode(error) === 'ENAMETOOLONG') {
          throw new BadRequestError('a path segment is too long for this storage driver (fs: 253 bytes)')
        }
        throw error
      }
      return (await info(key, paths.body)) as ObjectInfo
    },

    async delete (key: string) {
      const paths = locate(key)
      try {
        await unlink(paths.body)
      } catch (error) {
        if (isMissing(error)) return false
        throw error
      }
      await rm(paths.meta, { force: true })
      await removeEmptyParents(paths.dir)
      return true
    }
  }
}
