import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { NotFoundError } from '../errors.js'
import { stowageOf } from '../http/decorators.js'
import { DOCUMENTED, RAW_FILE_HEADERS } from '../schemas/openapi.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { FileWritten } from '../schemas/files.js'
import { RestoreBody, TrashIdParams, TrashList, TrashListQuery } from '../schemas/trash.js'

/** Deleted files, until TRASH_RETENTION_DAYS pass. With a retention of 0 the trash is always empty. */
export const trashRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { stowageAuthenticate, stowageFiles: files } = stowageOf(app)
  const trash = files.trash
  const kept = () => {
    if (!trash) throw new NotFoundError('no such item in your trash (deletes are at once: TRASH_RETENTION_DAYS is 0)')
    return trash
  }
  app.addHook('onRequest', stowageAuthenticate)

  app.get('/api/trash', {
    config: DOCUMENTED,
    schema: {
      operationId: 'listTrash',
      tags: ['trash'],
      summary: 'Your deleted files, newest first, 100 a page',
      security: CALLER_SECURITY,
      querystring: TrashListQuery,
      response: { 200: answer('One page of your trash', Type.Ref(TrashList)), ...errorResponses(400, ...CALLER_REFUSALS) }
    }
  }, async (request) => trash ? trash.list(request.userId, request.query.continuationToken) : { items: [], isTruncated: false })

  app.delete('/api/trash', {
    config: DOCUMENTED,
    schema: {
      operationId: 'emptyTrash',
      tags: ['trash'],
      summary: 'Purge every file in your trash',
      security: CALLER_SECURITY,
      response: { 204: Type.Null({ description: 'Emptied' }), ...errorResponses(...CALLER_REFUSALS) }
    }
  }, async (request, reply) => {
    await trash?.empty(request.userId)
    return reply.code(204).send(null)
  })

  app.post('/api/trash/:id/restore', {
    config: DOCUMENTED,
    preValidation: async (request) => { request.body ??= {} },
    schema: {
      operationId: 'restoreFromTrash',
      tags: ['trash'],
      summary: 'Put a deleted file back, where it was or at `to`',
      security: CALLER_SECURITY,
      params: TrashIdParams,
      body: Type.Ref(RestoreBody),
      'x-optional-body': true,
      response: {
        200: { ...answer('Restored: the file as it is stored now', Type.Ref(FileWritten)), headers: { ETag: RAW_FILE_HEADERS.ETag } },
        ...errorResponses(400, 404, 412, 415, ...CALLER_REFUSALS)
      }
    }
  }, async (request, reply) => {
    const restored = await kept().restore(request.userId, request.params.id, request.body.to)
    reply.header('etag', restored.etag)
    return restored
  })

  app.delete('/api/trash/:id', {
    config: DOCUMENTED,
    schema: {
      operationId: 'purgeFromTrash',
      tags: ['trash'],
      summary: 'Purge one deleted file for good',
      security: CALLER_SECURITY,
      params: TrashIdParams,
      response: { 204: Type.Null({ description: 'Purged' }), ...errorResponses(400, 404, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => {
    await kept().purge(request.userId, request.params.id)
    return reply.code(204).send(null)
  })
}
