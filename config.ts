import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { isIP } from 'node:net'
import {
  DEFAULT_BCRYPT_COST, DEFAULT_BUCKET, DEFAULT_KEY_PREFIX, DEFAULT_OIDC_SCOPE, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_UPLOAD_BYTES, DEFAULT_REGION,
  DEFAULT_LINK_MAX_SECONDS, DEFAULT_STORAGE_DIR, DEFAULT_STORAGE_ROOT, DEFAULT_TRASH_RETENTION_DAYS, DEFAULT_UPLOAD_EXPIRY_SECONDS, DEFAULT_VERSION_RETENTION_DAYS, DEFAULT_CHANGES_RETENTION_DAYS, DEFAULT_UPLOAD_MEMORY_BYTES, DEFAULT_IMAGE_CACHE_BYTES, DEFAULT_IMAGE_CONCURRENCY, DEFAULT_IMAGE_MAX_PIXELS, LARGEST_MAX_FILE_BYTES, LARGEST_MAX_UPLOAD_BYTES, s3UploadBufferBytes
} from './defaults.js'

const Url = (description: string, options: { default?: string } = {}) =>
  Type.String({ pattern: '^https?://[^\\s]+$', description, ...options })
const Millis = (defaultMs: number, meaning: string) =>
  Type.Integer({ minimum: 100, maximum: 600_000, default: defaultMs, description: 'milliseconds from 100 to 600000', title: meaning })
const Count = (defaultCount: number, meaning: string) =>
  Type.Integer({ minimum: 1, maximum: 1_000_000_000, default: defaultCount, description: 'an integer from 1 to 1000000000', title: meaning })
const Optional = <T extends TSchema>(schema: T) => Type.Optional(schema)

export const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'an integer from 0 to 65535' }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1', description: 'a host name or address' }),
  PUBLIC_URL: Optional(Url('the URL clients reach Stowage at (the OpenAPI document\'s servers)')),
  TRUST_PROXY: Optional(Type.String({
    pattern: '^[^,\\s]+(,\\s*[^,\\s]+)*$',
    description: 'a comma-separated list of the proxies\' addresses and CIDR ranges (or loopback, linklocal, uniquelocal)'
  })),
  DATABASE_URL: Type.String({
    pattern: '^(sqlite:.+|postgres(ql)?://.+)$',
    default: 'sqlite:./data/stowage.db',
    description: 'sqlite:<path>, sqlite::memory: or postgres://…'
  }),
  DATABASE_CONNECT_TIMEOUT_MS: Millis(5000, 'PostgreSQL: longest wait to open a connection'),
  DATABASE_POOL_WAIT_MS: Millis(30_000, 'PostgreSQL: longest a query waits its turn for one of the DATABASE_POOL_SIZE connections (a burst queues)'),
  DATABASE_QUERY_TIMEOUT_MS: Millis(5000, 'longest a statement may run (PostgreSQL statement_timeout; SQLite busy_timeout)'),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 1000, default: 10, description: 'an integer from 1 to 1000' }),
  STORAGE_DRIVER: Type.Union([Type.Literal('fs'), Type.Literal('s3')], { default: 'fs', description: 'fs or s3' }),
  STORAGE_DIR: Type.String({ minLength: 1, default: DEFAULT_STORAGE_DIR, description: 'a folder path' }),
  S3_BUCKET: Type.String({ pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$', default: DEFAULT_BUCKET, description: 'an S3 bucket name: 3 to 63 lower-case letters, digits, dots and hyphens' }),
  S3_REGION: Type.String({ pattern: '^[a-z0-9-]+$', default: DEFAULT_REGION, description: 'a region name such as us-east-1' }),
  S3_ENDPOINT: Optional(Url('endpoint of an S3-compatible store')),
  S3_FORCE_PATH_STYLE: Type.Boolean({ default: false, description: 'true or false' }),
  S3_CONNECT_TIMEOUT_MS: Millis(3000, 'longest wait to connect to S3'),
  S3_TIMEOUT_MS: Millis(15000, 'longest an S3 operation may take, its retries included (a streamed body has S3_IDLE_TIMEOUT_MS instead)'),
  S3_IDLE_TIMEOUT_MS: Millis(5000, 'a streamed read from S3: longest wait for its answer, then for each next chunk of the body'),
  STORAGE_ROOT: Type.String({ pattern: '^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$', default: DEFAULT_STORAGE_ROOT, description: 'one folder name of letters, digits, dots, hyphens and underscores, not starting with a dot' }),
  MAX_FILE_BYTES: Type.Integer({ minimum: 1, maximum: LARGEST_MAX_FILE_BYTES, default: DEFAULT_MAX_FILE_BYTES, description: 'an integer from 1 to 1073741824' }),
  MAX_UPLOAD_BYTES: Type.Integer({ minimum: 1, maximum: LARGEST_MAX_UPLOAD_BYTES, default: DEFAULT_MAX_UPLOAD_BYTES, description: `an integer from 1 to ${LARGEST_MAX_UPLOAD_BYTES}` }),
  JWT_ISSUER: Optional(Url('issuer of the identity provider')),
  JWT_AUDIENCE: Optional(Type.String({ minLength: 1, description: 'an audience' })),
  JWT_JWKS_URL: Optional(Url('JWKS URL of the identity provider')),
  JWT_ALGORITHMS: Type.String({
    pattern: '^(RS|PS|ES)(256|384|512)(,(RS|PS|ES)(256|384|512))*$',
    default: 'RS256',
    description: 'comma-separated asymmetric algorithms'
  }),
  JWT_USER_CLAIM: Type.String({ minLength: 1, default: 'sub', description: 'a claim name' }),
  JWT_ORG_CLAIM: Type.String({ minLength: 1, default: 'org_id', description: 'a claim name' }),
  OIDC_TOKEN_URL: Optional(Url('token endpoint of the identity provider')),
  OIDC_CLIENT_ID: Optional(Type.String({ minLength: 1, description: 'a client id' })),
  OIDC_CLIENT_SECRET: Optional(Type.String({ minLength: 1, description: 'a client secret' })),
  OIDC_SCOPE: Type.String({ pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+( [\\x21\\x23-\\x5b\\x5d-\\x7e]+)*$', default: DEFAULT_OIDC_SCOPE, description: 'scopes separated by spaces' }),
  STS_ENDPOINT: Url('STS endpoint', { default: 'https://sts.amazonaws.com' }),
  STS_REGION: Type.String({ pattern: '^[a-z0-9-]+$', default: DEFAULT_REGION, description: 'a region name such as us-east-1' }),
  CREDENTIALS_ROLE_ARN: Optional(Type.String({ pattern: '^arn:aws[a-z-]*:iam::\\d{12}:role/.+$', description: 'an IAM role ARN, arn:aws:iam::<12 digits>:role/<name>' })),
  UPLOAD_EXPIRY_SECONDS: Type.Integer({ minimum: 60, maximum: 30 * 86_400, default: DEFAULT_UPLOAD_EXPIRY_SECONDS, description: 'seconds from 60 to 2592000 (30 days)' }),
  FOLDER_OPERATION_BUDGET_MS: Millis(10_000, 'how long one folder copy or move request works before it answers isTruncated, to be sent again'),
  QUOTA_BYTES: Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'bytes each user may store (files, trash, versions and unfinished uploads); unset: no quota' })),
  TRASH_RETENTION_DAYS: Type.Number({ minimum: 0, maximum: 3650, default: DEFAULT_TRASH_RETENTION_DAYS, description: 'days from 0 (deletes are at once) to 3650; fractions allowed' }),
  CHANGES_RETENTION_DAYS: Type.Number({ minimum: 1, maximum: 3650, default: DEFAULT_CHANGES_RETENTION_DAYS, description: 'days from 1 to 3650 that the change journal keeps its entries; fractions allowed' }),
  VERSION_RETENTION_DAYS: Type.Number({ minimum: 0, maximum: 3650, default: DEFAULT_VERSION_RETENTION_DAYS, description: 'days from 0 (an overwrite keeps nothing) to 3650; fractions allowed' }),
  SHARES_ACROSS_ORGS: Type.Boolean({ default: false, description: 'true lets people share with people of other organizations; false (the default) keeps shares within one' }),
  WEBHOOK_ALLOW_PRIVATE: Type.Boolean({ default: false, description: 'true lets webhooks point at loopback and private addresses (receivers on the LAN); link-local and metadata addresses stay refused. false (the default) refuses them all' }),
  LINK_MAX_SECONDS: Type.Integer({ minimum: 60, maximum: DEFAULT_LINK_MAX_SECONDS, default: DEFAULT_LINK_MAX_SECONDS, description: `seconds from 60 to ${DEFAULT_LINK_MAX_SECONDS} (7 days, S3's longest)` }),
  LINK_SECRET: Optional(Type.String({ minLength: 32, description: 'at least 32 characters, the same on every instance' })),
  LINKS_VIA: Type.Union([Type.Literal('store'), Type.Literal('stowage')], { default: 'store', description: 'store (S3 presigned URLs for downloads) or stowage (links served by Stowage)' }),
  CREDENTIALS_TTL_SECONDS: Type.Integer({ minimum: 900, maximum: 43200, default: 3600, description: 'an integer from 900 to 43200' }),
  UPSTREAM_TIMEOUT_MS: Millis(5000, 'longest wait for the identity provider or STS'),
  API_KEY_PREFIX: Type.String({ pattern: '^[a-z][a-z0-9]{0,15}$', default: DEFAULT_KEY_PREFIX, description: 'a lower-case letter, then up to 15 lower-case letters or digits' }),
  API_KEY_BCRYPT_COST: Type.Integer({ minimum: 4, maximum: 15, default: DEFAULT_BCRYPT_COST, description: 'an integer from 4 to 15' }),
  AUTH_FAILURES_PER_ADDRESS: Count(100, 'failed authentications per client address in one window before 429'),
  AUTH_FAILURES_PER_KEY: Count(10, 'wrong secrets per API key id in one window before 429'),
  IDP_CALLS_PER_ADDRESS: Count(60, 'calls to the identity provider (sign-in, refresh, logout) per client address in one AUTH_FAILURE_WINDOW_SECONDS window before 429'),
  AUTH_FAILURE_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 60, description: 'seconds from 1 to 86400' }),
  BCRYPT_CONCURRENCY: Count(2, 'bcrypt compares running at once'),
  STS_CONCURRENCY: Count(8, 'calls to STS in flight at once for the AWS method'),
  AWS_AUTH_SERVER_ID: Optional(Type.String({ pattern: '^[\\x21-\\x7e]{1,128}$', description: '1 to 128 printable ASCII characters without spaces' })),
  HEALTH_TIMEOUT_MS: Millis(2000, 'longest each readiness check of /health may take'),
  HTTP_HEADERS_TIMEOUT_MS: Millis(10_000, 'longest a client may take to send the request headers'),
  HTTP_REQUEST_TIMEOUT_MS: Millis(120_000, 'longest a client may take to send a whole request, body included'),
  HTTP_IDLE_TIMEOUT_MS: Millis(30_000, 'longest a connection may stay silent: a stalled body, an answer nobody reads'),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Millis(5_000, 'how long an idle keep-alive connection is kept'),
  UPLOAD_MEMORY_BYTES: Type.Integer({ minimum: 1024 * 1024, maximum: 64 * 1024 * 1024 * 1024, default: DEFAULT_UPLOAD_MEMORY_BYTES, description: 'bytes from 1048576, and room for one upload of MAX_FILE_BYTES' }),
  IMAGE_MAX_PIXELS: Type.Integer({ minimum: 1, maximum: 1_000_000_000, default: DEFAULT_IMAGE_MAX_PIXELS, description: 'pixels from 1 to 1000000000: a larger image is 422, read from its header before decoding' }),
  IMAGE_CACHE_BYTES: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: DEFAULT_IMAGE_CACHE_BYTES, description: 'bytes of transformed images kept in the store for every instance; past it the oldest go' }),
  IMAGE_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 64, default: DEFAULT_IMAGE_CONCURRENCY, description: 'image transforms at once per instance, from 1 to 64; four times as many wait, then 503' }),
  SHUTDOWN_TIMEOUT_MS: Millis(10_000, 'after SIGTERM, how long requests in flight have before the process exits'),
  S3_API_PORT: Optional(Type.Integer({ minimum: 0, maximum: 65535, description: 'an integer from 0 to 65535; unset turns the S3 endpoint off' })),
  S3_API_HOST: Optional(Type.String({ minLength: 1, description: 'a host name or address (HOST by default)' })),
  S3_API_REGION: Type.String({ pattern: '^[a-z0-9-]+$', default: DEFAULT_REGION, description: 'the region clients sign for, such as us-east-1' }),
  S3_API_DOMAIN: Optional(Type.String({ pattern: '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?$', description: 'a domain (bucket.DOMAIN is virtual-hosted style), such as s3.example.com' })),
  S3_CREDENTIALS_KEY: Optional(Type.String({ pattern: '^[A-Za-z0-9+/]{43}=$', description: '32 bytes in base64 (openssl rand -base64 32)' })),
  METRICS_PORT: Optional(Type.Integer({ minimum: 0, maximum: 65535, description: 'an integer from 0 to 65535; unset turns metrics off' })),
  METRICS_HOST: Type.String({ minLength: 1, default: '127.0.0.1', description: 'a host name or address' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info', description: 'a pino level: fatal, error, warn, info, debug, trace or silent' }
  )
})

export type Config = Static<typeof ConfigSchema>
export type Env = Record<string, string | undefined>

export class ConfigError extends Error {
  constructor (readonly variable: string, message: string) {
    super(`Invalid configuration: ${variable} ${message}`)
    this.name = 'ConfigError'
  }
}

// Variables whose value is a secret (or holds one, as a database URL's password): a refusal says
// how long the value was, never what it was, since start-up errors reach terminals and logs.
const SECRET_VARIABLES = new Set(['S3_CREDENTIALS_KEY', 'LINK_SECRET', 'OIDC_CLIENT_SECRET', 'DATABASE_URL'])

const shown = (variable: string, value: unknown) =>
  SECRET_VARIABLES.has(variable) && typeof value === 'string' ? `a value of ${value.length} characters (not shown: it is a secret)` : JSON.stringify(value)

/** Reads the variables of ConfigSchema from `env`; an empty variable counts as unset. */
export function loadConfig (env: Env = {}): Config {
  const raw: Record<string, unknown> = {}
  for (const name of Object.keys(ConfigSchema.properties)) {
    const value = env[name]
    if (value !== undefined && value.trim() !== '') raw[name] = value.trim()
  }
  const converted = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw))
  const [first] = Value.Errors(ConfigSchema, converted)
  if (first) {
    const variable = first.path.replace(/^\//, '')
    const schema = (ConfigSchema.properties as Record<string, TSchema>)[variable]
    const expected = schema?.description ?? 'set as documented'
    throw new ConfigError(variable, `must be ${expected}, got ${shown(variable, raw[variable])}`)
  }
  const config = converted as Config
  if (config.TRUST_PROXY !== undefined && trustProxy(config.TRUST_PROXY) === undefined) {
    throw new ConfigError('TRUST_PROXY', `must be ${ConfigSchema.properties.TRUST_PROXY.description}, got ${JSON.stringify(config.TRUST_PROXY)}`)
  }
  if (config.HTTP_HEADERS_TIMEOUT_MS > config.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS', `must be at most HTTP_REQUEST_TIMEOUT_MS (${config.HTTP_REQUEST_TIMEOUT_MS}), got ${config.HTTP_HEADERS_TIMEOUT_MS}`)
  }
  if (config.STORAGE_DRIVER === 's3' && config.UPLOAD_MEMORY_BYTES < s3UploadBufferBytes(config.MAX_UPLOAD_BYTES)) {
    throw new ConfigError('UPLOAD_MEMORY_BYTES', `must leave room for one streamed upload to S3 (three parts): at least ${s3UploadBufferBytes(config.MAX_UPLOAD_BYTES)}, got ${config.UPLOAD_MEMORY_BYTES}`)
  }
  if (config.UPLOAD_MEMORY_BYTES < uploadBodyLimit(config.MAX_FILE_BYTES)) {
    throw new ConfigError('UPLOAD_MEMORY_BYTES', `must leave room for one upload of MAX_FILE_BYTES: at least ${uploadBodyLimit(config.MAX_FILE_BYTES)}, got ${config.UPLOAD_MEMORY_BYTES}`)
  }
  // SigV4 needs each secret itself: without a key to keep them under, there is no S3 endpoint.
  if (config.S3_API_PORT !== undefined && config.S3_CREDENTIALS_KEY === undefined) {
    throw new ConfigError('S3_CREDENTIALS_KEY', 'must be set when S3_API_PORT is: 32 bytes in base64 (openssl rand -base64 32), the same on every instance')
  }
  return config
}

/** The largest upload body for a file of `maxFileBytes`: its base64 (4 characters for every 3
 *  bytes) and room for the JSON around it. */
export function uploadBodyLimit (maxFileBytes: number): number {
  return Math.ceil(maxFileBytes / 3) * 4 + 64 * 1024
}

const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/** Fastify's `trustProxy` for TRUST_PROXY: the list of addresses, or undefined when one is invalid.
 *  (A hop count would trust any direct client's own X-Forwarded-For.) */
export function trustProxy (setting: string): string[] | undefined {
  const entries = setting.split(',').map((entry) => entry.trim())
  const valid = entries.every((entry) => {
    if (PROXY_RANGES.has(entry)) return true
    const [address, bits, extra] = entry.split('/')
    const family = isIP(address)
    if (family === 0 || extra !== undefined) return false
    return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))
  })
  return valid ? entries : undefined
}
