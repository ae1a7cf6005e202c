import t from 'tap'
import { spawnSync } from 'node:child_process'
import { ConfigError, ConfigSchema, loadConfig } from '../config.js'
import { NODE_ARGS } from './helpers/server.js'

t.test('defaults are those of DESIGN.md §3', async (t) => {
  t.match(loadConfig({}), {
    PORT: 3000,
    HOST: '127.0.0.1',
    DATABASE_URL: 'sqlite:./data/stowage.db',
    STORAGE_DRIVER: 'fs',
    STORAGE_DIR: './data/objects',
    S3_BUCKET: 'stowage',
    S3_REGION: 'us-east-1',
    S3_FORCE_PATH_STYLE: false,
    STORAGE_ROOT: 'files',
    MAX_FILE_BYTES: 10485760,
    JWT_ALGORITHMS: 'RS256',
    JWT_USER_CLAIM: 'sub',
    JWT_ORG_CLAIM: 'org_id',
    STS_ENDPOINT: 'https://sts.amazonaws.com',
    STS_REGION: 'us-east-1',
    CREDENTIALS_TTL_SECONDS: 3600,
    API_KEY_PREFIX: 'stow',
    API_KEY_BCRYPT_COST: 10,
    LOG_LEVEL: 'info',
    DATABASE_CONNECT_TIMEOUT_MS: 5000,
    DATABASE_QUERY_TIMEOUT_MS: 5000,
    DATABASE_POOL_SIZE: 10,
    S3_CONNECT_TIMEOUT_MS: 3000,
    S3_TIMEOUT_MS: 15000,
    UPSTREAM_TIMEOUT_MS: 5000,
    HEALTH_TIMEOUT_MS: 2000
  })
  t.equal(loadConfig({}).JWT_ISSUER, undefined)
})

t.test('values are converted to their types; empty means unset', async (t) => {
  const config = loadConfig({ PORT: '8080', S3_FORCE_PATH_STYLE: 'true', MAX_FILE_BYTES: '100', JWT_ISSUER: '' })
  t.equal(config.PORT, 8080)
  t.equal(config.S3_FORCE_PATH_STYLE, true)
  t.equal(config.MAX_FILE_BYTES, 100)
  t.equal(config.JWT_ISSUER, undefined)
})

t.test('a bad variable is refused with a line naming it', async (t) => {
  const bad = {
    PORT: 'eighty', DATABASE_URL: 'mysql://x', STORAGE_DRIVER: 'ftp', S3_FORCE_PATH_STYLE: 'maybe',
    MAX_FILE_BYTES: '-1', JWT_ISSUER: 'not a url', JWT_ALGORITHMS: 'HS256', API_KEY_PREFIX: 'has_underscore',
    API_KEY_BCRYPT_COST: '99', LOG_LEVEL: 'loud', STORAGE_ROOT: '../up', CREDENTIALS_TTL_SECONDS: '60',
    DATABASE_QUERY_TIMEOUT_MS: '0', TRUST_PROXY: 'true', DATABASE_POOL_SIZE: 'many', S3_TIMEOUT_MS: '5s', UPSTREAM_TIMEOUT_MS: '-5', HEALTH_TIMEOUT_MS: '9999999',
    MAX_UPLOAD_BYTES: '0', S3_IDLE_TIMEOUT_MS: '10'
  }
  for (const [name, value] of Object.entries(bad)) {
    const error = (() => { try { loadConfig({ [name]: value }) } catch (e) { return e } })()
    t.ok(error instanceof ConfigError, `${name} is refused`)
    t.equal((error as ConfigError).variable, name)
    t.match((error as ConfigError).message, new RegExp(`^Invalid configuration: ${name} must be [^\n]+$`))
  }
})

t.test('on S3, UPLOAD_MEMORY_BYTES must hold one streamed upload\'s three parts', async (t) => {
  const s3 = { STORAGE_DRIVER: 's3', UPLOAD_MEMORY_BYTES: String(20 * 1024 * 1024) }
  t.throws(() => loadConfig(s3), { variable: 'UPLOAD_MEMORY_BYTES', message: /three parts\): at least 25165824, got 20971520/ } as unknown as Error)
  t.equal(loadConfig({ ...s3, STORAGE_DRIVER: 'fs' }).UPLOAD_MEMORY_BYTES, 20 * 1024 * 1024, 'fs streams through 64 KiB')
  t.equal(loadConfig({ ...s3, UPLOAD_MEMORY_BYTES: String(24 * 1024 * 1024) }).STORAGE_DRIVER, 's3')
})

t.test('the server stops at start-up with that one line', async (t) => {
  const result = spawnSync(process.execPath, [...NODE_ARGS, 'server.ts'], {
    env: { ...process.env, PORT: 'eighty' }, encoding: 'utf8', timeout: 60_000
  })
  t.equal(result.status, 1)
  t.match(result.stderr, /^Invalid configuration: PORT must be .*\n$/)
})

t.test('every variable says in plain words what it must be', async (t) => {
  const cases: Record<string, [string, string]> = {
    PORT: ['abc', 'PORT must be an integer from 0 to 65535, got "abc"'],
    S3_TIMEOUT_MS: ['5s', 'S3_TIMEOUT_MS must be milliseconds from 100 to 600000, got "5s"'],
    S3_FORCE_PATH_STYLE: ['maybe', 'S3_FORCE_PATH_STYLE must be true or false, got "maybe"'],
    API_KEY_PREFIX: ['Has_Caps', 'API_KEY_PREFIX must be a lower-case letter, then up to 15 lower-case letters or digits, got "Has_Caps"'],
    TRUST_PROXY: ['10.0.0.0/33', 'TRUST_PROXY must be a comma-separated list of the proxies\' addresses and CIDR ranges (or loopback, linklocal, uniquelocal), got "10.0.0.0/33"']
  }
  for (const [name, [value, message]] of Object.entries(cases)) {
    t.throws(() => loadConfig({ [name]: value }), { message: `Invalid configuration: ${message}` }, name)
  }
  for (const name of Object.keys(ConfigSchema.properties)) {
    const schema = (ConfigSchema.properties as Record<string, { description?: string, anyOf?: unknown }>)[name]
    t.ok(schema.description, `${name} has a description for its error`)
  }
})

t.test('a refused secret is never echoed: its length is said, not its value', async (t) => {
  for (const [name, value] of [['S3_CREDENTIALS_KEY', 'my-secret-key-material'], ['DATABASE_URL', 'mysql://user:hunter2@db/x'], ['LINK_SECRET', 'short']]) {
    const error = (() => { try { loadConfig({ [name]: value, S3_API_PORT: '9000' }) } catch (e) { return e as Error } })()
    t.ok(error instanceof ConfigError, name)
    t.notMatch(error!.message, value, `${name}'s value is not in the message`)
    t.match(error!.message, new RegExp(`got a value of ${value.length} characters \\(not shown: it is a secret\\)`))
  }
})
