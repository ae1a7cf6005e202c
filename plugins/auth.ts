import fastifyAuth from '@fastify/auth'
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest, preHandlerHookHandler } from 'fastify'
import { isSafeSegment } from '../storage/paths.js'
import { ServiceUnavailableError, UnauthorizedError } from './errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The authentication chain as one preHandler: JWT, then API key, then AWS-signed identity. */
    authenticate: preHandlerHookHandler
  }
  interface FastifyRequest {
    userId: string
    orgId: string | null
  }
}

export interface Caller {
  userId: string
  orgId: string | null
}

/** Sets request.userId/orgId or throws; must fail fast, without I/O, when its trigger is absent. */
export type Authenticator = (request: FastifyRequest) => Promise<void>

const BEARER = /^Bearer ([\x21-\x7e]+)$/i

export function bearerToken (request: FastifyRequest): string | undefined {
  return BEARER.exec(request.headers.authorization ?? '')?.[1]
}

// Thrown whenever a method does not apply or fails: one instance, so that stepping along the chain
// does not capture a stack trace per method per request.
const REFUSED = new UnauthorizedError()

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

/** Checks a resolved identity before it is used as a storage folder and an owner. */
export function acceptCaller (request: FastifyRequest, { userId, orgId }: { userId: unknown, orgId: unknown }) {
  if (!isSafeSegment(userId)) throw REFUSED
  if (orgId !== undefined && orgId !== null && typeof orgId !== 'string') throw REFUSED
  request.userId = userId
  request.orgId = orgId ?? null
}

function jwtAuthenticator (app: FastifyInstance): Authenticator | undefined {
  const jwt = app.identity.jwt
  if (!jwt) return undefined
  return async (request) => {
    const token = bearerToken(request)
    if (!token || !JWT_SHAPE.test(token)) throw REFUSED
    let claims
    try {
      claims = await jwt.verify(token)
    } catch (error) {
      request.log.debug({ reason: (error as Error).message }, 'JWT refused')
      throw REFUSED
    }
    acceptCaller(request, claims)
  }
}

function apiKeyAuthenticator (app: FastifyInstance): Authenticator | undefined {
  if (!app.hasDecorator('keys')) return undefined
  const keys = app.keys
  const keyStart = keys.prefix + '_'
  return async (request) => {
    const token = bearerToken(request)
    if (!token?.startsWith(keyStart)) throw REFUSED
    const caller = await keys.verify(token)
    if (!caller) throw REFUSED
    acceptCaller(request, caller)
  }
}

function awsAuthenticator (app: FastifyInstance): Authenticator | undefined {
  const awsCaller = app.identity.awsCaller
  if (!awsCaller) return undefined
  return async (request) => {
    if (!awsCaller.applies(request)) throw REFUSED
    let caller
    try {
      caller = await awsCaller.verify(request)
    } catch (error) {
      if (error instanceof ServiceUnavailableError) throw error
      request.log.debug({ reason: (error as Error).message }, 'AWS signature refused')
      throw REFUSED
    }
    acceptCaller(request, caller)
  }
}

export interface AuthPluginOptions {
  /** Further methods, tried in order after those built from the app's decorators. */
  authenticators?: Authenticator[]
}

export const authPlugin = fp<AuthPluginOptions>(async (app, options) => {
  await app.register(fastifyAuth)
  app.decorateRequest('userId', '')
  app.decorateRequest('orgId', null)

  const chain = [jwtAuthenticator(app), apiKeyAuthenticator(app), awsAuthenticator(app), ...(options.authenticators ?? [])]
    .filter((method): method is Authenticator => method !== undefined)
  const refuseAll: Authenticator = async () => { throw REFUSED }
  app.decorate('authenticate', app.auth(chain.length > 0 ? chain : [refuseAll]))
}, { name: 'stowage-auth', fastify: '5.x', dependencies: ['stowage-identity'] })
