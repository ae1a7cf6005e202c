import fastifySwagger from '@fastify/swagger'
import fp from 'fastify-plugin'
import type { FastifySchema } from 'fastify'

export interface OpenApiPluginOptions {
  version?: string
  apiKeyPrefix?: string
}

/** Generated clients need a named parameter: `/api/files/*` is documented as `/api/files/{path}`. */
function namePathWildcard ({ schema, url }: { schema: FastifySchema, url: string }) {
  const routeSchema = schema as FastifySchema & { params?: { properties?: Record<string, unknown> } }
  const wildcard = routeSchema?.params?.properties?.['*']
  if (!url.endsWith('*') || !wildcard) return { schema, url }
  return {
    url: url.slice(0, -1) + '{path}',
    schema: { ...routeSchema, params: { type: 'object', properties: { path: wildcard }, required: ['path'] } }
  }
}

/** Must be registered before the routes it documents. */
export const openapiPlugin = fp<OpenApiPluginOptions>(async (app, { version = '0.1.0', apiKeyPrefix = 'stow' }) => {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Stowage',
        version,
        description: 'Per-user file store over S3-compatible storage. Every /api route but refresh needs one of the security schemes.'
      },
      tags: [
        { name: 'files', description: 'Your files, under users/{userId}/<root>/' },
        { name: 'auth', description: 'Token refresh and storage location' },
        { name: 'keys', description: 'API keys' },
        { name: 'health', description: 'Liveness and readiness' }
      ],
      components: {
        securitySchemes: {
          bearerJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An ID or access token of the identity provider' },
          apiKey: { type: 'http', scheme: 'bearer', description: `An API key, ${apiKeyPrefix}_…` },
          awsSigV4: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'AWS4-HMAC-SHA256 signature of an sts:GetCallerIdentity request, with X-Amz-Date, X-Amz-Security-Token and X-Stowage-Server-Id'
          }
        }
      }
    },
    transform: namePathWildcard,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => (json.$id as string) ?? `def-${index}` }
  })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}, { name: 'stowage-openapi', fastify: '5.x' })
