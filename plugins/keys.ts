import fp from 'fastify-plugin'
import { createApiKeyRepository } from '../db/api-keys.js'
import { sharedFailureLimit } from '../db/auth-failures.js'
import { isPostgres } from '../db/dialect.js'
import { createKeyService, type KeyServiceOptions } from '../keys/service.js'
import { decorateStowage, stowageOf } from '../http/decorators.js'

export type KeysPluginOptions = Omit<KeyServiceOptions, 'repository' | 'onThrottled' | 'failureLimit'>

export const keysPlugin = fp<KeysPluginOptions>(async (app, options) => {
  const db = stowageOf(app).stowageDb
  const { failuresPerKey = 10, failureWindowMs = 60_000 } = options
  decorateStowage(app, 'stowageKeys', createKeyService({
    ...options,
    repository: createApiKeyRepository(db),
    // On PostgreSQL the instances count a key's failures together.
    failureLimit: isPostgres(db) ? sharedFailureLimit(db, 'key', { max: failuresPerKey, windowMs: failureWindowMs }) : undefined,
    // The key id is not secret: it is in `start`, in lists and in every key.
    onThrottled: (keyId) => app.log.warn({ keyId }, 'API key id throttled after repeated wrong secrets')
  }))
}, { name: 'stowage-keys', fastify: '5.x', dependencies: ['stowage-db'] })
