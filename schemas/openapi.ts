import type { FastifySchema } from 'fastify'

/** Names that say what each is; a generated client's auth hooks pick them by these. */
export const SECURITY_SCHEMES = {
  identityProviderJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An ID or access token of the identity provider' },
  apiKeyBearer: { type: 'http', scheme: 'bearer', bearerFormat: 'API key', description: 'A Stowage API key, <prefix>_…, as a bearer token' },
  awsSignedCallerIdentity: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'AWS4-HMAC-SHA256 signature of an sts:GetCallerIdentity request, sent with X-Amz-Date, X-Stowage-Server-Id and X-Amz-Security-Token'
  }
} as const

interface OpenApiObject { components?: { securitySchemes?: Record<string, unknown> } }

/**
 * @fastify/swagger's per-route transform, so that Stowage's routes document themselves in any
 * document that includes them, a host app's too: the wildcard of `/api/files/*` becomes a named
 * `{path}` parameter (generated clients need a name), and the security schemes the routes name are
 * declared (@fastify/swagger fails on a route that names an undeclared scheme).
 */
export function describeRoute ({ schema, url, openapiObject }: { schema: FastifySchema, url: string, openapiObject?: OpenApiObject }) {
  if (openapiObject) {
    const schemes = ((openapiObject.components ??= {}).securitySchemes ??= {})
    for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) schemes[name] ??= scheme
  }
  const routeSchema = schema as FastifySchema & { params?: { properties?: Record<string, unknown> } }
  const wildcard = routeSchema?.params?.properties?.['*']
  if (!url.endsWith('*') || !wildcard) return { schema, url }
  return {
    url: url.slice(0, -1) + '{path}',
    schema: { ...routeSchema, params: { type: 'object', properties: { path: wildcard }, required: ['path'] } }
  }
}

/** The `config` of every Stowage route. */
export const DOCUMENTED = { swaggerTransform: describeRoute }

/** Headers of an answer that describes a file. */
export const RAW_FILE_HEADERS = {
  ETag: { type: 'string', description: 'Strong validator of the content: send it back in If-Match, If-None-Match or If-Range' },
  'Last-Modified': { type: 'string', description: 'When the file was last written, as an HTTP date' },
  'Accept-Ranges': { type: 'string', description: 'Always `bytes`' },
  'Content-Length': { type: 'integer', description: 'Bytes in the body' }
}

/** describeRoute, plus the raw upload's body, which no parser reads (so Fastify must not validate it). */
const binary = (description: string) => ({
  description,
  headers: RAW_FILE_HEADERS,
  content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } }
})

export const NOT_MODIFIED = { 304: { description: 'Your copy is current (If-None-Match / If-Modified-Since)', headers: RAW_FILE_HEADERS, type: 'null' } }

/** The answers of a raw download: the bytes, a range of them, or 304. */
export const rawFileAnswers = (description: string) => ({
  200: binary(description),
  206: { ...binary('The range asked for'), headers: { ...RAW_FILE_HEADERS, 'Content-Range': { type: 'string', description: '`bytes <first>-<last>/<size>`' } } },
  ...NOT_MODIFIED
})

export function describeRawUpload (route: Parameters<typeof describeRoute>[0]) {
  const described = describeRoute(route)
  return {
    ...described,
    schema: {
      ...described.schema,
      body: {
        description: 'The file as it is; its media type in Content-Type (any type is accepted)',
        content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } }
      }
    }
  }
}

/** describeRoute for an explicit HEAD route: @fastify/swagger lists HEAD routes only when asked,
 *  and suffixes their operationId with `-head` (meant for HEADs copied from a GET). */
export function describeHeadRoute (route: Parameters<typeof describeRoute>[0]) {
  const described = describeRoute(route)
  const schema = described.schema as FastifySchema & { operationId?: string }
  return { ...described, schema: { ...schema, operationId: schema.operationId?.replace(/-head$/, '') } }
}

/** The `config` of an explicit HEAD route. */
export const DOCUMENTED_HEAD = { swaggerTransform: describeHeadRoute, swagger: { exposeHeadRoute: true } }

/** Where a deleted file went: the id its trash item has, to restore it (Undo). */
export const TRASH_ID_HEADER = 'stowage-trash-id'
export const TRASH_ID_HEADERS = { 'Stowage-Trash-Id': { type: 'string', description: 'The deleted file\'s trash item: POST /api/trash/{id}/restore puts it back. Absent when TRASH_RETENTION_DAYS is 0' } }
