import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Health } from '../schemas/health.js'

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: {
      operationId: 'getHealth',
      tags: ['health'],
      summary: 'Whether the service and its database answer',
      security: [],
      response: { 200: Type.Ref(Health), 503: Type.Ref(Health) }
    }
  }, async (_request, reply) => {
    const report = await app.checkHealth()
    return reply.code(report.status === 'ok' ? 200 : 503).send(report)
  })
}
