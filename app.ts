import Fastify, { type FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Algorithm } from 'fast-jwt'
import { trustProxy, type Config } from './config.js'
import type { StowageDecorators } from './http/decorators.js'
import { buildS3Endpoint } from './s3/endpoint.js'
import { createS3MetadataRepository } from './db/s3-metadata.js'
import { clientErrorHandler, frameworkErrors, notFoundHandler } from './plugins/errors.js'
import { requestDeadlinePlugin } from './plugins/request-deadline.js'
import { requestIdGenerator } from './http/request-id.js'
import { createMetrics } from './metrics/metrics.js'
import type { Duplex } from 'node:stream'
import type { Tracing } from './tracing/sdk.js'
import { withoutLinkToken } from './storage/links.js'
import { stowage, type StowageOptions } from './plugins/stowage.js'

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

/** The `stowage` plugin's options from the environment's configuration. */
export function stowageOptions (config: Config): StowageOptions {
  return {
    database: {
      url: config.DATABASE_URL,
      connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
      poolWaitMs: config.DATABASE_POOL_WAIT_MS,
      queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_MS,
      poolSize: config.DATABASE_POOL_SIZE
    },
    storage: {
      driver: config.STORAGE_DRIVER,
      dir: config.STORAGE_DIR,
      bucket: config.S3_BUCKET,
      region: config.S3_REGION,
      endpoint: config.S3_ENDPOINT,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      connectTimeoutMs: config.S3_CONNECT_TIMEOUT_MS,
      timeoutMs: config.S3_TIMEOUT_MS,
      idleTimeoutMs: config.S3_IDLE_TIMEOUT_MS,
      root: config.STORAGE_ROOT,
      maxFileBytes: config.MAX_FILE_BYTES,
      maxUploadBytes: config.MAX_UPLOAD_BYTES,
      trashRetentionDays: config.TRASH_RETENTION_DAYS,
      versionRetentionDays: config.VERSION_RETENTION_DAYS,
      quotaBytes: config.QUOTA_BYTES,
      imageCacheBytes: config.IMAGE_CACHE_BYTES
    },
    images: { maxPixels: config.IMAGE_MAX_PIXELS, concurrency: config.IMAGE_CONCURRENCY },
    changes: { retentionDays: config.CHANGES_RETENTION_DAYS },
    webhooks: { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE },
    s3Credentials: { key: config.S3_CREDENTIALS_KEY, sessionTtlSeconds: config.CREDENTIALS_TTL_SECONDS },
    uploads: { memoryBytes: config.UPLOAD_MEMORY_BYTES, timeoutMs: config.HTTP_REQUEST_TIMEOUT_MS, expirySeconds: config.UPLOAD_EXPIRY_SECONDS },
    operations: { folderBudgetMs: config.FOLDER_OPERATION_BUDGET_MS },
    health: { timeoutMs: config.HEALTH_TIMEOUT_MS },
    identity: {
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      jwksUrl: config.JWT_JWKS_URL,
      algorithms: config.JWT_ALGORITHMS.split(',') as Algorithm[],
      userClaim: config.JWT_USER_CLAIM,
      orgClaim: config.JWT_ORG_CLAIM,
      tokenUrl: config.OIDC_TOKEN_URL,
      clientId: config.OIDC_CLIENT_ID,
      clientSecret: config.OIDC_CLIENT_SECRET,
      scope: config.OIDC_SCOPE,
      publicUrl: config.PUBLIC_URL,
      stsEndpoint: config.STS_ENDPOINT,
      stsRegion: config.STS_REGION,
      credentialsRoleArn: config.CREDENTIALS_ROLE_ARN,
      credentialsTtlSeconds: config.CREDENTIALS_TTL_SECONDS,
      awsAuthServerId: config.AWS_AUTH_SERVER_ID,
      upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
      stsConcurrency: config.STS_CONCURRENCY
    },
    keys: {
      prefix: config.API_KEY_PREFIX,
      bcryptCost: config.API_KEY_BCRYPT_COST,
      failuresPerKey: config.AUTH_FAILURES_PER_KEY,
      failureWindowMs: config.AUTH_FAILURE_WINDOW_SECONDS * 1000,
      bcryptConcurrency: config.BCRYPT_CONCURRENCY
    },
    auth: {
      failuresPerAddress: config.AUTH_FAILURES_PER_ADDRESS,
      failureWindowMs: config.AUTH_FAILURE_WINDOW_SECONDS * 1000,
      providerCallsPerAddress: config.IDP_CALLS_PER_ADDRESS
    },
    links: { maxSeconds: config.LINK_MAX_SECONDS, secret: config.LINK_SECRET, viaStore: config.LINKS_VIA === 'store', publicUrl: config.PUBLIC_URL },
    openapi: { publicUrl: config.PUBLIC_URL, docs: true },
    console: { publicUrl: config.PUBLIC_URL, mediaSources: storeLinkSources(config) }
  }
}

export type StowageApp = Awaited<ReturnType<typeof buildApp>>

/** Where the store's signed links point (S3 presigned URLs): the console's audio and video previews stream from there. */
function storeLinkSources (config: Config): string[] {
  if (config.STORAGE_DRIVER !== 's3' || config.LINKS_VIA !== 'store') return []
  if (!config.S3_ENDPOINT) return ['https://*.amazonaws.com']
  const endpoint = new URL(config.S3_ENDPOINT)
  return config.S3_FORCE_PATH_STYLE ? [endpoint.origin] : [endpoint.origin, `${endpoint.protocol}//*.${endpoint.host}`]
}
