import type { FastifyReply, FastifyRequest } from 'fastify'
import { sendBody } from '../routes/file-answers.js'
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

/** The version `id` of `bucket/key`: 404 for another path's or another user's. */
async function versionOf (files: FileService, userId: string, bucket: string, key: string, id: string) {
  const version = await files.versions?.find(userId, id).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined
    throw error
  })
  if (!version || version.path !== pathOf(bucket, key)) throw noSuchVersion()
  return version
}

/** GetObject and HeadObject of a kept version. */
export async function readVersion (files: FileService, userId: string, bucket: string, key: string, id: string, request: FastifyRequest, reply: FastifyReply) {
  await versionOf(files, userId, bucket, key, id)
  const { read } = await files.versions!.read(userId, id, { range: request.method === 'GET' ? parseRange(request.headers.range) : undefined, ...readConditions(request.headers) })
  sendObjectHeaders(reply, read.file)
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
  await versionOf(files, userId, bucket, key, id)
  await files.versions!.remove(userId, id)
}

/**
 * ListObjectVersions: each file (IsLatest, version "null") followed by its kept versions, newest
 * first, a page of files at a time (max-keys counts files; up to 100 versions each).
 */
export async function listVersions (files: FileService, userId: string, bucket: string, query: URLSearchParams): Promise<XmlNode> {
  const prefix = query.get('prefix') ?? ''
  const maxKeys = maxKeysOf(query.get('max-keys') ?? undefined)
  const keyMarker = query.get('key-marker') || undefined
  const page = await listObjects(files, userId, bucket, { prefix, delimiter: query.get('delimiter') ?? undefined, maxKeys, after: keyMarker })
  const entries: XmlNode[] = []
  for (const file of page.contents) {
    entries.push({ Key: file.key, VersionId: CURRENT, IsLatest: true, LastModified: file.lastModified, ETag: file.etag, Size: file.size, StorageClass: 'STANDARD' })
    const kept = files.versions ? (await files.versions.list(userId, pathOf(bucket, file.key))).versions : []
    for (const version of kept) {
      entries.push({ Key: file.key, VersionId: version.id, IsLatest: false, LastModified: version.lastModified, ETag: version.etag, Size: version.size, StorageClass: 'STANDARD' })
    }
  }
  return {
    Name: bucket, Prefix: prefix, KeyMarker: keyMarker ?? '', VersionIdMarker: query.get('version-id-marker') ?? '', MaxKeys: maxKeys, IsTruncated: page.isTruncated,
    NextKeyMarker: page.isTruncated ? page.next : undefined, Version: entries, CommonPrefixes: page.prefixes.map((Prefix) => ({ Prefix }))
  }
}
