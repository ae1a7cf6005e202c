import { Type, type Static, type TSchema } from '@sinclair/typebox'

// $ids carry a Stowage prefix: they share one namespace with a host app's schemas, and name the
// types of generated clients, where a plain `Error` would shadow the language's own.
export const ErrorSchema = Type.Object({
  error: Type.String({ description: 'What went wrong, for a person to read' }),
  code: Type.Optional(Type.String({ description: 'A machine-readable reason where one is defined: RFC 8628\'s authorization_pending, slow_down and expired_token' }))
}, { $id: 'StowageError', description: 'Every error answer has this shape' })
export type ErrorBody = Static<typeof ErrorSchema>

export const ErrorRef = Type.Ref(ErrorSchema)

const retryAfter = { 'Retry-After': { type: 'integer', description: 'Seconds to wait before trying again' } }

const REFUSALS: Record<number, { description: string, headers?: Record<string, object> }> = {
  400: { description: 'The request is malformed; `error` says how' },
  401: {
    description: 'No credentials, or none that any method accepts (the same answer whichever failed)',
    headers: { 'WWW-Authenticate': { type: 'string', description: '`Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured' } }
  },
  403: { description: 'Not yours to do: what is shared with you as a viewer cannot be changed, and nothing shared with you can be shared further or linked; `error` says which. Nothing was changed' },
  404: { description: 'Not found, or not yours' },
  409: { description: 'A conflict with what is there: the destination is the source or inside the folder moved or copied, a file has the folder\'s name, or the folder is not empty' },
  410: { description: 'The cursor is older than the change journal keeps (`code: reset`): list again' },
  412: { description: 'If-Match or If-None-Match does not hold: nothing was changed' },
  413: { description: 'The file is larger than the service accepts (MAX_FILE_BYTES; MAX_UPLOAD_BYTES for streamed uploads)' },
  415: { description: 'The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF)' },
  416: {
    description: 'The range starts past the end of the file',
    headers: { 'Content-Range': { type: 'string', description: '`bytes */<size>`' } }
  },
  422: { description: 'The image has more pixels than IMAGE_MAX_PIXELS, or its file is larger than 64 MiB: it is not decoded' },
  507: { description: 'Your usage would pass your quota (files, trash and unfinished uploads), or, in what is shared with you, its owner\'s; `error` says whose, the usage and the quota. Nothing was stored' },
  429: { description: 'Too many failed authentications from this address or for this key id', headers: retryAfter },
  502: { description: 'The identity provider or STS answered with an error' },
  503: { description: 'A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After', headers: retryAfter }
}

/** Response entries for error statuses: each described, with its headers, and the shared error shape. */
export function errorResponses (...statuses: number[]) {
  return Object.fromEntries(statuses.map((status) => [status, { ...REFUSALS[status], content: { 'application/json': { schema: ErrorRef } } }]))
}

/** A success answer with its description (generators and readers need one for every 2xx). */
export function answer<T extends TSchema> (description: string, schema: T) {
  return { description, content: { 'application/json': { schema } } }
}

/** What any route behind the authentication chain may answer besides its own statuses. */
export const CALLER_REFUSALS = [401, 429, 503]

/** Every /api route accepts any method of the authentication chain. */
export const CALLER_SECURITY: Array<Record<string, string[]>> = [{ identityProviderJwt: [] }, { apiKeyBearer: [] }, { awsSignedCallerIdentity: [] }]

export const sharedSchemas = [ErrorSchema]
