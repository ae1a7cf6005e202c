import fp from 'fastify-plugin'
import { createApiKeyRepository } from '../db/api-keys.js'
import { createKeyService, type KeyServiceOptions } from '../keys/service.js'
import { stowageOf } from './decorators.js'

export type KeysPluginOptions = Omit<KeyServiceOptions, 'repository' | 'onThrottled'>

export const keysPlugin = fp<KeysPluginOptions>(async (app, options) => {
  app.decorate('stowageKeys', createKeyService({
    ...options,
    repository: createApiKeyRepository(stowageOf(app).stowageDb),
    // The key id is not secret: it is in `start`, in lists and in every key.
    onThrottled: (keyId) => app.log.warn({ keyId }, 'API key id throttled after repeated wrong secrets')
  }))
}, { name: 'stowage-keys', fastify: '5.x', dependencies: ['stowage-db'] })
