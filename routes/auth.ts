import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { DeviceAuthorization, ProtectedResource, RefreshBody, StorageLocation, TokenBody, TokenSet } from '../schemas/auth.js'
import { NotFoundError } from '../errors.js'
import { resourceMetadataOf } from '../plugins/identity.js'
import { stowageOf } from '../http/decorators.js'
import { DOCUMENTED } from '../schemas/openapi.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'

export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { stowageAuthenticate, stowageFiles, stowageIdentity, stowageLimitFailures, stowageLimitProviderCalls: providerCalls } = stowageOf(app)
  const { signIn } = stowageIdentity
  app.removeContentTypeParser(['text/plain'])
  // Authenticated by what they carry: an address that keeps failing is throttled, as the chain does.
  const carriesItsCredential = { onRequest: stowageLimitFailures.admit, onSend: stowageLimitFailures.count }
  // Each calls the identity provider with the service's client credentials, for anyone who asks.
  const callsTheProvider = { preHandler: providerCalls.admit }

  app.get('/.well-known/oauth-protected-resource', {
    config: DOCUMENTED,
    schema: {
      operationId: 'getProtectedResourceMetadata',
      tags: ['auth'],
      summary: 'Where to sign in for this service (RFC 9728)',
      description: 'The identity provider, the scopes, and the client id to put in the authorization request. The service exchanges the code: POST /api/auth/token.',
      security: [],
      response: { 200: answer('The resource and its authorization server', Type.Ref(ProtectedResource)), ...errorResponses(404) }
    }
  }, async (request) => {
    const metadata = resourceMetadataOf(request)
    if (!metadata) throw new NotFoundError('no identity provider is configured: sign in with an API key')
    const { metadataUrl: _, ...document } = metadata
    return document
  })

  app.post('/api/auth/token', {
    config: DOCUMENTED,
    ...carriesItsCredential,
    schema: {
      operationId: 'exchangeToken',
      tags: ['auth'],
      summary: 'Sign in: exchange an authorization code (with its PKCE verifier) or an approved device code for tokens',
      description: 'The service is the OAuth client: the code is exchanged with its client credentials, so the refresh token belongs to the client that refreshes it. While a device code waits: 400 with `code` authorization_pending, slow_down or expired_token.',
      security: [],
      body: TokenBody,
      response: { 200: answer('Tokens, the refresh token to keep, and AWS credentials for your prefix when the deployment hands them out', Type.Ref(TokenSet)), ...errorResponses(400, 401, 415, 429, 502, 503) }
    }
  }, async (request) => {
    // A poll that comes too soon is answered here, without a call to the provider.
    if ('deviceCode' in request.body) await providerCalls.admitDevicePoll(request.body.deviceCode)
    await providerCalls.admit(request)
    return 'deviceCode' in request.body ? signIn.pollDevice(request.body.deviceCode) : signIn.exchangeCode(request.body)
  })

  app.post('/api/auth/device', {
    config: DOCUMENTED,
    ...callsTheProvider,
    schema: {
      operationId: 'startDeviceSignIn',
      tags: ['auth'],
      summary: 'Start a sign-in on another device (RFC 8628): a code to type at a URL',
      description: 'Then POST /api/auth/token {deviceCode} every `interval` seconds until the person approves.',
      security: [],
      response: { 200: answer('The codes and where to use them', Type.Ref(DeviceAuthorization)), ...errorResponses(404, 429, 502, 503) }
    }
  }, async () => signIn.startDevice())

  app.post('/api/auth/logout', {
    config: DOCUMENTED,
    ...carriesItsCredential,
    ...callsTheProvider,
    schema: {
      operationId: 'logout',
      tags: ['auth'],
      summary: 'Sign out: revoke a refresh token at the identity provider',
      description: 'Where the provider has no revocation endpoint the token stays valid until it expires; the client forgets it either way.',
      security: [],
      body: RefreshBody,
      response: { 204: Type.Null({ description: 'Revoked, or the provider cannot revoke' }), ...errorResponses(400, 415, 429, 502, 503) }
    }
  }, async (request, reply) => {
    await signIn.logout(request.body.refreshToken)
    return reply.code(204).send(null)
  })

  app.post('/api/auth/refresh', {
    config: DOCUMENTED,
    ...carriesItsCredential,
    ...callsTheProvider,
    schema: {
      operationId: 'refreshTokens',
      tags: ['auth'],
      summary: 'Fresh identity-provider tokens and temporary AWS credentials for your prefix',
      description: 'Authenticated by the refresh token itself: no Authorization header.',
      security: [],
      body: RefreshBody,
      response: { 200: answer('Fresh tokens, and AWS credentials for your prefix when the deployment hands them out', Type.Ref(TokenSet)), ...errorResponses(400, 401, 415, 429, 502, 503) }
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
