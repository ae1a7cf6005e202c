import type { FastifyReply, FastifyRequest } from 'fastify'
import { sendBody, sendServedAs } from '../http/file-answers.js'
import { isFileMediaType } from '../schemas/files.js'
import type { Owner } from '../db/usage.js'
import { BadRequestError, NotFoundError, PayloadTooLargeError } from '../errors.js'
import { INPUT_LIMITS } from '../limits.js'
import { childNamed, readXmlBody, type XmlElement } from '../xml-body.js'
import { parseRange, readConditions, writePreconditions } from '../storage/conditional.js'
import { DEFAULT_CONTENT_TYPE, type FileService } from '../storage/files.js'
import type { ObjectMeta } from '../storage/object-store.js'
import { invalidArgument, noSuchKey, S3Error, s3ErrorOf } from './errors.js'
import { declaredLengthOf, isChunked, lengthOf, objectBytes } from './payload.js'
import { metadataOf, sendMetadata } from './metadata.js'
import type { S3MetadataRepository } from '../db/s3-metadata.js'
import type { SignedRequest } from './sigv4.js'
import type { XmlNode } from './xml.js'

/** A key of a bucket as a path of the user's files: the file API's rules, refused as S3 refuses. */
export const pathOf = (bucket: string, key: string) => `${bucket}/${key}`

const httpDate = (date: Date) => date.toUTCString()

// What a GetObject may ask the answer to say instead (response-* of a presigned URL).
const OVERRIDES = [
  ['response-content-type', 'content-type'], ['response-content-disposition', 'content-disposition'], ['response-content-encoding', 'content-encoding'],
  ['response-content-language', 'content-language'], ['response-cache-control', 'cache-control'], ['response-expires', 'expires']
] as const

/**
 * The headers S3 sends for an object, on GET and HEAD. User content answered here shares the S3
 * listener's origin, so it is served by the raw routes' one rule (`servedAs`): no sniffing, a
 * sandboxing policy, and `attachment` unless the type is inert, whatever response-* asks.
 */
export function sendObjectHeaders (reply: FastifyReply, file: ObjectMeta, key: string, query?: URLSearchParams) {
  const asked = new Map<string, string>()
  for (const [parameter, header] of OVERRIDES) {
    const value = query?.get(parameter)
    if (value === null || value === undefined) continue
    if (/[^\t\x20-\x7e\x80-\xff]/.test(value)) throw invalidArgument(`${parameter} may not hold control characters or characters past U+00FF`)
    asked.set(header, value)
  }
  const askedType = asked.get('content-type')
  if (askedType !== undefined && !isFileMediaType(askedType)) throw invalidArgument('response-content-type is not a media type')
  reply.header('etag', file.etag)
  reply.header('last-modified', httpDate(file.lastModified))
  reply.header('accept-ranges', 'bytes')
  for (const [header, value] of asked) if (header !== 'content-type' && header !== 'content-disposition') reply.header(header, value)
  sendServedAs(reply, askedType ?? file.contentType, key, asked.get('content-disposition'))
}

/** The Content-Type a write gives its object: a media type, as the file API takes them (400 otherwise). */
export function contentTypeOf (request: FastifyRequest): string {
  const given = request.headers['content-type']
  if (given === undefined) return DEFAULT_CONTENT_TYPE
  if (typeof given !== 'string' || !isFileMediaType(given)) throw invalidArgument('Content-Type is not a media type such as text/plain or image/png')
  return given
}

/** If-Match and If-None-Match as S3 reads them: an ETag may come without its quotes (some SDKs send
 *  one so); read as HTTP reads them from here on. Called once the signature is checked. */
export function quoteEtags (headers: FastifyRequest['headers']) {
  for (const name of ['if-match', 'if-none-match'] as const) {
    const value = headers[name]
    if (typeof value !== 'string') continue
    headers[name] = value.split(',').map((tag) => tag.trim()).map((tag) => tag === '*' || tag.startsWith('"') || tag.startsWith('W/') ? tag : `"${tag}"`).join(', ')
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

/** A file's x-amz-meta-*: the index's, or (a user whose names are still being built) what an earlier release kept. */
const metadataOfFile = async (legacy: S3MetadataRepository, userId: string, path: string, file: ObjectMeta) => file.metadata ?? await legacy.get(userId, path, file.etag)

export async function headObject (files: FileService, metadata: S3MetadataRepository, userId: string, bucket: string, key: string, request: FastifyRequest, reply: FastifyReply) {
  const file = await withKey(key, () => files.head(userId, pathOf(bucket, key)))
  checkReadPreconditions(request, file)
  sendObjectHeaders(reply, file, key)
  sendMetadata(reply, await metadataOfFile(metadata, userId, pathOf(bucket, key), file))
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
  const read = await withKey(key, () => files.read(userId, path, { range: parseRange(request.headers.range), ...readConditions(request.headers), withMetadata: true }))
  try {
    checkReadPreconditions(request, read.file)
  } catch (error) {
    if (!read.notModified) read.file.body.destroy()
    throw error
  }
  sendObjectHeaders(reply, read.file, key, query)
  sendMetadata(reply, await metadataOfFile(metadata, userId, path, read.file))
  if (read.notModified) return reply.code(304).send()
  return sendBody(reply, read.file)
}

/** The object's bytes as they arrive, their length (x-amz-decoded-content-length for aws-chunked), and their type. */
export function uploadOf (request: FastifyRequest, signed: SignedRequest, key: { signingKey: Buffer, signature: string }) {
  const length = isChunked(signed) ? declaredLengthOf(request.headers) : lengthOf('Content-Length', request.headers['content-length'])
  const body = request.raw.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>
  const contentType = contentTypeOf(request)
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
  // An overwrite without x-amz-meta-* leaves none of the old file's.
  const written = await files.write(owner, pathOf(bucket, key), upload.body, {
    contentType: upload.contentType, length: upload.length, preconditions: writePreconditions(request.headers), metadata: metadataOf(request.headers)
  })
  return reply.header('etag', written.etag).send()
}

export async function deleteObject (files: FileService, userId: string, bucket: string, key: string, request: FastifyRequest, reply: FastifyReply, skipTrash: boolean) {
  // Deleting what is not there succeeds, as S3 answers.
  await files.delete(userId, pathOf(bucket, key), writePreconditions(request.headers), { skipTrash }).catch((error: unknown) => {
    if (!(error instanceof NotFoundError)) throw error
  })
  return reply.code(204).send()
}

const malformedXml = (why: string) => new S3Error('MalformedXML', 400, `The XML you provided was not well-formed or did not validate against our published schema: ${why}`)

/**
 * A small XML body (a Delete, a CompleteMultipartUpload) whose root is `rootName`: checked against its
 * signed payload hash and Content-MD5 as any body is, before anything acts on it.
 */
export async function xmlBody (request: FastifyRequest, signed: SignedRequest, key: { signingKey: Buffer, signature: string }, rootName: string): Promise<XmlElement> {
  const body = request.raw.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>
  let document: Awaited<ReturnType<typeof readXmlBody>>
  try {
    document = await readXmlBody(objectBytes(body, signed, key, request.headers), { maxBytes: INPUT_LIMITS.s3XmlBytes, maxElements: INPUT_LIMITS.s3XmlElements })
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw new S3Error('MaxMessageLengthExceeded', 400, `Your request was too big: an XML body is at most ${INPUT_LIMITS.s3XmlBytes} bytes.`)
    if (error instanceof BadRequestError) throw malformedXml((error as Error).message)
    throw error
  }
  if (!document) throw malformedXml('the body is empty')
  if (document.root.name !== rootName) throw malformedXml(`the root element must be ${rootName}`)
  return document.root
}

/** DeleteObjects: each key to the trash; the answer names what was deleted (unless quiet) and what failed. */
export async function deleteObjects (files: FileService, userId: string, bucket: string, root: XmlElement, removeVersion: (key: string, id: string) => Promise<void>, skipTrash: boolean): Promise<XmlNode> {
  const objects = root.children.filter((child) => child.name === 'Object').map((object) => ({ key: childNamed(object, 'Key')?.text, versionId: childNamed(object, 'VersionId')?.text }))
  if (objects.length === 0 || objects.length > INPUT_LIMITS.s3DeleteKeys || objects.some(({ key }) => key === undefined)) {
    throw malformedXml(`a Delete names 1 to ${INPUT_LIMITS.s3DeleteKeys} objects, each with a Key`)
  }
  const quiet = childNamed(root, 'Quiet')?.text.trim() === 'true'
  const deleted: XmlNode[] = []
  const errors: XmlNode[] = []
  for (const { key, versionId } of objects as Array<{ key: string, versionId?: string }>) {
    const kept = versionId !== undefined && versionId !== 'null'
    try {
      if (kept) await removeVersion(key, versionId)
      else await files.delete(userId, pathOf(bucket, key), undefined, { skipTrash })
      if (!quiet) deleted.push({ Key: key, VersionId: versionId })
    } catch (error) {
      if (error instanceof NotFoundError && !kept) {
        if (!quiet) deleted.push({ Key: key })
      } else {
        const s3 = s3ErrorOf(error, key)
        errors.push({ Key: key, VersionId: versionId, Code: s3.code, Message: s3.message })
      }
    }
  }
  return { Deleted: deleted, Error: errors }
}

/** x-amz-copy-source: `/bucket/key[?versionId=…]`, URL-encoded; 400 when it is not one. */
export function copySourceOf (request: FastifyRequest): { bucket: string, key: string, versionId: string | null } {
  const source = String(request.headers['x-amz-copy-source'])
  const [sourcePath, sourceQuery] = source.replace(/^\//, '').split('?', 2)
  let decoded: string
  let versionId: string | null
  try {
    decoded = decodeURIComponent(sourcePath)
    versionId = new URLSearchParams(sourceQuery ?? '').get('versionId')
  } catch {
    throw invalidArgument('x-amz-copy-source is not a URL-encoded bucket/key')
  }
  const slash = decoded.indexOf('/')
  if (slash < 1 || slash === decoded.length - 1) throw invalidArgument('x-amz-copy-source must be bucket/key')
  return { bucket: decoded.slice(0, slash), key: decoded.slice(slash + 1), versionId }
}

/** CopyObject: done by the file API's copy, inside the store; the source is `/bucket/key` of the same user. */
export async function copyObject (files: FileService, metadata: S3MetadataRepository, owner: Owner, bucket: string, key: string, request: FastifyRequest): Promise<XmlNode> {
  const { bucket: fromBucket, key: fromKey, versionId } = copySourceOf(request)
  if (versionId !== null && versionId !== 'null') return await copyVersion(files, owner, { bucket: fromBucket, key: fromKey, versionId }, { bucket, key }, request)
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
  const kept = directive === 'REPLACE' ? metadataOf(request.headers) : await metadataOfFile(metadata, owner.userId, pathOf(fromBucket, fromKey), sourceFile)
  if (fromBucket === bucket && fromKey === key) {
    // Onto itself: only to change its metadata (rclone sets a file's time so), the content stays.
    if (directive !== 'REPLACE') throw new S3Error('InvalidRequest', 400, 'This copy request is illegal because it is trying to copy an object to itself without changing the object\'s metadata, storage class, website redirect location or encryption attributes.')
    await files.setMetadata(owner.userId, pathOf(bucket, key), sourceFile.etag, kept)
    return { LastModified: sourceFile.lastModified.toISOString(), ETag: sourceFile.etag }
  }
  const copied = await withKey(fromKey, () => files.copy(owner, pathOf(fromBucket, fromKey), pathOf(bucket, key), {
    source: { ifMatch: [sourceFile.etag] },
    destination: writePreconditions(request.headers),
    contentType: directive === 'REPLACE' ? contentTypeOf(request) : undefined,
    metadata: kept
  }))
  return { LastModified: new Date(copied.lastModified).toISOString(), ETag: copied.etag }
}

/** CopyObject of a kept version: the version's restore to the destination (inside the store; what it replaces is kept as a version). */
async function copyVersion (files: FileService, owner: Owner, source: { bucket: string, key: string, versionId: string }, to: { bucket: string, key: string }, request: FastifyRequest): Promise<XmlNode> {
  const version = await files.versions?.find(owner.userId, source.versionId).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined
    throw error
  })
  if (!version || version.path !== pathOf(source.bucket, source.key)) throw new S3Error('NoSuchVersion', 404, 'The specified version does not exist.')
  const { ifMatch } = writePreconditions(request.headers)
  const copied = await files.versions!.restore(owner, source.versionId, { to: pathOf(to.bucket, to.key), ifMatch })
  // A version keeps no metadata: the restored file has none, or what this request gives it.
  if (request.headers['x-amz-metadata-directive'] === 'REPLACE') await files.setMetadata(owner.userId, pathOf(to.bucket, to.key), copied.etag, metadataOf(request.headers))
  return { LastModified: new Date(copied.lastModified).toISOString(), ETag: copied.etag }
}
