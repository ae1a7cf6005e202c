import fp from 'fastify-plugin'
import { RequestTimeoutError } from '../errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads a body of any length as it streams: only the idle timeout bounds it. */
    streamedBody?: boolean
  }
}

export interface RequestDeadlineOptions {
  /** The whole body of a request must arrive within this, unless its route streams it. */
  timeoutMs: number
  /** Told each request cut off, for metrics. */
  onCut?: () => void
}

/**
 * Node's own requestTimeout would cut off a streamed upload of a few GiB, so the server runs without
 * it, and this puts the same deadline back on every other route's body.
 */
export const requestDeadlinePlugin = fp<RequestDeadlineOptions>(async (app, { timeoutMs, onCut }) => {
  app.addHook('onRequest', (request, _reply, done) => {
    const raw = request.raw
    if (raw.complete || request.routeOptions.config?.streamedBody) return done()
    const timer = setTimeout(() => {
      if (raw.complete) return
      onCut?.()
      raw.destroy(new RequestTimeoutError('the request body took too long to arrive'))
    }, timeoutMs).unref()
    raw.once('end', () => clearTimeout(timer))
    raw.once('close', () => clearTimeout(timer))
    done()
  })
}, { name: 'stowage-request-deadline', fastify: '5.x' })
