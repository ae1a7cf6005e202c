import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { StorageLocation } from '../schemas/auth.js'
import { CALLER_SECURITY, errorResponses } from '../schemas/common.js'

export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/auth/credentials', {
    onRequest: app.authenticate,
    schema: {
      operationId: 'getStorageLocation',
      tags: ['auth'],
      summary: 'Where your files are stored: bucket, region and your prefix',
      security: CALLER_SECURITY,
      response: { 200: Type.Ref(StorageLocation), ...errorResponses(401) }
    }
  }, async (request) => app.files.location(request.userId))
}
