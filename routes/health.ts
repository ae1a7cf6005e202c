import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { DOCUMENTED } from '../schemas/openapi.js'
import { stowageOf } from '../http/decorators.js'
import { answer, errorResponses } from '../schemas/common.js'
import { Health, HealthQuery } from '../schemas/health.js'

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    config: DOCUMENTED,
    schema: {
      operationId: 'getHealth',
      tags: ['health'],
      summary: 'Readiness: whether the database and the file store answer; ?probe=live checks only the process',
      security: [],
      querystring: HealthQuery,
      response: {
        200: answer('Ready (or, for ?probe=live, alive)', Type.Ref(Health)),
        400: errorResponses(400)[400],
        503: answer('Not ready: the failing check is named', Type.Ref(Health))
      }
    }
  }, async (request, reply) => {
    // Liveness must not fail over a database blip: an orchestrator would restart a healthy process.
    if (request.query.probe === 'live') return { status: 'ok' as const, checks: {} }
    const report = await stowageOf(app).stowageCheckHealth()
    return reply.code(report.status === 'ok' ? 200 : 503).send(report)
  })
}
