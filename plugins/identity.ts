import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import { createOrganizationRepository } from '../db/organizations.js'
import { createIdentityService, type IdentityOptions } from '../identity/service.js'
import { baseUrlOf } from '../routes/base-url.js'
import { decorateStowage, stowageOf } from '../http/decorators.js'

export type IdentityPluginOptions = IdentityOptions

/** RFC 9728's metadata of the service as clients reach it; undefined when no identity provider is configured. */
export function resourceMetadataOf (request: FastifyRequest) {
  const resource = stowageOf(request.server).stowageIdentity?.protectedResource
  if (!resource) return undefined
  const base = `${baseUrlOf(request, resource.publicUrl)}${request.server.prefix}`
  return {
    resource: base,
    authorization_servers: [resource.authorizationServer],
    bearer_methods_supported: ['header'],
    scopes_supported: resource.scopes,
    ...(resource.clientId ? { client_id: resource.clientId } : {}),
    metadataUrl: `${base}/.well-known/oauth-protected-resource`
  }
}

export const identityPlugin = fp<IdentityPluginOptions>(async (app, options) => {
  const { stowageDb, stowageFiles } = stowageOf(app)
  const identity = createIdentityService({ log: app.log, ...options }, {
    organizations: createOrganizationRepository(stowageDb),
    locate: async (userId) => stowageFiles.location(userId)
  })
  decorateStowage(app, 'stowageIdentity', identity)
  app.addHook('onClose', async () => { identity.refresher.close() })
}, { name: 'stowage-identity', fastify: '5.x', dependencies: ['stowage-db', 'stowage-storage'] })
