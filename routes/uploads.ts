import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { Server } from '@tus/server'
import { ERRORS } from '@tus/utils'
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { BadRequestError, isRetriedSoon, isStowageError, RETRY_AFTER_SECONDS, UnsupportedMediaTypeError } from '../errors.js'
import type { ByteBudget } from '../limits.js'
import { stowageOf } from '../http/decorators.js'
import { lingerBeforeClose } from '../plugins/errors.js'
import { writePreconditions } from '../storage/conditional.js'
import { DEFAULT_CONTENT_TYPE } from '../storage/files.js'
import type { Destination } from '../storage/tus-store.js'
import type { Owner } from '../db/usage.js'
import { declaredLength, ownerOf } from '../http/file-answers.js'
import { isFileMediaType } from '../schemas/files.js'

export interface UploadRoutesOptions {
  /** Upload bytes held in memory across the process (shared with the other upload routes). */
  uploadMemory: ByteBudget
}

const UPLOAD_ID = /^[0-9a-f]{32}$/
const PIECE_TYPE = 'application/offset+octet-stream'

/** The Node request and answer under @tus/server's web Request (srvx). */
const nodeOf = (request: Request) =>
  (request as Request & { runtime?: { node?: { req?: IncomingMessage, res?: ServerResponse } } }).runtime?.node

/**
 * Where an upload goes, from its Upload-Metadata: `path` (else `filename`, which tus-js-client and
 * Uppy send), `contentType` (else `filetype`), and the destination's `ifMatch` / `ifNoneMatch`.
 */
function destinationOf (metadata: Record<string, string | null> = {}): Omit<Destination, keyof Owner> {
  const path = metadata.path ?? metadata.filename
  if (!path) throw new BadRequestError('Upload-Metadata must name the file: path (or filename)')
  const contentType = metadata.contentType ?? metadata.filetype ?? DEFAULT_CONTENT_TYPE
  if (!isFileMediaType(contentType)) throw new BadRequestError('the contentType of Upload-Metadata must be a media type such as video/mp4')
  const preconditions = writePreconditions({ 'if-match': metadata.ifMatch ?? undefined, 'if-none-match': metadata.ifNoneMatch ?? undefined })
  return { path, contentType, preconditions }
}

/**
 * Resumable uploads with the tus 1.0 protocol (@tus/server): POST /api/uploads creates one, PATCH
 * /api/uploads/{id} sends a piece, HEAD says how far it got, DELETE drops it. Every request passes
 * Stowage's authentication, and an upload answers only the user who created it (404 to anyone else).
 */
export const uploadRoutes: FastifyPluginAsync<UploadRoutesOptions> = async (app, { uploadMemory }) => {
  const { stowageAuthenticate, stowageFiles: files, stowageUploads } = stowageOf(app)
  if (!stowageUploads) return
  const { store, locker } = stowageUploads
  // The caller of each request, for @tus/server's hooks, which see only the request.
  const callers = new WeakMap<IncomingMessage, Owner>()
  const callerOf = (request: Request) => {
    const raw = nodeOf(request)?.req
    const owner = raw && callers.get(raw)
    if (!owner) throw new Error('a tus request reached @tus/server without its caller')
    return owner
  }

  const tus = new Server({
    path: `${app.prefix}/api/uploads`,
    datastore: store,
    maxSize: files.maxUploadBytes,
    relativeLocation: true,
    // Same origin only, like the rest of the API.
    allowedOrigins: [],
    locker,
    getFileIdFromRequest: (_request, lastPath) => lastPath !== undefined && UPLOAD_ID.test(lastPath) ? lastPath : undefined,
    async namingFunction (request, metadata) {
      const owner = callerOf(request)
      const destination = destinationOf(metadata)
      // A destination that already refuses the upload is refused before any byte is sent.
      await files.checkWritable(owner.userId, destination.path, destination.preconditions)
      const id = randomBytes(16).toString('hex')
      store.expect(id, { ...owner, ...destination })
      return id
    },
    async onIncomingRequest (request, id) {
      if (request.method === 'POST') return
      if (!(await store.findOwned(id, callerOf(request).userId))) throw ERRORS.FILE_NOT_FOUND
      if (request.method === 'PATCH') store.announce(id, Number(request.headers.get('content-length')))
    },
    async onUploadFinish (_request, upload) {
      const etag = await store.etagOf(upload.id)
      const headers: Record<string, string> = etag ? { ETag: etag } : {}
      return { headers }
    },
    async onResponseError (request, error) {
      const raw = nodeOf(request)?.req
      // @tus/server answers on the Node response itself, not through the error handler.
      if (raw && !raw.complete) lingerBeforeClose(raw)
      // Said as the raw route says it, so that a client sees one message whichever route it took.
      if ((error as { status_code?: number }).status_code === 413) {
        const message = request.method === 'POST' ? `file is larger than ${files.maxUploadBytes} bytes` : 'the piece goes past the upload\'s Upload-Length'
        return { status_code: 413, body: JSON.stringify({ error: message }) + '\n' }
      }
      if (!isStowageError(error)) return undefined
      const { statusCode, message } = error as Error & { statusCode: number }
      // @tus/server takes no headers from this hook; the Node answer's own are merged into its.
      if (isRetriedSoon(error)) nodeOf(request)?.res?.setHeader('retry-after', String(RETRY_AFTER_SECONDS))
      return { status_code: statusCode, body: JSON.stringify({ error: message }) + '\n' }
    }
  })

  // The body is the upload's piece, read by @tus/server as it arrives: no parser may buffer it.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, _payload, done) => done(null))
  app.addHook('onRequest', stowageAuthenticate)

  async function handle (request: FastifyRequest, reply: FastifyReply) {
    // The tus text's 415, where @tus/server answers 400 (another type) or 403 (none) in plain text.
    if (request.method === 'PATCH' && request.headers['content-type'] !== PIECE_TYPE) {
      throw new UnsupportedMediaTypeError(`a piece is sent with Content-Type: ${PIECE_TYPE}`)
    }
    const carriesBody = request.method === 'PATCH' || request.headers['content-type'] === PIECE_TYPE
    // What the piece will hold: its length, up to what one write buffers (all of that when unknown).
    const held = carriesBody ? Math.min(declaredLength(request) ?? Infinity, files.writeBufferBytes) : 0
    uploadMemory.take(held)
    callers.set(request.raw, ownerOf(request))
    reply.hijack()
    try {
      await tus.handle(request.raw, reply.raw)
    } finally {
      uploadMemory.give(held)
    }
  }
  // tus is not an OpenAPI protocol: docs/api.md describes these routes instead.
  const undocumented = { schema: { hide: true } }
  const streamed = { ...undocumented, config: { streamedBody: true } }
  app.options('/api/uploads', undocumented, handle)
  app.post('/api/uploads', streamed, handle)
  app.head('/api/uploads/:id', undocumented, handle)
  app.patch('/api/uploads/:id', streamed, handle)
  app.delete('/api/uploads/:id', undocumented, handle)
}
