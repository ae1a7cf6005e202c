import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ServiceUnavailableError } from '../errors.js'
import { stowageOf } from '../http/decorators.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { DOCUMENTED } from '../schemas/openapi.js'
import { S3CredentialBody, S3CredentialList, S3CredentialMade, S3CredentialParams, S3Session } from '../schemas/s3-credentials.js'
import { parentKeyOf } from '../keys/service.js'
import { ownerOf } from '../http/file-answers.js'

/** A user's credentials for the S3 endpoint. */
export const s3CredentialRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { stowageAuthenticate, stowageS3Credentials } = stowageOf(app)
  app.addHook('onRequest', stowageAuthenticate)
  const credentials = () => {
    if (!stowageS3Credentials) throw new ServiceUnavailableError('the S3 endpoint is not configured here (S3_CREDENTIALS_KEY)')
    return stowageS3Credentials
  }

  app.post('/api/s3-credentials', {
    config: DOCUMENTED,
    // A bare POST makes a credential named "s3".
    preValidation: async (request) => { request.body ??= {} },
    schema: {
      operationId: 'createS3Credential',
      tags: ['s3'],
      summary: 'An access key for the S3 endpoint; its secret is shown once',
      security: CALLER_SECURITY,
      body: Type.Ref(S3CredentialBody),
      'x-optional-body': true,
      response: { 201: answer('Made', Type.Ref(S3CredentialMade)), ...errorResponses(400, 415, 503, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => reply.code(201).send(await credentials().create(ownerOf(request), request.body, parentKeyOf(request.stowageCredential))))

  app.get('/api/s3-credentials', {
    config: DOCUMENTED,
    schema: {
      operationId: 'listS3Credentials',
      tags: ['s3'],
      summary: 'Your S3 access keys (without their secrets)',
      security: CALLER_SECURITY,
      response: { 200: answer('Oldest first', Type.Ref(S3CredentialList)), ...errorResponses(503, ...CALLER_REFUSALS) }
    }
  }, async (request) => credentials().list(request.userId))

  app.delete('/api/s3-credentials/:accessKeyId', {
    config: DOCUMENTED,
    schema: {
      operationId: 'revokeS3Credential',
      tags: ['s3'],
      summary: 'Revoke an S3 access key: refused at once, on every instance',
      security: CALLER_SECURITY,
      params: S3CredentialParams,
      response: { 204: Type.Null({ description: 'Revoked' }), ...errorResponses(404, 503, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => {
    await credentials().revoke(request.userId, request.params.accessKeyId)
    return reply.code(204).send(null)
  })

  app.post('/api/s3-credentials/session', {
    config: DOCUMENTED,
    schema: {
      operationId: 'createS3Session',
      tags: ['s3'],
      summary: 'Temporary S3 credentials (CREDENTIALS_TTL_SECONDS), for the S3 endpoint only',
      security: CALLER_SECURITY,
      response: { 200: answer('Temporary credentials', Type.Ref(S3Session)), ...errorResponses(503, ...CALLER_REFUSALS) }
    }
  }, async (request) => credentials().session(ownerOf(request), parentKeyOf(request.stowageCredential)))
}
