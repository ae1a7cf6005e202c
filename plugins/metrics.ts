import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import type { Metrics } from '../metrics/metrics.js'
import { decorateStowage } from '../http/decorators.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Where the request began, for its duration and the bytes its connection moved. */
    stowageMetricsStart?: { at: bigint, read: number, written: number }
  }
}

export interface MetricsPluginOptions {
  metrics: Metrics
}

const FILE_ROUTE = /\/api\/(files|raw)\/|\/api\/uploads\b|\/links\//

/** The HTTP metrics of Stowage's routes, from two hooks; the rest of the metrics come from the
 *  services' own counters and a wrapped store (metrics/metrics.ts). */
export const metricsPlugin = fp<MetricsPluginOptions>(async (app, { metrics }) => {
  decorateStowage(app, 'stowageMetrics', metrics)
  app.decorateRequest('stowageMetricsStart', undefined)
  app.addHook('onRequest', (request, _reply, done) => {
    const socket = request.raw.socket
    request.stowageMetricsStart = { at: process.hrtime.bigint(), read: socket.bytesRead, written: socket.bytesWritten }
    done()
  })
  const record = (request: FastifyRequest, status: number) => {
    const start = request.stowageMetricsStart
    if (!start) return
    request.stowageMetricsStart = undefined
    // The route's template, never the path a caller sent: file names must not become label values.
    const route = request.routeOptions.url ?? 'unmatched'
    const method = request.method
    metrics.httpRequests.inc({ route, method, status })
    metrics.httpDuration.observe({ route, method }, Number(process.hrtime.bigint() - start.at) / 1e9)
    if (FILE_ROUTE.test(route)) {
      const socket = request.raw.socket
      metrics.httpBytesIn.inc({ route }, Math.max(0, socket.bytesRead - start.read))
      metrics.httpBytesOut.inc({ route }, Math.max(0, socket.bytesWritten - start.written))
    }
  }
  app.addHook('onResponse', (request, reply, done) => {
    record(request, reply.statusCode)
    done()
  })
  // A client that went away before its answer: counted as such (499, as nginx logs it).
  app.addHook('onRequestAbort', (request, done) => {
    record(request, 499)
    done()
  })
}, { name: 'stowage-metrics', fastify: '5.x' })
