import fp from 'fastify-plugin'
import type { Algorithm } from 'fast-jwt'
import { createDiscovery } from '../identity/discovery.js'
import { createJwtVerifier, type JwtVerifier } from '../identity/jwt.js'

declare module 'fastify' {
  interface FastifyInstance {
    identity: IdentityService
  }
}

export interface IdentityPluginOptions {
  /** Unset turns the JWT method off. */
  issuer?: string
  audience?: string
  /** Else discovered from the issuer. */
  jwksUrl?: string
  algorithms?: Algorithm[]
  userClaim?: string
  orgClaim?: string
  upstreamTimeoutMs?: number
  jwksRefetchIntervalMs?: number
}

export interface IdentityService {
  /** Undefined when no issuer is configured. */
  jwt?: JwtVerifier
}

export function createIdentityService (options: IdentityPluginOptions): IdentityService {
  const { issuer } = options
  if (!issuer) return {}
  const discover = createDiscovery(issuer, options.upstreamTimeoutMs)
  const jwksUrl = async () => {
    if (options.jwksUrl) return options.jwksUrl
    const { jwks_uri: discovered } = await discover()
    if (typeof discovered !== 'string') throw new Error('the identity provider publishes no jwks_uri')
    return discovered
  }
  return {
    jwt: createJwtVerifier({
      issuer,
      audience: options.audience,
      jwksUrl,
      algorithms: options.algorithms ?? ['RS256'],
      userClaim: options.userClaim ?? 'sub',
      orgClaim: options.orgClaim ?? 'org_id',
      fetchTimeoutMs: options.upstreamTimeoutMs,
      refetchIntervalMs: options.jwksRefetchIntervalMs
    })
  }
}

export const identityPlugin = fp<IdentityPluginOptions>(async (app, options) => {
  app.decorate('identity', createIdentityService(options))
}, { name: 'stowage-identity', fastify: '5.x' })
