import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp, type LogStream, type StowageApp } from '../../app.js'
import { loadConfig, type Config, type Env } from '../../config.js'
import { createTestDatabase } from './db.js'
import { TEST_AUDIENCE, type TestIdp } from './idp.js'
import { TEST_S3_CREDENTIALS, type S3Server } from './s3.js'

export interface TestAppOptions {
  driver?: 'fs' | 's3'
  s3?: S3Server
  idp?: TestIdp
  env?: Env
  logStream?: LogStream
}

export interface TestApp {
  app: StowageApp
  config: Config
  close (): Promise<void>
}

// The S3 client of the service reads the AWS default chain, as it does in production.
process.env.AWS_ACCESS_KEY_ID ??= TEST_S3_CREDENTIALS.accessKeyId
process.env.AWS_SECRET_ACCESS_KEY ??= TEST_S3_CREDENTIALS.secretAccessKey

/** The real app on a fresh database and a fresh store, wired to the test peers it is given. */
export async function buildTestApp ({ driver = 'fs', s3, idp, env = {}, logStream }: TestAppOptions = {}): Promise<TestApp> {
  if (driver === 's3' && !s3) throw new Error('the s3 driver needs a test S3 server')
  const database = env.DATABASE_URL ? { url: env.DATABASE_URL, drop: async () => {} } : await createTestDatabase()
  const storageDir = await mkdtemp(join(tmpdir(), 'stowage-fs-'))
  const config = loadConfig({
    DATABASE_URL: database.url,
    STORAGE_DRIVER: driver,
    STORAGE_DIR: storageDir,
    S3_BUCKET: s3?.bucket,
    S3_ENDPOINT: s3?.endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    JWT_ISSUER: idp?.issuer,
    JWT_AUDIENCE: idp ? TEST_AUDIENCE : undefined,
    API_KEY_BCRYPT_COST: '4',
    LOG_LEVEL: 'silent',
    ...env
  })
  const app = await buildApp(config, { logStream })
  return {
    app,
    config,
    async close () {
      await app.close()
      await database.drop()
      await rm(storageDir, { recursive: true, force: true })
    }
  }
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** WWW-Authenticate of a 401 from an app with an identity provider, reached by app.inject (Host: localhost:80). */
export const IDP_CHALLENGE = 'Bearer resource_metadata="http://localhost:80/.well-known/oauth-protected-resource"'
