import type { FastifyReply, FastifyRequest } from 'fastify'
import { sendBody } from '../http/file-answers.js'
import { NotFoundError } from '../errors.js'
import { parseRange, readConditions } from '../storage/conditional.js'
import type { FileService } from '../storage/files.js'
import { listObjects, maxKeysOf } from './buckets.js'
import { S3Error } from './errors.js'
import { pathOf, sendObjectHeaders } from './objects.js'
import type { XmlNode } from './xml.js'

// The current file of a path is its version "null" (as S3 names what versioning did not name); the
// versions kept of it have their own ids.
export const CURRENT = 'null'

const noSuchVersion = () => new S3Error('NoSuchVersion', 404, 'The specified version does not exist.')

/** `work` on the versions of a key, which names each by its path: a version of another path, of
 *  another user's, or none is NoSuchVersion. */
async function onVersions<T> (files: FileService, work: (versions: NonNullable<FileService['versions']>) => Promise<T>): Promise<T> {
  if (!files.versions) throw noSuchVersion()
  return await work(files.versions).catch((error: unknown) => {
    if (error instanceof NotFoundError) throw noSuchVersion()
    throw error
  })
}

/** GetObject and HeadObject of a kept version. */
export async function readVersion (files: FileService, userId: string, bucket: string, key: string, id: string, request: FastifyRequest, reply: FastifyReply) {
  const { read } = await onVersions(files, (versions) => versions.read(userId, id, { range: request.method === 'GET' ? parseRange(request.headers.range) : undefined, ...readConditions(request.headers), at: pathOf(bucket, key) }))
  sendObjectHeaders(reply, read.file, key)
  reply.header('x-amz-version-id', id)
  if (read.notModified) return reply.code(304).send()
  if (request.method === 'HEAD') {
    read.file.body.destroy()
    return reply.header('content-length', read.file.size).send()
  }
  return sendBody(reply, read.file)
}

/** DeleteObject of a kept version: gone for good. */
export async function deleteVersion (files: FileService, userId: string, bucket: string, key: string, id: string) {
  await onVersions(files, (versions) => versions.remove(userId, id, pathOf(bucket, key)))
}

/**
 * ListObjectVersions: each file (IsLatest, version "null") followed by its kept versions, newest
 * first; max-keys counts entries, and a page may end inside a key's versions: NextKeyMarker and
 * NextVersionIdMarker name the last entry, and the next page starts after it.
 */
export async function listVersions (files: FileService, userId: string, bucket: string, query: URLSearchParams): Promise<XmlNode> {
  const prefix = query.get('prefix') ?? ''
  const maxKeys = maxKeysOf(query.get('max-keys') ?? undefined)
  const keyMarker = query.get('key-marker') || undefined
  const versionIdMarker = query.get('version-id-marker') || undefined
  const entries: XmlNode[] = []
  const prefixes: string[] = []
  let last: { key: string, versionId: string } | undefined
  let full = false
  const add = (entry: XmlNode & { Key: string, VersionId: string }) => {
    if (entries.length >= maxKeys) {
      full = true
      return false
    }
    entries.push(entry)
    last = { key: entry.Key, versionId: entry.VersionId }
    return true
  }
  /** The kept versions of `key`, after the version `after` (from the newest when undefined), while there is room. */
  const addKept = async (key: string, after?: string) => {
    if (!files.versions) return
    let token = after === undefined ? undefined : await files.versions.tokenAfter(userId, after).catch((error: unknown) => {
      if (error instanceof NotFoundError) throw new S3Error('InvalidArgument', 400, 'The version-id-marker names no version of this key')
      throw error
    })
    do {
      const page = await files.versions.list(userId, pathOf(bucket, key), token)
      for (const version of page.versions) {
        if (!add({ Key: key, VersionId: version.id, IsLatest: false, LastModified: version.lastModified, ETag: version.etag, Size: version.size, StorageClass: 'STANDARD' })) return
      }
      token = page.isTruncated ? page.continuationToken : undefined
    } while (token)
  }
  // A page that ended inside a key's versions goes on there.
  if (keyMarker && versionIdMarker) await addKept(keyMarker, versionIdMarker === CURRENT ? undefined : versionIdMarker)
  let after = keyMarker
  // A page filled there may have more after it: truncated, and the next page says.
  if (entries.length >= maxKeys) full = true
  let more = !full
  while (more) {
    const page = await listObjects(files, userId, bucket, { prefix, delimiter: query.get('delimiter') ?? undefined, maxKeys: maxKeys - entries.length, after })
    for (const file of page.contents) {
      if (!add({ Key: file.key, VersionId: CURRENT, IsLatest: true, LastModified: file.lastModified, ETag: file.etag, Size: file.size, StorageClass: 'STANDARD' })) break
      await addKept(file.key)
      if (full) break
    }
    if (!full) prefixes.push(...page.prefixes)
    more = !full && page.isTruncated && page.next !== undefined && entries.length < maxKeys
    if (page.isTruncated && entries.length >= maxKeys) full = true
    after = page.next
  }
  return {
    Name: bucket, Prefix: prefix, KeyMarker: keyMarker ?? '', VersionIdMarker: versionIdMarker ?? '', MaxKeys: maxKeys, IsTruncated: full,
    NextKeyMarker: full ? last?.key : undefined, NextVersionIdMarker: full ? last?.versionId : undefined,
    Version: entries, CommonPrefixes: prefixes.map((Prefix) => ({ Prefix }))
  }
}
