import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { stowageOf } from '../http/decorators.js'
import { ChangeCursor, ChangeList, ChangesQuery } from '../schemas/changes.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { DOCUMENTED } from '../schemas/openapi.js'
import { checkPrefix } from '../storage/paths.js'
import { MAX_WAIT_SECONDS } from '../storage/changes.js'
import { BadRequestError } from '../errors.js'
import { clientSignal } from './client-signal.js'

/** The change journal: where a client's copy stands, and what changed since, waited for if asked. */
export const changeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { stowageAuthenticate, stowageChanges: journal } = stowageOf(app)
  app.addHook('onRequest', stowageAuthenticate)

  app.get('/api/changes/latest', {
    config: DOCUMENTED,
    schema: {
      operationId: 'latestChange',
      tags: ['changes'],
      summary: 'Your position in the journal now (it moves with your changes only): follow changes from here',
      security: CALLER_SECURITY,
      response: { 200: answer('The position', Type.Ref(ChangeCursor)), ...errorResponses(...CALLER_REFUSALS) }
    }
  }, async (request) => journal.latest(request.userId))

  app.get('/api/changes', {
    config: DOCUMENTED,
    schema: {
      operationId: 'listChanges',
      tags: ['changes'],
      summary: 'Your files\' changes after a cursor, oldest first, up to 1000; with `wait`, held until one exists',
      description: 'Entries are written before a change is answered. An entry of a change that then failed may appear: apply entries by `etag`. A cursor older than CHANGES_RETENTION_DAYS is 410 with `code: reset`: list your files again.',
      security: CALLER_SECURITY,
      querystring: ChangesQuery,
      response: { 200: answer('The changes', Type.Ref(ChangeList)), ...errorResponses(400, 410, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => {
    const { cursor, prefix = '', wait = '0' } = request.query
    const waitSeconds = Number(wait)
    if (waitSeconds > MAX_WAIT_SECONDS) throw new BadRequestError(`wait is at most ${MAX_WAIT_SECONDS} seconds`)
    // A waiting answer is silent on purpose: the connection's idle timeout (HTTP_IDLE_TIMEOUT_MS)
    // waits with it, and is itself again once the answer is sent.
    const { socket } = request.raw
    // (light-my-request's injected requests have no real socket.)
    if (waitSeconds > 0 && typeof socket?.setTimeout === 'function') {
      socket.setTimeout(waitSeconds * 1000 + app.server.timeout)
      reply.raw.once('finish', () => socket.setTimeout(app.server.timeout))
    }
    return journal.list(request.userId, { cursor, prefix: checkPrefix(prefix), waitSeconds, signal: clientSignal(reply) })
  })
}
