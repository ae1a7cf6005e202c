import fp from 'fastify-plugin'
import type { FastifyError, FastifyReply } from 'fastify'
import { RETRY_AFTER_SECONDS, TooManyAttemptsError } from '../errors.js'

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
    if (error.code === 'STOWAGE_ERR_DEPENDENCY_UNAVAILABLE') reply.header('retry-after', String(RETRY_AFTER_SECONDS))
    if (error instanceof TooManyAttemptsError) reply.header('retry-after', String(error.retryAfterSeconds))
    return reply.code(status).send({ error: error.message })
  })
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: `Route ${request.method} ${request.url.split('?')[0]} not found` })
  })
}, { name: 'stowage-errors', fastify: '5.x' })
