import type { Algorithm } from 'fast-jwt'
import type { Config } from './config.js'
import type { StowageOptions } from './plugins/stowage.js'

// Apart from app.ts so that `stowage admin`, which needs the options but not the service, does not
// load Fastify and every plugin (a second of CPU per command).
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
    shares: { acrossOrgs: config.SHARES_ACROSS_ORGS },
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

/** Where the store's signed links point (S3 presigned URLs): the console's audio and video previews stream from there. */
function storeLinkSources (config: Config): string[] {
  if (config.STORAGE_DRIVER !== 's3' || config.LINKS_VIA !== 'store') return []
  if (!config.S3_ENDPOINT) return ['https://*.amazonaws.com']
  const endpoint = new URL(config.S3_ENDPOINT)
  return config.S3_FORCE_PATH_STYLE ? [endpoint.origin] : [endpoint.origin, `${endpoint.protocol}//*.${endpoint.host}`]
}
