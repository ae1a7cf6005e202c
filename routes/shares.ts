import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ownerOf } from '../http/file-answers.js'
import { stowageOf } from '../http/decorators.js'
import { DOCUMENTED } from '../schemas/openapi.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { Share, ShareBody, ShareChange, ShareIdParams, ShareList, SharesQuery } from '../schemas/shares.js'

/** What a person shares with others, as the owner (DESIGN §13). */
export const shareRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { stowageAuthenticate, stowageShares: shares } = stowageOf(app)
  app.addHook('onRequest', stowageAuthenticate)

  app.post('/api/shares', {
    config: DOCUMENTED,
    schema: {
      operationId: 'share',
      tags: ['shares'],
      summary: 'Share a file or folder of yours with a person or your organization',
      description: 'A folder shared becomes a folder made on purpose. The share follows the file or folder when you move or rename it, and ends when you delete it.',
      security: CALLER_SECURITY,
      body: ShareBody,
      response: { 201: answer('Shared', Type.Ref(Share)), ...errorResponses(400, 403, 404, 409, 415, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => reply.code(201).send(await shares.add(ownerOf(request), request.body)))

  app.get('/api/shares', {
    config: DOCUMENTED,
    schema: {
      operationId: 'listShares',
      tags: ['shares'],
      summary: 'What you share, by path',
      security: CALLER_SECURITY,
      querystring: SharesQuery,
      response: { 200: answer('Your shares', Type.Ref(ShareList)), ...errorResponses(400, ...CALLER_REFUSALS) }
    }
  }, async (request) => ({ shares: await shares.list(ownerOf(request), request.query.path) }))

  app.patch('/api/shares/:id', {
    config: DOCUMENTED,
    schema: {
      operationId: 'changeShare',
      tags: ['shares'],
      summary: 'Change a share\'s role or expiry',
      security: CALLER_SECURITY,
      params: ShareIdParams,
      body: ShareChange,
      response: { 200: answer('The share as it is now', Type.Ref(Share)), ...errorResponses(400, 404, 415, ...CALLER_REFUSALS) }
    }
  }, async (request) => await shares.change(ownerOf(request), request.params.id, request.body))

  app.delete('/api/shares/:id', {
    config: DOCUMENTED,
    schema: {
      operationId: 'unshare',
      tags: ['shares'],
      summary: 'End a share',
      security: CALLER_SECURITY,
      params: ShareIdParams,
      response: { 204: Type.Null({ description: 'Ended: the grantee has no access from now on' }), ...errorResponses(400, 404, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => {
    await shares.remove(ownerOf(request), request.params.id)
    return reply.code(204).send(null)
  })
}
