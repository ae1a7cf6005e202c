import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { createByteBudget, type ByteBudget } from '../limits.js'
import { stowageOf } from '../http/decorators.js'
import { isNotModified, readConditions } from '../storage/conditional.js'
import { DEFAULT_UPLOAD_MEMORY_BYTES } from '../defaults.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { FilePathParams, FileWritten, RangeHeaders, ReadHeaders, WriteHeaders } from '../schemas/files.js'
import { describeRawUpload, DOCUMENTED, TRASH_ID_HEADERS, DOCUMENTED_HEAD, RAW_FILE_HEADERS, NOT_MODIFIED, rawFileAnswers } from '../schemas/openapi.js'
import { deleteFile, ownerOf, receiveRawFile, sendRawHeaders, serveRawFile } from '../http/file-answers.js'

export interface RawRoutesOptions {
  /** Upload bytes held in memory across the process (shared with the JSON routes). */
  uploadMemory?: ByteBudget
}

/**
 * The file itself as the body, streamed both ways, beside the JSON routes: what a browser, curl, a
 * media player or a sync client uses. Same paths, same authentication, same objects.
 */
export const rawRoutes: FastifyPluginAsyncTypebox<RawRoutesOptions> = async (app, { uploadMemory = createByteBudget(DEFAULT_UPLOAD_MEMORY_BYTES) }) => {
  const { stowageAuthenticate, stowageFiles: files } = stowageOf(app)
  // The body is the file, read by the route as it arrives: no parser may buffer it.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, _payload, done) => done(null))
  app.addHook('onRequest', stowageAuthenticate)

  app.get('/api/raw/*', {
    config: DOCUMENTED,
    exposeHeadRoute: false,
    schema: {
      operationId: 'downloadFile',
      tags: ['files'],
      summary: 'Read a file as it is, or a range of it',
      security: CALLER_SECURITY,
      params: FilePathParams,
      headers: RangeHeaders,
      response: { ...rawFileAnswers('The file'), ...errorResponses(400, 404, 416, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => serveRawFile(files, request, reply, request.userId, request.params['*']))

  app.head('/api/raw/*', {
    config: DOCUMENTED_HEAD,
    schema: {
      operationId: 'describeFile',
      tags: ['files'],
      summary: 'The headers a download would have, without the file',
      security: CALLER_SECURITY,
      params: FilePathParams,
      headers: ReadHeaders,
      response: { 200: { description: 'The file exists', headers: RAW_FILE_HEADERS, type: 'null' }, ...NOT_MODIFIED, ...errorResponses(400, 404, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => {
    const path = request.params['*']
    const file = await files.head(request.userId, path)
    sendRawHeaders(reply, file, path)
    if (isNotModified(file, readConditions(request.headers))) return reply.code(304).send()
    return reply.header('content-length', file.size).send()
  })

  app.put('/api/raw/*', {
    config: { ...DOCUMENTED, swaggerTransform: describeRawUpload, streamedBody: true },
    schema: {
      operationId: 'uploadFile',
      tags: ['files'],
      summary: 'Create or replace a file with the body as it is, streamed',
      description: 'Content-Type is the file\'s media type (application/octet-stream when absent). The file is stored whole or not at all.',
      security: CALLER_SECURITY,
      params: FilePathParams,
      headers: WriteHeaders,
      response: {
        200: { ...answer('Written whole: what is stored now', Type.Ref(FileWritten)), headers: { ETag: RAW_FILE_HEADERS.ETag } },
        ...errorResponses(400, 403, 412, 413, 507, ...CALLER_REFUSALS)
      }
    }
  }, async (request, reply) => receiveRawFile(files, uploadMemory, request, reply, ownerOf(request), request.params['*']))

  app.delete('/api/raw/*', {
    config: DOCUMENTED,
    schema: {
      operationId: 'removeFile',
      tags: ['files'],
      summary: 'Delete a file, if it is still the one you know',
      security: CALLER_SECURITY,
      params: FilePathParams,
      headers: WriteHeaders,
      response: { 204: { ...Type.Null({ description: 'Deleted: in the trash, unless TRASH_RETENTION_DAYS is 0' }), headers: TRASH_ID_HEADERS }, ...errorResponses(400, 403, 404, 412, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => deleteFile(files, request, reply, request.userId, request.params['*']))
}
