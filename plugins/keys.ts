import fp from 'fastify-plugin'
import { createApiKeyRepository } from '../db/api-keys.js'
import { createKeyService, type Hasher, type KeyService } from '../keys/service.js'

declare module 'fastify' {
  interface FastifyInstance {
    keys: KeyService
  }
}

export interface KeysPluginOptions {
  prefix: string
  bcryptCost: number
  hasher?: Hasher
}

export const keysPlugin = fp<KeysPluginOptions>(async (app, options) => {
  app.decorate('keys', createKeyService({ ...options, repository: createApiKeyRepository(app.db) }))
}, { name: 'stowage-keys', fastify: '5.x', dependencies: ['stowage-db'] })
