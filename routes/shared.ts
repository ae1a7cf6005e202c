import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { stowageOf } from '../http/decorators.js'
import { DOCUMENTED } from '../schemas/openapi.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { MountRename, Received, ReceivedList, ShareIdParams } from '../schemas/shares.js'

/** What others share with the caller, mounted at the top of their files (DESIGN §13). */
export const sharedRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { stowageAuthenticate, stowageShares: shares } = stowageOf(app)
  app.addHook('onRequest', stowageAuthenticate)

  app.get('/api/shared', {
    config: DOCUMENTED,
    schema: {
      operationId: 'listReceivedShares',
      tags: ['shares'],
      summary: 'What others share with you, and where it is mounted',
      security: CALLER_SECURITY,
      response: { 200: answer('Shared with you', Type.Ref(ReceivedList)), ...errorResponses(...CALLER_REFUSALS) }
    }
  }, async (request) => ({ shares: await shares.received(request.userId) }))

  app.patch('/api/shared/:id', {
    config: DOCUMENTED,
    schema: {
      operationId: 'renameMount',
      tags: ['shares'],
      summary: 'Rename where a share is mounted in your files',
      description: 'The owner\'s files keep their names.',
      security: CALLER_SECURITY,
      params: ShareIdParams,
      body: MountRename,
      response: { 200: answer('The share as you see it now', Type.Ref(Received)), ...errorResponses(400, 404, 409, 415, ...CALLER_REFUSALS) }
    }
  }, async (request) => await shares.rename(request.userId, request.params.id, request.body.name))

  app.delete('/api/shared/:id', {
    config: DOCUMENTED,
    schema: {
      operationId: 'leaveShare',
      tags: ['shares'],
      summary: 'Leave a share',
      description: 'The owner\'s files stay. A share with you ends; one with your whole organization is hidden for you only.',
      security: CALLER_SECURITY,
      params: ShareIdParams,
      response: { 204: Type.Null({ description: 'Left: it is no longer in your files' }), ...errorResponses(400, 404, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => {
    await shares.leave(request.userId, request.params.id)
    return reply.code(204).send(null)
  })
}
