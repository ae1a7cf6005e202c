import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { NotFoundError } from '../errors.js'
import { stowageOf } from '../http/decorators.js'
import { parseRange, readConditions, writePreconditions } from '../storage/conditional.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { FileWritten, RangeHeaders, WriteHeaders } from '../schemas/files.js'
import { DOCUMENTED, RAW_FILE_HEADERS, rawFileAnswers } from '../schemas/openapi.js'
import { RestoreBody } from '../schemas/trash.js'
import { VersionIdParams, VersionList, VersionListQuery } from '../schemas/versions.js'
import { ownerOf, sendBody, sendRawHeaders } from '../http/file-answers.js'

/** Replaced files, kept as versions of their path until VERSION_RETENTION_DAYS pass, thinned. */
export const versionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { stowageAuthenticate, stowageFiles: files } = stowageOf(app)
  const versions = files.versions
  const kept = () => {
    if (!versions) throw new NotFoundError('no such version of your files (nothing is kept: VERSION_RETENTION_DAYS is 0)')
    return versions
  }
  app.addHook('onRequest', stowageAuthenticate)

  app.get('/api/versions', {
    config: DOCUMENTED,
    schema: {
      operationId: 'listVersions',
      tags: ['versions'],
      summary: 'A file\'s earlier versions, newest first, 100 a page',
      security: CALLER_SECURITY,
      querystring: VersionListQuery,
      response: { 200: answer('One page of the file\'s versions', Type.Ref(VersionList)), ...errorResponses(400, ...CALLER_REFUSALS) }
    }
  }, async (request) => versions
    ? versions.list(request.userId, request.query.path, request.query.continuationToken)
    : { versions: [], isTruncated: false })

  app.get('/api/versions/:id', {
    config: DOCUMENTED,
    exposeHeadRoute: false,
    schema: {
      operationId: 'downloadVersion',
      tags: ['versions'],
      summary: 'Read a version as it is, or a range of it',
      security: CALLER_SECURITY,
      params: VersionIdParams,
      headers: RangeHeaders,
      response: { ...rawFileAnswers('The version'), ...errorResponses(400, 404, 416, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => {
    const { path, read } = await kept().read(request.userId, request.params.id, { range: parseRange(request.headers.range), ...readConditions(request.headers) })
    sendRawHeaders(reply, read.file, path)
    if (read.notModified) return reply.code(304).send()
    return sendBody(reply, read.file)
  })

  app.post('/api/versions/:id/restore', {
    config: DOCUMENTED,
    preValidation: async (request) => { request.body ??= {} },
    schema: {
      operationId: 'restoreVersion',
      tags: ['versions'],
      summary: 'Make a version the file again, at its path or at `to`',
      description: 'The file it replaces becomes a version in turn: nothing is lost either way. If-Match applies to that file.',
      security: CALLER_SECURITY,
      params: VersionIdParams,
      headers: WriteHeaders,
      body: Type.Ref(RestoreBody),
      'x-optional-body': true,
      response: {
        200: { ...answer('Restored: the file as it is stored now', Type.Ref(FileWritten)), headers: { ETag: RAW_FILE_HEADERS.ETag } },
        ...errorResponses(400, 404, 412, 415, 507, ...CALLER_REFUSALS)
      }
    }
  }, async (request, reply) => {
    const { ifMatch } = writePreconditions(request.headers)
    const restored = await kept().restore(ownerOf(request), request.params.id, { to: request.body.to, ifMatch })
    reply.header('etag', restored.etag)
    return restored
  })

  app.delete('/api/versions/:id', {
    config: DOCUMENTED,
    schema: {
      operationId: 'removeVersion',
      tags: ['versions'],
      summary: 'Remove one version for good',
      security: CALLER_SECURITY,
      params: VersionIdParams,
      response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(400, 404, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => {
    await kept().remove(request.userId, request.params.id)
    return reply.code(204).send(null)
  })
}
