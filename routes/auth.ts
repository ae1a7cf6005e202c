import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { RefreshBody, StorageLocation, TokenSet } from '../schemas/auth.js'
import { stowageOf } from '../plugins/decorators.js'
import { DOCUMENTED } from '../schemas/openapi.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'

export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { stowageAuthenticate, stowageFiles, stowageIdentity } = stowageOf(app)
  app.removeContentTypeParser(['text/plain'])

  app.post('/api/auth/refresh', {
    config: DOCUMENTED,
    schema: {
      operationId: 'refreshTokens',
      tags: ['auth'],
      summary: 'Fresh identity-provider tokens and temporary AWS credentials for your prefix',
      description: 'Authenticated by the refresh token itself: no Authorization header.',
      security: [],
      body: RefreshBody,
      response: { 200: answer('Fresh tokens, and AWS credentials for your prefix only', Type.Ref(TokenSet)), ...errorResponses(400, 401, 415, 502, 503) }
    }
  }, async (request) => stowageIdentity.refresher.refresh(request.body.refreshToken))

  app.get('/api/auth/credentials', {
    config: DOCUMENTED,
    onRequest: stowageAuthenticate,
    schema: {
      operationId: 'getStorageLocation',
      tags: ['auth'],
      summary: 'Where your files are stored: bucket, region and your prefix',
      security: CALLER_SECURITY,
      response: { 200: answer('Your bucket, region and prefix', Type.Ref(StorageLocation)), ...errorResponses(...CALLER_REFUSALS) }
    }
  }, async (request) => stowageFiles.location(request.userId))
}
