import Fastify, { type FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { trustProxy, type Config } from './config.js'
import type { StowageDecorators } from './http/decorators.js'
import { buildS3Endpoint } from './s3/endpoint.js'
import { createS3MetadataRepository } from './db/s3-metadata.js'
import { clientErrorHandler, frameworkErrors, notFoundHandler } from './plugins/errors.js'
import { requestDeadlinePlugin } from './plugins/request-deadline.js'
import { requestIdGenerator } from './http/request-id.js'
import { sharedCompilers } from './http/schema-compilers.js'
import { createMetrics } from './metrics/metrics.js'
import type { Duplex } from 'node:stream'
import type { Tracing } from './tracing/sdk.js'
import { withoutLinkToken } from './storage/links.js'
import { stowage } from './plugins/stowage.js'
import { stowageOptions } from './stowage-options.js'

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-amz-security-token"]',
  'req.headers.cookie',
  '*.refreshToken', '*.accessToken', '*.idToken', '*.key', '*.secretAccessKey', '*.sessionToken', '*.secret'
]

/** A request's URL as the log shows it: a link's token and the sign-in's code, state and PKCE values left out. */
export const loggedUrl = (url: string) => withoutLinkToken(url)
  .replace(/([?&](?:code|state|codeChallenge|codeVerifier|X-Amz-Signature|X-Amz-Security-Token)=)[^&#]*/gi, '$1[redacted]')

export interface LogStream { write (line: string): void }

export interface BuildOptions {
  /** Where logs go; standard output by default. */
  logStream?: LogStream
  /** Started by `startTracing` when the OTEL_* variables ask for traces. */
  tracing?: Tracing
}

export async function buildApp (config: Config, { logStream, tracing }: BuildOptions = {}) {
  // Made only when they will be served: switched off, metrics cost nothing.
  const metrics = config.METRICS_PORT === undefined ? undefined : createMetrics()
  const app = Fastify({
    logger: {
      level: config.LOG_LEVEL,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // Fastify's own fields, but a signed link's token (a credential) left out of the URL.
      serializers: {
        req: (request) => ({
          method: request.method, url: loggedUrl(request.url), host: request.host, remoteAddress: request.ip, remotePort: request.socket?.remotePort
        })
      },
      stream: logStream
    },
    // A number is not a name, and an unknown field is a mistake to report, not to drop silently.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    schemaController: { compilersFactory: sharedCompilers },
    frameworkErrors,
    clientErrorHandler: metrics
      ? (error, socket) => {
          if ((error as NodeJS.ErrnoException).code === 'ERR_HTTP_REQUEST_TIMEOUT') metrics.requestsCut.inc({ timeout: 'headers' })
          clientErrorHandler(error, socket)
        }
      : clientErrorHandler,
    // request.ip, which the per-address failure limit counts, is the client's only behind a trusted proxy.
    trustProxy: config.TRUST_PROXY === undefined ? false : trustProxy(config.TRUST_PROXY),
    // Every log line of a request carries its id: a trusted proxy's X-Request-Id, else a new UUID.
    genReqId: requestIdGenerator(config.TRUST_PROXY === undefined ? undefined : trustProxy(config.TRUST_PROXY)),
    requestIdHeader: false,
    // A connection silent this long (a stalled body, an answer nobody reads) is closed.
    connectionTimeout: config.HTTP_IDLE_TIMEOUT_MS,
    // Off: it would cut off a streamed upload. requestDeadlinePlugin bounds every other body.
    requestTimeout: 0,
    keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    // Node checks the header and request deadlines only this often (30 s by default).
    http: { headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1000 }
  }).withTypeProvider<TypeBoxTypeProvider>()

  if (tracing) {
    // First, so that every later hook, handler and call to a peer runs inside the request's span.
    await app.register(tracing.plugin)
    app.addHook('onRequest', (request, reply, done) => {
      const span = request.opentelemetry().span
      if (span) {
        const { traceId } = span.spanContext()
        request.log = reply.log = request.log.child({ traceId })
      }
      done()
    })
  }
  app.setNotFoundHandler(notFoundHandler)
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })
  await app.register(requestDeadlinePlugin, { timeoutMs: config.HTTP_REQUEST_TIMEOUT_MS, onCut: metrics && (() => metrics.requestsCut.inc({ timeout: 'body' })) })
  if (metrics) {
    // With a listener, Node leaves closing the silent connection to it.
    app.server.on('timeout', (socket: Duplex) => {
      metrics.requestsCut.inc({ timeout: 'idle' })
      socket.destroy()
    })
  }
  // Called, not registered: the service is the root scope, so its decorators are the app's.
  await stowage(app as unknown as FastifyInstance, { ...stowageOptions(config), metrics, tracing: tracing !== undefined })
  const services = app as typeof app & StowageDecorators
  // The service's own address, opened in a browser: the console is what a person came for.
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('console/', 302))
  // The S3 protocol, on a listener of its own (server.ts listens on S3_API_PORT), over the same services.
  const s3Endpoint = config.S3_API_PORT === undefined || !services.stowageS3Credentials
    ? undefined
    : await buildS3Endpoint({
      files: services.stowageFiles,
      metadata: createS3MetadataRepository(services.stowageDb),
      multipart: services.stowageMultipart,
      credentials: services.stowageS3Credentials,
      region: config.S3_API_REGION,
      domain: config.S3_API_DOMAIN,
      versioning: config.VERSION_RETENTION_DAYS > 0,
      failures: services.stowageLimitFailures.address,
      logger: app.log,
      idleTimeoutMs: config.HTTP_IDLE_TIMEOUT_MS,
      metrics,
      tracing: tracing?.plugin
    })
  if (s3Endpoint) app.addHook('onClose', async () => { await s3Endpoint.close() })
  return Object.assign(services, { s3Endpoint })
}

export type StowageApp = Awaited<ReturnType<typeof buildApp>>
