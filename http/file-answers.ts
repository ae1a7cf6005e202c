// What the file routes, JSON and raw, send about a file and how they read an uploaded body.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import { BadRequestError, PayloadTooLargeError } from '../errors.js'
import type { Owner } from '../db/usage.js'
import type { ByteBudget } from '../limits.js'
import { parseRange, readConditions, writePreconditions } from '../storage/conditional.js'
import { DEFAULT_CONTENT_TYPE, type FileService } from '../storage/files.js'
import type { ObjectMeta, ObjectRead } from '../storage/object-store.js'
import type { ImageTransform, Images } from '../storage/images.js'
import { isFileMediaType } from '../schemas/files.js'
import { TRASH_ID_HEADER } from '../schemas/openapi.js'

/** ETag and Last-Modified, and a cache that must ask again before reusing a copy: files change. */
export function sendValidators (reply: FastifyReply, file: ObjectMeta) {
  reply.header('etag', file.etag)
  reply.header('last-modified', file.lastModified.toUTCString())
  reply.header('cache-control', 'private, no-cache')
}

// The only types shown in a browser rather than downloaded: inert ones, which run nothing and render
// no page (SVG is a page; PDF opens in the viewer's own sandbox).
const INLINE_TYPE = /^(image\/(png|jpeg|gif|webp|avif|bmp)|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+|application\/pdf|text\/plain)$/

/** What a browser is told about a file: its type, and `attachment` unless the type is inert. A type
 *  stored before types were checked as they are now is sent as bytes of no type. */
export function servedAs (contentType: string, path: string): { contentType: string, disposition?: string } {
  const valid = isFileMediaType(contentType)
  if (valid && INLINE_TYPE.test(contentType.split(';')[0].trim().toLowerCase())) return { contentType }
  const name = path.slice(path.lastIndexOf('/') + 1)
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return {
    contentType: valid ? contentType : DEFAULT_CONTENT_TYPE,
    disposition: `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
  }
}

/** What user content may do in a browser: nothing but show itself. */
const SANDBOX_POLICY = "sandbox; default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'"

/**
 * The headers of a raw answer. User content shares the API's origin, so it may never run there:
 * no type sniffing, a sandboxing policy, and only inert types shown rather than downloaded.
 */
export function sendRawHeaders (reply: FastifyReply, file: ObjectMeta, path: string) {
  sendValidators(reply, file)
  reply.header('accept-ranges', 'bytes')
  sendServedAs(reply, file.contentType, path)
}

/**
 * User content's type as a browser may take it, wherever it is answered (the raw routes, S3's
 * GetObject): `servedAs`'s type, no sniffing, a sandbox, and `attachment` unless inert; `disposition`
 * is one the client asked for, kept when the type is inert or it is an attachment already.
 */
export function sendServedAs (reply: FastifyReply, contentType: string, path: string, disposition?: string) {
  const served = servedAs(contentType, path)
  reply.header('content-type', served.contentType)
  reply.header('x-content-type-options', 'nosniff')
  reply.header('content-security-policy', SANDBOX_POLICY)
  if (served.disposition && !disposition?.trim().toLowerCase().startsWith('attachment')) reply.header('content-disposition', served.disposition)
  else if (disposition !== undefined) reply.header('content-disposition', disposition)
}

/** The bytes of `file.body` as they go out: 206 with Content-Range for a range, else 200. */
export function sendBody (reply: FastifyReply, file: ObjectRead) {
  if (file.range) {
    const { start, end } = file.range
    reply.code(206).header('content-range', `bytes ${start}-${end}/${file.size}`).header('content-length', end - start + 1)
  } else {
    reply.header('content-length', file.size)
  }
  return reply.send(file.body)
}

// Below this, the JSON answer is built in memory: one string is faster than a stream.
const WHOLE_JSON_BYTES = 1024 * 1024
const BASE64_STEP = 3 * 64 * 1024

async function * base64Of (body: AsyncIterable<Buffer>): AsyncGenerator<string> {
  let carry: Buffer = Buffer.alloc(0)
  for await (const chunk of body) {
    const bytes: Buffer = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk
    const whole = bytes.length - (bytes.length % 3)
    for (let at = 0; at < whole; at += BASE64_STEP) yield bytes.toString('base64', at, Math.min(at + BASE64_STEP, whole))
    carry = bytes.subarray(whole)
  }
  if (carry.length > 0) yield carry.toString('base64')
}

/** `{content, contentType}` with the body in base64, encoded as it streams: memory does not follow the file. */
export async function base64Json (file: ObjectRead): Promise<string | Readable> {
  const tail = `","contentType":${JSON.stringify(file.contentType)}}`
  if (file.size <= WHOLE_JSON_BYTES) {
    const chunks: Buffer[] = []
    for await (const chunk of file.body) chunks.push(chunk as Buffer)
    return `{"content":"${Buffer.concat(chunks).toString('base64')}${tail}`
  }
  return Readable.from((async function * () {
    yield '{"content":"'
    yield * base64Of(file.body)
    yield tail
  })(), { objectMode: false })
}

/**
 * The request's body as the file's bytes: over `maxBytes` by its declared length, 413 before a byte
 * is read; a connection that drops or stalls part way (the idle timeout) ends it as a client's
 * fault, not the store's.
 */
export function uploadedBody (request: IncomingMessage, maxBytes: number): AsyncIterable<Buffer> {
  const declared = request.headers['content-length']
  if (declared !== undefined && Number(declared) > maxBytes) throw new PayloadTooLargeError(`file is larger than ${maxBytes} bytes`)
  return (async function * () {
    try {
      for await (const chunk of request.iterator({ destroyOnReturn: false })) yield chunk as Buffer
    } catch (error) {
      if (request.destroyed || request.readableAborted) throw new BadRequestError('the upload was cut off before its end')
      throw error
    }
  })()
}

/** A raw download (`/api/raw`, a download link): the file or its range, 304 when the copy is current. */
export async function serveRawFile (files: FileService, request: FastifyRequest, reply: FastifyReply, userId: string, path: string) {
  const read = await files.read(userId, path, { range: parseRange(request.headers.range), ...readConditions(request.headers) })
  sendRawHeaders(reply, read.file, path)
  if (read.notModified) return reply.code(304).send()
  return sendBody(reply, read.file)
}

/** The image at `path` of `userId`'s files, transformed: for the images route and a download link. */
export async function serveImage (images: Images, request: FastifyRequest, reply: FastifyReply, userId: string, path: string, transform: ImageTransform) {
  const image = await images.transformed(userId, path, transform, readConditions(request.headers))
  reply.header('etag', image.etag)
  reply.header('last-modified', image.lastModified.toUTCString())
  // A copy is the browser's own, checked again each time: the source may change under the same URL.
  reply.header('cache-control', 'private, no-cache')
  if (image.notModified) return reply.code(304).send()
  sendServedAs(reply, image.contentType, path)
  return reply.header('content-length', image.size).send(image.body)
}

/** The request's Content-Type, when it is one a file may have (application/octet-stream when absent). */
export function uploadedType (request: FastifyRequest): string {
  const contentType = request.headers['content-type'] ?? DEFAULT_CONTENT_TYPE
  if (!isFileMediaType(contentType)) throw new BadRequestError('Content-Type must be a media type such as text/markdown')
  return contentType
}

/** Whose bytes a request writes: its caller, and the caller's organization. */
export const ownerOf = (request: FastifyRequest): Owner => ({ userId: request.userId, orgId: request.orgId })

/** The request's Content-Length, when it declares one. */
export const declaredLength = (request: FastifyRequest) =>
  request.headers['content-length'] === undefined ? undefined : Number(request.headers['content-length'])

/** A raw upload (`/api/raw`, an upload link), streamed into the store within the upload memory
 *  budget, of which it takes what it will hold: its length, up to what one write buffers. */
export async function receiveRawFile (files: FileService, uploadMemory: ByteBudget, request: FastifyRequest, reply: FastifyReply,
  owner: Owner, path: string, { contentType = uploadedType(request), maxBytes = files.maxUploadBytes }: { contentType?: string, maxBytes?: number } = {}) {
  const preconditions = writePreconditions(request.headers)
  const length = declaredLength(request)
  const held = uploadMemory.holdFor(uploadedBody(request.raw, maxBytes), length, files.writeBufferBytes)
  try {
    const written = await files.write(owner, path, held.body, { contentType, maxBytes, preconditions, length })
    reply.header('etag', written.etag)
    return written
  } finally {
    held.release()
  }
}

/** Deletes the file at `path`, if its preconditions hold: 204, naming the trash item it became. */
export async function deleteFile (files: FileService, request: FastifyRequest, reply: FastifyReply, userId: string, path: string) {
  const { trashId } = await files.delete(userId, path, writePreconditions(request.headers))
  if (trashId) reply.header(TRASH_ID_HEADER, trashId)
  return reply.code(204).send(null)
}
