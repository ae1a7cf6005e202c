import type { FastifyReply } from 'fastify'
import { ClientGoneError } from '../errors.js'

/** Aborted when the client leaves before its answer is whole, so that long work for it stops. */
export function clientSignal (reply: FastifyReply): AbortSignal {
  const controller = new AbortController()
  reply.raw.once('close', () => { if (!reply.raw.writableFinished) controller.abort(new ClientGoneError()) })
  return controller.signal
}
