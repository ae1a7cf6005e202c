import fp from 'fastify-plugin'
import { createS3CredentialRepository } from '../db/s3-credentials.js'
import { createS3Credentials } from '../s3/credentials.js'
import { createSealer } from '../s3/sealed.js'
import { decorateStowage, stowageOf } from '../http/decorators.js'

export interface S3CredentialsPluginOptions {
  /** 32 bytes in base64 (S3_CREDENTIALS_KEY), the same on every instance; without it there are no S3 credentials. */
  key?: string
  /** How long temporary credentials last (CREDENTIALS_TTL_SECONDS). */
  sessionTtlSeconds?: number
}

/** S3 credentials for the S3 endpoint: made and revoked on /api, checked by the endpoint. */
export const s3CredentialsPlugin = fp<S3CredentialsPluginOptions>(async (app, { key, sessionTtlSeconds }) => {
  decorateStowage(app, 'stowageS3Credentials', key === undefined
    ? undefined
    : createS3Credentials({ repository: createS3CredentialRepository(stowageOf(app).stowageDb), sealer: createSealer(key), sessionTtlSeconds }))
}, { name: 'stowage-s3-credentials', fastify: '5.x', dependencies: ['stowage-db'] })
