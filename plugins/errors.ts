import createError from '@fastify/error'
import fp from 'fastify-plugin'
import type { FastifyError, FastifyReply } from 'fastify'

export const BadRequestError = createError<[string]>('STOWAGE_ERR_BAD_REQUEST', '%s', 400)
export const UnauthorizedError = createError('STOWAGE_ERR_UNAUTHORIZED', 'Unauthorized', 401)
export const NotFoundError = createError<[string]>('STOWAGE_ERR_NOT_FOUND', '%s', 404)
export const PayloadTooLargeError = createError<[string]>('STOWAGE_ERR_TOO_LARGE', '%s', 413)
export const BadGatewayError = createError<[string]>('STOWAGE_ERR_BAD_GATEWAY', '%s', 502)
export const ServiceUnavailableError = createError<[string]>('STOWAGE_ERR_UNAVAILABLE', '%s', 503)

function sendUnauthorized (reply: FastifyReply) {
  return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'Unauthorized' })
}

/** One place maps every thrown error to `{error}` and a status; 5xx internals stay in the log. */
export const errorsPlugin = fp(async (app) => {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500
    if (status === 401) return sendUnauthorized(reply)
    if (status >= 500 && status !== 502 && status !== 503) {
      request.log.error({ err: error }, 'request failed')
      return reply.code(500).send({ error: 'Internal Server Error' })
    }
    if (status >= 500) request.log.warn({ err: error }, 'upstream failed')
    return reply.code(status).send({ error: error.message })
  })
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: `Route ${request.method} ${request.url.split('?')[0]} not found` })
  })
}, { name: 'stowage-errors', fastify: '5.x' })
