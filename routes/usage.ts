import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { stowageOf } from '../http/decorators.js'
import { DOCUMENTED } from '../schemas/openapi.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { Usage } from '../schemas/usage.js'
import { ownerOf } from '../http/file-answers.js'

/** What the caller stores, against the quota that applies to them. */
export const usageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { stowageAuthenticate, stowageQuotas: quotas } = stowageOf(app)
  app.addHook('onRequest', stowageAuthenticate)

  app.get('/api/usage', {
    config: DOCUMENTED,
    schema: {
      operationId: 'getUsage',
      tags: ['files'],
      summary: 'Your usage and your quota',
      security: CALLER_SECURITY,
      response: { 200: answer('Bytes you store, by kind, and your quota', Type.Ref(Usage)), ...errorResponses(...CALLER_REFUSALS) }
    }
  }, async (request) => quotas.usage(ownerOf(request)))
}
