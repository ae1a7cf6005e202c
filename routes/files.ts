import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { uploadBodyLimit } from '../config.js'
import { BadRequestError } from '../errors.js'
import { createByteBudget, type ByteBudget } from '../limits.js'
import { readConditions, writePreconditions } from '../storage/conditional.js'
import { parseUpload } from '../storage/upload-body.js'
import { stowageOf } from '../http/decorators.js'
import { DOCUMENTED, TRASH_ID_HEADERS, RAW_FILE_HEADERS } from '../schemas/openapi.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { FileContent, FileList, FilePathParams, FileUpload, FileWritten, ListFilesQuery, ReadHeaders, SearchQuery, WriteHeaders } from '../schemas/files.js'
import { DEFAULT_UPLOAD_MEMORY_BYTES } from '../defaults.js'
import { base64Json, deleteFile, ownerOf, sendValidators } from '../http/file-answers.js'


declare module 'fastify' {
  interface FastifyRequest {
    /** The decoded `content` of an upload. */
    stowageUploadBytes?: Buffer
    /** Bytes of the upload budget this request holds until it is done. */
    stowageUploadHeld?: number
  }
}

export interface FilesRoutesOptions {
  /** Upload bytes held in memory across the process; past it, uploads are 503 with Retry-After. */
  uploadMemory?: ByteBudget
  /** The whole upload body must arrive within this. */
  uploadTimeoutMs?: number
}

export const filesRoutes: FastifyPluginAsyncTypebox<FilesRoutesOptions> = async (app, { uploadMemory: memory = createByteBudget(DEFAULT_UPLOAD_MEMORY_BYTES), uploadTimeoutMs }) => {
  const { stowageAuthenticate, stowageFiles: files } = stowageOf(app)
  const bodyLimit = uploadBodyLimit(files.maxFileBytes)
  const release = async (request: FastifyRequest) => {
    memory.give(request.stowageUploadHeld ?? 0)
    request.stowageUploadHeld = 0
  }
  // JSON only: anything else is 415, not a string that fails validation. A raw parser gets no
  // bodyLimit from Fastify: parseUpload enforces it.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', async (request: FastifyRequest, payload: IncomingMessage) => {
    const declared = request.headers['content-length']
    const upload = await parseUpload(payload, declared === undefined ? undefined : Number(declared), bodyLimit, files.maxFileBytes, {
      memory, timeoutMs: uploadTimeoutMs
    })
    request.stowageUploadBytes = upload.bytes
    request.stowageUploadHeld = upload.held
    return upload.body
  })
  app.addHook('onResponse', release)
  app.addHook('onRequestAbort', release)
  app.addHook('onRequest', stowageAuthenticate)

  app.get('/api/files', {
    config: DOCUMENTED,
    schema: {
      operationId: 'listFiles',
      tags: ['files'],
      summary: 'List your files, 100 a page',
      security: CALLER_SECURITY,
      querystring: ListFilesQuery,
      response: { 200: answer('One page of your files, in key order or the order asked for', Type.Ref(FileList)), ...errorResponses(400, 503, ...CALLER_REFUSALS) }
    }
  }, async (request) => {
    const { prefix, continuationToken, delimiter, sort, order, folders } = request.query
    return await files.list(request.userId, { prefix, continuationToken, delimiter, sort, order, foldersFirst: folders === 'first' })
  })

  app.get('/api/search', {
    config: DOCUMENTED,
    schema: {
      operationId: 'searchFiles',
      tags: ['files'],
      summary: 'Find your files by name, 100 a page',
      description: 'Files whose path holds `q` (in any case and either Unicode form), by path or newest first. 503 while a deployment that was upgraded is still indexing your files.',
      security: CALLER_SECURITY,
      querystring: SearchQuery,
      response: { 200: answer('One page of the files found', Type.Ref(FileList)), ...errorResponses(400, 503, ...CALLER_REFUSALS) }
    }
  }, async (request) => files.search(request.userId, request.query))

  app.get('/api/files/*', {
    config: DOCUMENTED,
    schema: {
      operationId: 'getFile',
      tags: ['files'],
      summary: 'Read a file',
      security: CALLER_SECURITY,
      params: FilePathParams,
      headers: ReadHeaders,
      response: {
        200: { ...answer('The file, base64-encoded, and its media type', Type.Ref(FileContent)), headers: { ETag: RAW_FILE_HEADERS.ETag } },
        304: { description: 'Your copy is current (If-None-Match / If-Modified-Since)', type: 'null' },
        ...errorResponses(400, 404, ...CALLER_REFUSALS)
      }
    }
  }, async (request, reply) => {
    const read = await files.read(request.userId, request.params['*'], readConditions(request.headers))
    sendValidators(reply, read.file)
    if (read.notModified) return reply.code(304).send()
    return reply.type('application/json; charset=utf-8').send(await base64Json(read.file))
  })

  app.put('/api/files/*', {
    config: DOCUMENTED,
    schema: {
      operationId: 'putFile',
      tags: ['files'],
      summary: 'Create or replace a file',
      security: CALLER_SECURITY,
      params: FilePathParams,
      headers: WriteHeaders,
      body: Type.Ref(FileUpload),
      response: {
        200: { ...answer('Written whole: what is stored now', Type.Ref(FileWritten)), headers: { ETag: RAW_FILE_HEADERS.ETag } },
        ...errorResponses(400, 403, 412, 413, 415, 507, ...CALLER_REFUSALS)
      }
    }
  }, async (request, reply) => {
    if (!request.stowageUploadBytes) throw new BadRequestError('content must be a string')
    const bytes = request.stowageUploadBytes
    const written = await files.write(ownerOf(request), request.params['*'], [bytes], {
      contentType: request.body.contentType, maxBytes: files.maxFileBytes, preconditions: writePreconditions(request.headers), length: bytes.length
    })
    reply.header('etag', written.etag)
    return written
  })

  app.delete('/api/files/*', {
    config: DOCUMENTED,
    schema: {
      operationId: 'deleteFile',
      tags: ['files'],
      summary: 'Delete a file',
      security: CALLER_SECURITY,
      params: FilePathParams,
      headers: WriteHeaders,
      response: { 204: { ...Type.Null({ description: 'Deleted: in the trash, unless TRASH_RETENTION_DAYS is 0' }), headers: TRASH_ID_HEADERS }, ...errorResponses(400, 403, 404, 412, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => deleteFile(files, request, reply, request.userId, request.params['*']))
}
