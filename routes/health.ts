import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Health, HealthQuery } from '../schemas/health.js'

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: {
      operationId: 'getHealth',
      tags: ['health'],
      summary: 'Readiness: whether the database and the file store answer; ?probe=live checks only the process',
      security: [],
      querystring: HealthQuery,
      response: { 200: Type.Ref(Health), 503: Type.Ref(Health) }
    }
  }, async (request, reply) => {
    // Liveness must not fail over a database blip: an orchestrator would restart a healthy process.
    if (request.query.probe === 'live') return { status: 'ok' as const, checks: {} }
    const report = await app.checkHealth()
    return reply.code(report.status === 'ok' ? 200 : 503).send(report)
  })
}
