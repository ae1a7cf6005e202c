import Fastify from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Algorithm } from 'fast-jwt'
import { trustProxy, type Config } from './config.js'
import { authPlugin } from './plugins/auth.js'
import { dbPlugin } from './plugins/db.js'
import { clientErrorHandler, errorsPlugin, frameworkErrors } from './plugins/errors.js'
import { healthPlugin } from './plugins/health.js'
import { identityPlugin } from './plugins/identity.js'
import { keysPlugin } from './plugins/keys.js'
import { openapiPlugin } from './plugins/openapi.js'
import { storagePlugin } from './plugins/storage.js'
import { authRoutes } from './routes/auth.js'
import { filesRoutes } from './routes/files.js'
import { healthRoutes } from './routes/health.js'
import { keysRoutes } from './routes/keys.js'
import { authSchemas } from './schemas/auth.js'
import { sharedSchemas } from './schemas/common.js'
import { fileSchemas } from './schemas/files.js'
import { healthSchemas } from './schemas/health.js'
import { keySchemas } from './schemas/keys.js'

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-amz-security-token"]',
  'req.headers.cookie',
  '*.refreshToken', '*.accessToken', '*.idToken', '*.key', '*.secretAccessKey', '*.sessionToken'
]

export interface LogStream { write (line: string): void }

export interface BuildOptions {
  /** Where logs go; standard output by default. */
  logStream?: LogStream
}

export async function buildApp (config: Config, { logStream }: BuildOptions = {}) {
  const app = Fastify({
    logger: { level: config.LOG_LEVEL, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, stream: logStream },
    // A number is not a name, and an unknown field is a mistake to report, not to drop silently.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    frameworkErrors,
    clientErrorHandler,
    // request.ip, which the per-address failure limit counts, is the client's only behind a trusted proxy.
    trustProxy: config.TRUST_PROXY === undefined ? false : trustProxy(config.TRUST_PROXY),
    // A connection silent this long (a stalled body, an answer nobody reads) is closed.
    connectionTimeout: config.HTTP_IDLE_TIMEOUT_MS,
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    // Node checks the header and request deadlines only this often (30 s by default).
    http: { headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1000 }
  }).withTypeProvider<TypeBoxTypeProvider>()

  for (const schema of [...sharedSchemas, ...fileSchemas, ...authSchemas, ...healthSchemas, ...keySchemas]) app.addSchema(schema)

  await app.register(errorsPlugin)
  await app.register(openapiPlugin, { publicUrl: config.PUBLIC_URL })
  await app.register(dbPlugin, {
    url: config.DATABASE_URL,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_MS,
    poolSize: config.DATABASE_POOL_SIZE
  })
  await app.register(storagePlugin, {
    driver: config.STORAGE_DRIVER,
    dir: config.STORAGE_DIR,
    bucket: config.S3_BUCKET,
    region: config.S3_REGION,
    endpoint: config.S3_ENDPOINT,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    connectTimeoutMs: config.S3_CONNECT_TIMEOUT_MS,
    timeoutMs: config.S3_TIMEOUT_MS,
    root: config.STORAGE_ROOT,
    maxFileBytes: config.MAX_FILE_BYTES
  })
  await app.register(healthPlugin, { timeoutMs: config.HEALTH_TIMEOUT_MS })
  await app.register(identityPlugin, {
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    jwksUrl: config.JWT_JWKS_URL,
    algorithms: config.JWT_ALGORITHMS.split(',') as Algorithm[],
    userClaim: config.JWT_USER_CLAIM,
    orgClaim: config.JWT_ORG_CLAIM,
    tokenUrl: config.OIDC_TOKEN_URL,
    clientId: config.OIDC_CLIENT_ID,
    clientSecret: config.OIDC_CLIENT_SECRET,
    stsEndpoint: config.STS_ENDPOINT,
    stsRegion: config.STS_REGION,
    credentialsRoleArn: config.CREDENTIALS_ROLE_ARN,
    credentialsTtlSeconds: config.CREDENTIALS_TTL_SECONDS,
    awsAuthServerId: config.AWS_AUTH_SERVER_ID,
    upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
    stsConcurrency: config.STS_CONCURRENCY
  })
  await app.register(keysPlugin, {
    prefix: config.API_KEY_PREFIX,
    bcryptCost: config.API_KEY_BCRYPT_COST,
    failuresPerKey: config.AUTH_FAILURES_PER_KEY,
    failureWindowMs: config.AUTH_FAILURE_WINDOW_SECONDS * 1000,
    bcryptConcurrency: config.BCRYPT_CONCURRENCY
  })
  await app.register(authPlugin, {
    failuresPerAddress: config.AUTH_FAILURES_PER_ADDRESS,
    failureWindowMs: config.AUTH_FAILURE_WINDOW_SECONDS * 1000
  })

  await app.register(healthRoutes)
  await app.register(authRoutes)
  await app.register(filesRoutes, { uploadMemoryBytes: config.UPLOAD_MEMORY_BYTES, uploadTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS })
  await app.register(keysRoutes)
  return app
}

export type StowageApp = Awaited<ReturnType<typeof buildApp>>
