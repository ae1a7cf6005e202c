import fp from 'fastify-plugin'
import { createApiKeyRepository } from '../db/api-keys.js'
import { createKeyService, type KeyService, type KeyServiceOptions } from '../keys/service.js'

declare module 'fastify' {
  interface FastifyInstance {
    keys: KeyService
  }
}

export type KeysPluginOptions = Omit<KeyServiceOptions, 'repository' | 'onThrottled'>

export const keysPlugin = fp<KeysPluginOptions>(async (app, options) => {
  app.decorate('keys', createKeyService({
    ...options,
    repository: createApiKeyRepository(app.db),
    // The key id is not secret: it is in `start`, in lists and in every key.
    onThrottled: (keyId) => app.log.warn({ keyId }, 'API key id throttled after repeated wrong secrets')
  }))
}, { name: 'stowage-keys', fastify: '5.x', dependencies: ['stowage-db'] })
