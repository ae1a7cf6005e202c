import type { FastifyReply, FastifyRequest } from 'fastify'
import { sendBody } from '../routes/file-answers.js'
import type { Owner } from '../db/usage.js'
import { BadRequestError, NotFoundError } from '../errors.js'
import { parseRange, readConditions, writePreconditions } from '../storage/conditional.js'
import { DEFAULT_CONTENT_TYPE, type FileService } from '../storage/files.js'
import type { ObjectMeta } from '../storage/object-store.js'
import { invalidArgument, noSuchKey, S3Error } from './errors.js'
import { objectBytes } from './payload.js'
import { metadataOf, sendMetadata } from './metadata.js'
import type { S3MetadataRepository } from '../db/s3-metadata.js'
import type { SignedRequest } from './sigv4.js'
import { childrenNamed, isPlainXml, textOf, type XmlNode } from './xml.js'

// A Delete (DeleteObjects) body: 1,000 keys of up to 1,024 bytes and their XML.
const MAX_XML_BYTES = 2 * 1024 * 1024
const MAX_DELETE_KEYS = 1000

/** A key of a bucket as a path of the user's files: the file API's rules, refused as S3 refuses. */
export const pathOf = (bucket: string, key: string) => `${bucket}/${key}`

const httpDate = (date: Date) => date.toUTCString()

/** The headers S3 sends for an object, on GET and HEAD. */
export function sendObjectHeaders (reply: FastifyReply, file: ObjectMeta) {
  reply.header('etag', file.etag)
  reply.header('last-modified', httpDate(file.lastModified))
  reply.header('content-type', file.contentType)
  reply.header('accept-ranges', 'bytes')
}

/** response-content-type and the like: a presigned GET may ask for other headers on the answer. */
function sendOverrides (reply: FastifyReply, query: URLSearchParams) {
  for (const [parameter, header] of [
    ['response-content-type', 'content-type'], ['response-content-disposition', 'content-disposition'], ['response-content-encoding', 'content-encoding'],
    ['response-content-language', 'content-language'], ['response-cache-control', 'cache-control'], ['response-expires', 'expires']
  ]) {
    const value = query.get(parameter)
    if (value !== null) reply.header(header, value)
  }
}

/** If-Match and If-Unmodified-Since of a GET or HEAD, which the file API's reads do not take. */
function checkReadPreconditions (request: FastifyRequest, file: ObjectMeta) {
  const ifMatch = request.headers['if-match']
  if (ifMatch !== undefined && ifMatch.trim() !== '*' && !ifMatch.split(',').map((tag) => tag.trim()).includes(file.etag)) {
    throw new S3Error('PreconditionFailed', 412, 'At least one of the pre-conditions you specified did not hold', { Condition: 'If-Match' })
  }
  const unmodifiedSince = request.headers['if-unmodified-since']
  if (ifMatch === undefined && unmodifiedSince !== undefined && Math.floor(file.lastModified.getTime() / 1000) > Math.floor(new Date(unmodifiedSince).getTime() / 1000)) {
    throw new S3Error('PreconditionFailed', 412, 'At least one of the pre-conditions you specified did not hold', { Condition: 'If-Unmodified-Since' })
  }
}

async function withKey<T> (key: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof NotFoundError) throw noSuchKey(key)
    throw error
  }
}

export async function headObject (files: FileService, metadata: S3MetadataRepository, userId: string, bucket: string, key: string, request: FastifyRequest, reply: FastifyReply) {
  const file = await withKey(key, () => files.head(userId, pathOf(bucket, key)))
  checkReadPreconditions(request, file)
  sendObjectHeaders(reply, file)
  sendMetadata(reply, await metadata.get(userId, pathOf(bucket, key), file.etag))
  const { ifNoneMatch, ifModifiedSince } = readConditions(request.headers)
  if ((ifNoneMatch && (ifNoneMatch.includes('*') || ifNoneMatch.includes(file.etag))) ||
    (!ifNoneMatch && ifModifiedSince && Math.floor(file.lastModified.getTime() / 1000) <= Math.floor(ifModifiedSince.getTime() / 1000))) {
    return reply.code(304).send()
  }
  return reply.header('content-length', file.size).send()
}

export async function getObject (files: FileService, metadata: S3MetadataRepository, userId: string, bucket: string, key: string, request: FastifyRequest, reply: FastifyReply, query: URLSearchParams) {
  const path = pathOf(bucket, key)
  // One read, its preconditions checked on what it found: no second look at the store.
  const read = await withKey(key, () => files.read(userId, path, { range: parseRange(request.headers.range), ...readConditions(request.headers) }))
  try {
    checkReadPreconditions(request, read.file)
  } catch (error) {
    if (!read.notModified) read.file.body.destroy()
    throw error
  }
  sendObjectHeaders(reply, read.file)
  sendMetadata(reply, await metadata.get(userId, path, read.file.etag))
  sendOverrides(reply, query)
  if (read.notModified) return reply.code(304).send()
  return sendBody(reply, read.file)
}

/** The object's bytes as they arrive, their length (x-amz-decoded-content-length for aws-chunked), and their type. */
export function uploadOf (request: FastifyRequest, signed: SignedRequest, key: { signingKey: Buffer, signature: string }) {
  const chunked = signed.payload.kind === 'streaming-signed' || signed.payload.kind === 'streaming-unsigned-trailer'
  const declared = chunked ? request.headers['x-amz-decoded-content-length'] : request.headers['content-length']
  if (chunked && declared === undefined) throw new S3Error('MissingContentLength', 411, 'You must provide the Content-Length HTTP header (x-amz-decoded-content-length for aws-chunked).')
  const length = declared === undefined ? undefined : Number(declared)
  if (length !== undefined && !Number.isSafeInteger(length)) throw invalidArgument('the content length is not a number')
  const body = request.raw.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>
  const contentType = typeof request.headers['content-type'] === 'string' ? request.headers['content-type'] : DEFAULT_CONTENT_TYPE
  const checked = objectBytes(body, signed, key, request.headers)
  return { body: checked === body ? body : carried(checked), length, contentType }
}

/** A body's refusal, carried through the store (which passes on only the file API's own errors) to the answer. */
async function * carried (bytes: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  try {
    yield * bytes
  } catch (error) {
    if (error instanceof S3Error) throw Object.assign(new BadRequestError(error.message), { cause: error })
    throw error
  }
}

export async function putObject (files: FileService, metadata: S3MetadataRepository, owner: Owner, bucket: string, key: string, request: FastifyRequest, reply: FastifyReply, upload: ReturnType<typeof uploadOf>) {
  const given = metadataOf(request.headers)
  const written = await files.write(owner, pathOf(bucket, key), upload.body, {
    contentType: upload.contentType, length: upload.length, preconditions: writePreconditions(request.headers)
  })
  await metadata.set(owner.userId, pathOf(bucket, key), written.etag, given)
  return reply.header('etag', written.etag).send()
}

export async function deleteObject (files: FileService, userId: string, bucket: string, key: string, request: FastifyRequest, reply: FastifyReply) {
  // Deleting what is not there succeeds, as S3 answers.
  await files.delete(userId, pathOf(bucket, key), writePreconditions(request.headers)).catch((error: unknown) => {
    if (!(error instanceof NotFoundError)) throw error
  })
  return reply.code(204).send()
}

/** Reads a small XML body whole (a Delete, a CompleteMultipartUpload). */
export async function xmlBody (request: FastifyRequest): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request.raw) {
    size += (chunk as Buffer).length
    if (size > MAX_XML_BYTES) throw new S3Error('MalformedXML', 400, 'The XML you provided was too large.')
    chunks.push(chunk as Buffer)
  }
  const xml = Buffer.concat(chunks).toString('utf8')
  if (!isPlainXml(xml)) throw new S3Error('MalformedXML', 400, 'The XML you provided was not well-formed or did not validate against our published schema.')
  return xml
}

/** DeleteObjects: each key to the trash; the answer names what was deleted (unless quiet) and what failed. */
export async function deleteObjects (files: FileService, userId: string, bucket: string, xml: string, removeVersion: (key: string, id: string) => Promise<void>): Promise<XmlNode> {
  const objects = childrenNamed(xml, 'Object').map((object) => ({ key: textOf(object, 'Key'), versionId: textOf(object, 'VersionId') }))
  if (objects.length === 0 || objects.length > MAX_DELETE_KEYS || objects.some(({ key }) => key === undefined)) {
    throw new S3Error('MalformedXML', 400, `A Delete names 1 to ${MAX_DELETE_KEYS} objects, each with a Key.`)
  }
  const quiet = textOf(xml, 'Quiet') === 'true'
  const deleted: XmlNode[] = []
  const errors: XmlNode[] = []
  for (const { key, versionId } of objects as Array<{ key: string, versionId?: string }>) {
    const kept = versionId !== undefined && versionId !== 'null'
    try {
      if (kept) await removeVersion(key, versionId)
      else await files.delete(userId, pathOf(bucket, key))
      if (!quiet) deleted.push({ Key: key, VersionId: versionId })
    } catch (error) {
      if (error instanceof NotFoundError && !kept) {
        if (!quiet) deleted.push({ Key: key })
      } else {
        const s3 = error instanceof S3Error ? error : new S3Error('InternalError', 500, 'We encountered an internal error. Please try again.')
        errors.push({ Key: key, VersionId: versionId, Code: s3.code, Message: s3.message })
      }
    }
  }
  return { Deleted: deleted, Error: errors }
}

/** CopyObject: done by the file API's copy, inside the store; the source is `/bucket/key` of the same user. */
export async function copyObject (files: FileService, metadata: S3MetadataRepository, owner: Owner, bucket: string, key: string, request: FastifyRequest): Promise<XmlNode> {
  const source = String(request.headers['x-amz-copy-source'])
  const [sourcePath, sourceQuery] = source.replace(/^\//, '').split('?', 2)
  const versionId = new URLSearchParams(sourceQuery ?? '').get('versionId')
  let decoded: string
  try {
    decoded = decodeURIComponent(sourcePath)
  } catch {
    throw invalidArgument('x-amz-copy-source is not a URL-encoded bucket/key')
  }
  const slash = decoded.indexOf('/')
  if (slash < 1) throw invalidArgument('x-amz-copy-source must be bucket/key')
  const [fromBucket, fromKey] = [decoded.slice(0, slash), decoded.slice(slash + 1)]
  if (versionId !== null && versionId !== 'null') return await copyVersion(files, metadata, owner, { bucket: fromBucket, key: fromKey, versionId }, { bucket, key }, request)
  const directive = request.headers['x-amz-metadata-directive']
  if (directive !== undefined && directive !== 'COPY' && directive !== 'REPLACE') throw invalidArgument('x-amz-metadata-directive must be COPY or REPLACE')
  const ifMatch = request.headers['x-amz-copy-source-if-match']
  const ifNoneMatch = request.headers['x-amz-copy-source-if-none-match']
  const sourceFile = await withKey(fromKey, () => files.head(owner.userId, pathOf(fromBucket, fromKey)))
  if (typeof ifMatch === 'string' && !ifMatch.split(',').map((tag) => tag.trim()).some((tag) => tag === '*' || tag === sourceFile.etag)) {
    throw new S3Error('PreconditionFailed', 412, 'At least one of the pre-conditions you specified did not hold', { Condition: 'x-amz-copy-source-If-Match' })
  }
  if (typeof ifNoneMatch === 'string' && ifNoneMatch.split(',').map((tag) => tag.trim()).some((tag) => tag === '*' || tag === sourceFile.etag)) {
    throw new S3Error('PreconditionFailed', 412, 'At least one of the pre-conditions you specified did not hold', { Condition: 'x-amz-copy-source-If-None-Match' })
  }
  const kept = directive === 'REPLACE' ? metadataOf(request.headers) : await metadata.get(owner.userId, pathOf(fromBucket, fromKey), sourceFile.etag)
  if (fromBucket === bucket && fromKey === key) {
    // Onto itself: only to change its metadata (rclone sets a file's time so), the content stays.
    if (directive !== 'REPLACE') throw new S3Error('InvalidRequest', 400, 'This copy request is illegal because it is trying to copy an object to itself without changing the object\'s metadata, storage class, website redirect location or encryption attributes.')
    if (Object.keys(kept).length === 0) await metadata.clear(owner.userId, pathOf(bucket, key))
    else await metadata.set(owner.userId, pathOf(bucket, key), sourceFile.etag, kept)
    return { LastModified: sourceFile.lastModified.toISOString(), ETag: sourceFile.etag }
  }
  const copied = await withKey(fromKey, () => files.copy(owner, pathOf(fromBucket, fromKey), pathOf(bucket, key), {
    source: { ifMatch: [sourceFile.etag] }, destination: writePreconditions(request.headers)
  }))
  await metadata.set(owner.userId, pathOf(bucket, key), copied.etag, kept)
  return { LastModified: new Date(copied.lastModified).toISOString(), ETag: copied.etag }
}

/** CopyObject of a kept version: the version's restore to the destination (inside the store; what it replaces is kept as a version). */
async function copyVersion (files: FileService, metadata: S3MetadataRepository, owner: Owner, source: { bucket: string, key: string, versionId: string }, to: { bucket: string, key: string }, request: FastifyRequest): Promise<XmlNode> {
  const version = await files.versions?.find(owner.userId, source.versionId).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined
    throw error
  })
  if (!version || version.path !== pathOf(source.bucket, source.key)) throw new S3Error('NoSuchVersion', 404, 'The specified version does not exist.')
  const { ifMatch } = writePreconditions(request.headers)
  const copied = await files.versions!.restore(owner, source.versionId, { to: pathOf(to.bucket, to.key), ifMatch })
  await metadata.set(owner.userId, pathOf(to.bucket, to.key), copied.etag, request.headers['x-amz-metadata-directive'] === 'REPLACE' ? metadataOf(request.headers) : {})
  return { LastModified: new Date(copied.lastModified).toISOString(), ETag: copied.etag }
}
