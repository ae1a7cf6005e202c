import type { FastifyPluginCallback, FastifyRequest } from 'fastify'
import type { Span } from '@opentelemetry/api'
import { ConfigError } from '../config.js'
import { withoutLinkToken } from '../storage/links.js'

export type Environment = Record<string, string | undefined>

/**
 * Whether the standard OTEL_* variables ask for traces: an OTLP endpoint, or OTEL_TRACES_EXPORTER=otlp
 * (to the collector on localhost), unless OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none.
 */
export function tracingRequested (env: Environment): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false
  const exporter = env.OTEL_TRACES_EXPORTER?.trim()
  if (exporter === 'none') return false
  if (exporter !== undefined && exporter !== '' && exporter !== 'otlp') {
    throw new ConfigError('OTEL_TRACES_EXPORTER', `is ${exporter}: use otlp or none (this build exports traces over OTLP only)`)
  }
  return exporter === 'otlp' || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
}

async function otlpExporter (env: Environment) {
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf').trim()
  // Each exporter reads its endpoint, headers and timeout (10 s by default) from OTEL_EXPORTER_OTLP_*.
  if (protocol === 'http/protobuf') return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter()
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter()
  throw new ConfigError('OTEL_EXPORTER_OTLP_PROTOCOL', `is ${protocol}: use http/protobuf or http/json (gRPC is not included)`)
}

/** The request's span is named by its route template, and its path is kept without the query or a link's token. */
function describeRequest (span: Span, request: FastifyRequest) {
  const route = request.routeOptions.url
  span.updateName(route ? `${request.method} ${route}` : request.method)
  span.setAttribute('url.path', withoutLinkToken(request.url.split('?', 1)[0]))
  span.setAttribute('stowage.request_id', request.id)
}

export interface Tracing {
  /** @fastify/otel: a span per request, to register before any route. */
  plugin: FastifyPluginCallback
  /** Exports the spans still queued; waits at most the exporter's timeout. */
  shutdown (): Promise<void>
}

/**
 * Starts the OpenTelemetry SDK for traces when the OTEL_* variables ask for it (else undefined and
 * nothing loaded): a tracer provider registered for the process, with its W3C propagator, the
 * sampler of OTEL_TRACES_SAMPLER, and a batching OTLP/HTTP exporter, so that a slow or absent
 * collector never delays a request. The service name is `stowage` unless OTEL_SERVICE_NAME says.
 */
export async function startTracing (env: Environment = process.env): Promise<Tracing | undefined> {
  if (!tracingRequested(env)) return undefined
  const exporter = await otlpExporter(env)
  const [{ NodeTracerProvider, BatchSpanProcessor }, { detectResources, envDetector, resourceFromAttributes }, { FastifyOtelInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'), import('@opentelemetry/resources'), import('@fastify/otel')
  ])
  const resource = resourceFromAttributes({ 'service.name': 'stowage' }).merge(detectResources({ detectors: [envDetector] }))
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] })
  provider.register()
  // Hooks get no span of their own: the request's span and its calls to peers tell the story.
  const instrumentation = new FastifyOtelInstrumentation({ instrumentHooks: false, requestHook: describeRequest })
  return {
    plugin: instrumentation.plugin(),
    shutdown: () => provider.shutdown()
  }
}
