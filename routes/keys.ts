import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { stowageOf } from '../http/decorators.js'
import { DOCUMENTED } from '../schemas/openapi.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { CreatedKey, CreateKeyBody, KeyIdParams, KeyList } from '../schemas/keys.js'

export const keysRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { stowageAuthenticate, stowageKeys: keys } = stowageOf(app)
  app.removeContentTypeParser(['text/plain'])
  app.addHook('onRequest', stowageAuthenticate)

  app.post('/api/keys', {
    config: DOCUMENTED,
    // A bare POST creates an unnamed key that never expires.
    preValidation: async (request) => { request.body ??= {} },
    schema: {
      operationId: 'createKey',
      tags: ['keys'],
      summary: 'Create an API key; the key itself is in this answer only',
      security: CALLER_SECURITY,
      body: Type.Ref(CreateKeyBody),
      'x-optional-body': true,
      response: { 201: answer('The new key: `key` is shown this once', Type.Ref(CreatedKey)), ...errorResponses(400, 415, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => {
    const created = await keys.create({ userId: request.userId, orgId: request.orgId, ...request.body, createdWith: request.stowageCredential ?? undefined })
    return reply.code(201).send(created)
  })

  app.get('/api/keys', {
    config: DOCUMENTED,
    schema: {
      operationId: 'listKeys',
      tags: ['keys'],
      summary: 'Your active keys, without their secrets',
      security: CALLER_SECURITY,
      response: { 200: answer('Your keys that are neither revoked nor expired, newest first', Type.Ref(KeyList)), ...errorResponses(...CALLER_REFUSALS) }
    }
  }, async (request) => ({ keys: await keys.list(request.userId) }))

  app.delete('/api/keys/:id', {
    config: DOCUMENTED,
    schema: {
      operationId: 'revokeKey',
      tags: ['keys'],
      summary: 'Revoke one of your keys, and every key created with it',
      description: 'Authenticated with an API key, you may revoke only that key and the keys created with it.',
      security: CALLER_SECURITY,
      params: KeyIdParams,
      response: { 204: Type.Null({ description: 'Revoked, with every key created with it' }), ...errorResponses(400, 404, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => {
    await keys.revoke(request.userId, request.params.id, request.stowageCredential ?? undefined)
    return reply.code(204).send(null)
  })
}
