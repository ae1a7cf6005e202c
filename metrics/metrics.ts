import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { wrapOperations, type ObjectStore } from '../storage/object-store.js'
import { isPeerFailure, type ObserveCall } from '../identity/http.js'

// Seconds, Prometheus' base unit: from a fast cache hit to a slow S3 upload part.
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

const QUERY_OPERATION = /^\s*(select|insert|update|delete)\b/i

/** A counter whose count a service keeps: set to it at each scrape. */
function setCounter (counter: Counter, value: number | undefined) {
  if (value === undefined) return
  counter.reset()
  counter.inc(value)
}

/** Numbers the services keep themselves; read when Prometheus scrapes, never pushed. */
export interface MetricSources {
  bcrypt?: () => { running: number, queued: number, verifiedHits: number }
  uploadMemory?: () => { held: number, limit: number, refused: number }
  databasePool?: () => { total: number, idle: number, waiting: number } | undefined
  changes?: () => { waiting: number }
  webhooks?: () => { running: number }
}

/**
 * Stowage's Prometheus metrics, in a registry of their own (a host app gets it to serve or merge):
 * every label value comes from a fixed set (route templates, methods, statuses, operations), never
 * from what a caller sends, so cardinality stays bounded.
 */
export function createMetrics ({ prefix = 'stowage_', defaultMetrics = true } = {}) {
  const registry = new Registry()
  if (defaultMetrics) {
    collectDefaultMetrics({ register: registry, prefix })
    // Gauges that prom-client names `_total`, which promtool refuses for anything but a counter.
    for (const misnamed of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
      registry.removeSingleMetric(prefix + misnamed)
    }
  }
  const sources: MetricSources = {}
  const name = (base: string) => prefix + base
  const registers = [registry]

  const httpRequests = new Counter({ name: name('http_requests_total'), help: 'HTTP requests answered, by route template, method and status', labelNames: ['route', 'method', 'status'], registers })
  const httpDuration = new Histogram({ name: name('http_request_duration_seconds'), help: 'Time from the request to the end of its answer', labelNames: ['route', 'method'], buckets: LATENCY_BUCKETS, registers })
  const httpBytesIn = new Counter({ name: name('http_request_bytes_total'), help: 'Bytes received on the file routes, headers included', labelNames: ['route'], registers })
  const httpBytesOut = new Counter({ name: name('http_response_bytes_total'), help: 'Bytes sent on the file routes, headers included', labelNames: ['route'], registers })
  const authAttempts = new Counter({ name: name('auth_attempts_total'), help: 'Authentications by method (jwt, api_key, aws, custom, none) and result (ok, refused, throttled, unavailable)', labelNames: ['method', 'result'], registers })
  const storeDuration = new Histogram({ name: name('store_operation_duration_seconds'), help: 'File store operations until they answer (a read: until its body starts), by operation', labelNames: ['operation'], buckets: LATENCY_BUCKETS, registers })
  const storeFailures = new Counter({ name: name('store_operation_failures_total'), help: 'File store operations that failed, by operation (refusals of Stowage\'s own, such as 412, are not failures)', labelNames: ['operation'], registers })
  const queryDuration = new Histogram({ name: name('database_query_duration_seconds'), help: 'Database statements by operation (select, insert, update, delete, other)', labelNames: ['operation'], buckets: LATENCY_BUCKETS, registers })
  const queryFailures = new Counter({ name: name('database_query_failures_total'), help: 'Database statements that failed, by operation', labelNames: ['operation'], registers })
  const identityDuration = new Histogram({ name: name('identity_call_duration_seconds'), help: 'Calls to the identity provider (peer idp: discovery, jwks, token) and to STS (peer sts: get_caller_identity, assume_role_with_web_identity)', labelNames: ['peer', 'operation'], buckets: LATENCY_BUCKETS, registers })
  const identityFailures = new Counter({ name: name('identity_call_failures_total'), help: 'Calls to the identity provider and STS that failed: no answer in time, or a 5xx (a refused token or signature is not a failure)', labelNames: ['peer', 'operation'], registers })
  const requestsCut = new Counter({ name: name('requests_cut_total'), help: 'Requests cut off by a deadline: headers, body (HTTP_REQUEST_TIMEOUT_MS), idle (HTTP_IDLE_TIMEOUT_MS)', labelNames: ['timeout'], registers })
  const webhookDeliveries = new Counter({ name: name('webhook_deliveries_total'), help: 'Webhook delivery attempts by result: delivered, retry (failed, tried again later), failed (the last retry failed: the webhook is disabled)', labelNames: ['result'], registers })
  const webhookDeliveryDuration = new Histogram({ name: name('webhook_delivery_duration_seconds'), help: 'Webhook delivery attempts, from the POST to the receiver\'s answer (or the 10 s cut)', buckets: LATENCY_BUCKETS, registers })
  const readiness = new Gauge({ name: name('readiness_check_up'), help: '1 when the readiness check passed at its last run, 0 when it failed', labelNames: ['check'], registers })

  /** A gauge of a few states of one thing, read from its service at each scrape. */
  const stateGauge = (base: string, help: string, read: () => Record<string, number> | undefined) => new Gauge({
    name: name(base), help, labelNames: ['state'], registers,
    collect () {
      for (const [state, value] of Object.entries(read() ?? {})) this.set({ state }, value)
    }
  })
  stateGauge('bcrypt_compares', 'bcrypt compares of API keys running and queued', () => {
    const stats = sources.bcrypt?.()
    return stats && { running: stats.running, queued: stats.queued }
  })
  stateGauge('upload_memory_bytes', 'Upload bytes held in memory, and the budget (UPLOAD_MEMORY_BYTES)', () => {
    const stats = sources.uploadMemory?.()
    return stats && { held: stats.held, limit: stats.limit }
  })
  stateGauge('database_pool_connections', 'PostgreSQL pool connections: open (total), idle, and requests waiting for one', () => sources.databasePool?.())
  new Gauge({
    name: name('changes_waiting_requests'), help: 'GET /api/changes requests waiting for a change (long-polls) on this instance', registers,
    collect () { this.set(sources.changes?.().waiting ?? 0) }
  })
  new Gauge({
    name: name('webhook_deliveries_running'), help: 'Webhook deliveries this instance is sending now', registers,
    collect () { this.set(sources.webhooks?.().running ?? 0) }
  })
  new Counter({
    name: name('api_key_cache_hits_total'), help: 'API keys verified from memory, without bcrypt', registers,
    collect () { setCounter(this, sources.bcrypt?.().verifiedHits) }
  })
  new Counter({
    name: name('uploads_refused_total'), help: 'Uploads refused with 503 because the upload memory budget was full', registers,
    collect () { setCounter(this, sources.uploadMemory?.().refused) }
  })

  return {
    registry,
    sources,
    httpRequests,
    httpDuration,
    httpBytesIn,
    httpBytesOut,
    authAttempts,
    requestsCut,
    readiness,
    webhookDeliveries,
    webhookDeliveryDuration,

    /** A database statement, by the operation its SQL begins with. */
    observeQuery (sql: string, seconds: number, failed: boolean) {
      const operation = QUERY_OPERATION.exec(sql)?.[1].toLowerCase() ?? 'other'
      queryDuration.observe({ operation }, seconds)
      if (failed) queryFailures.inc({ operation })
    },

    /** A call to the identity provider or STS, timed, and counted when it fails. */
    observeCall: (async (peer, operation, call) => {
      const end = identityDuration.startTimer({ peer, operation })
      try {
        const answer = await call()
        if (isPeerFailure({ answer })) identityFailures.inc({ peer, operation })
        return answer
      } catch (error) {
        if (isPeerFailure({ error })) identityFailures.inc({ peer, operation })
        throw error
      } finally {
        end()
      }
    }) as ObserveCall,

    /** The same store, each operation timed and its failures counted. */
    instrumentStore (store: ObjectStore, isRefusal: (error: unknown) => boolean): ObjectStore {
      return wrapOperations(store, (operation, method) => async (...args) => {
        const end = storeDuration.startTimer({ operation })
        try {
          return await method(...args)
        } catch (error) {
          if (!isRefusal(error)) storeFailures.inc({ operation })
          throw error
        } finally {
          end()
        }
      })
    }
  }
}

export type Metrics = ReturnType<typeof createMetrics>
