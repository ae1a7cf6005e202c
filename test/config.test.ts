import t from 'tap'
import { spawnSync } from 'node:child_process'
import { ConfigError, loadConfig } from '../config.js'

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
    DATABASE_QUERY_TIMEOUT_MS: '0', DATABASE_POOL_SIZE: 'many', S3_TIMEOUT_MS: '5s', UPSTREAM_TIMEOUT_MS: '-5', HEALTH_TIMEOUT_MS: '9999999'
  }
  for (const [name, value] of Object.entries(bad)) {
    const error = (() => { try { loadConfig({ [name]: value }) } catch (e) { return e } })()
    t.ok(error instanceof ConfigError, `${name} is refused`)
    t.equal((error as ConfigError).variable, name)
    t.match((error as ConfigError).message, new RegExp(`^Invalid configuration: ${name} must be [^\n]+$`))
  }
})

t.test('the server stops at start-up with that one line', async (t) => {
  const result = spawnSync(process.execPath, [...process.execArgv, 'server.ts'], {
    env: { ...process.env, PORT: 'eighty' }, encoding: 'utf8', timeout: 60_000
  })
  t.equal(result.status, 1)
  t.match(result.stderr, /^Invalid configuration: PORT must be .*\n$/)
})
