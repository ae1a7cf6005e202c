import fastifyAuth from '@fastify/auth'
import fp from 'fastify-plugin'
import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify'
import { isSafeSegment } from '../storage/paths.js'
import { DependencyUnavailableError, TooManyAttemptsError, UnauthorizedError } from '../errors.js'
import type { Credential } from '../keys/service.js'
import { forgetEndedFailures, sharedFailureLimit } from '../db/auth-failures.js'
import { isPostgres } from '../db/dialect.js'
import { inProcessFailureLimit, type FailureLimiterOptions } from '../limits.js'
import { DeviceCodeWaitingError } from '../identity/signin.js'
import { sweepEvery } from '../http/sweep.js'
import { decorateStowage, stowageOf } from '../http/decorators.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route also takes HTTP Basic with an API key as the password (WebDAV). */
    basicAuth?: boolean
  }
  interface FastifyRequest {
    /** Set by Stowage's authentication chain on Stowage's routes (the specification's req.userId). */
    userId: string
    /** Set with userId: the caller's organization, or null. */
    orgId: string | null
    /** How the caller authenticated, on Stowage's routes: API key lineage depends on it. */
    stowageCredential?: Credential | null
  }
}

export interface Caller {
  userId: string
  orgId: string | null
}

/** One method of the chain. `applies` looks for its trigger, without I/O; `authenticate` sets
 *  request.userId/orgId or throws. */
export interface Authenticator {
  /** Names the method in metrics: jwt, api_key, aws; a host's own are `custom` unless named. */
  name?: string
  applies (request: FastifyRequest): boolean
  authenticate (request: FastifyRequest): Promise<void>
}

const BEARER = /^Bearer ([\x21-\x7e]+)$/i

export function bearerToken (request: FastifyRequest): string | undefined {
  return BEARER.exec(request.headers.authorization ?? '')?.[1]
}

// Thrown whenever a method does not apply or fails: one instance, so that stepping along the chain
// does not capture a stack trace per method per request.
const REFUSED = new UnauthorizedError()

/** What a JWT named the person it authenticated, for their row (DESIGN §13's people). */
const profiles = new WeakMap<FastifyRequest, { email?: string, name?: string }>()

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

/** Checks a resolved identity before it is used as a storage folder and an owner. */
export function acceptCaller (request: FastifyRequest, { userId, orgId }: { userId: unknown, orgId: unknown }, credential: Credential = { method: 'custom' }) {
  if (!isSafeSegment(userId)) throw REFUSED
  if (orgId !== undefined && orgId !== null && typeof orgId !== 'string') throw REFUSED
  request.userId = userId
  request.orgId = orgId ?? null
  request.stowageCredential = credential
}

function jwtAuthenticator (app: FastifyInstance): Authenticator | undefined {
  const jwt = stowageOf(app).stowageIdentity.jwt
  if (!jwt) return undefined
  return {
    name: 'jwt',
    applies: (request) => JWT_SHAPE.test(bearerToken(request) ?? ''),
    async authenticate (request) {
      const token = bearerToken(request) as string
      let claims
      try {
        claims = await jwt.verify(token)
      } catch (error) {
        if (error instanceof DependencyUnavailableError) throw error
        request.log.debug({ reason: (error as Error).message }, 'JWT refused')
        throw REFUSED
      }
      acceptCaller(request, claims, { method: 'jwt' })
      profiles.set(request, { email: claims.email, name: claims.name })
    }
  }
}

type CostlyCheckGate = (request: FastifyRequest) => () => Promise<void>

function apiKeyAuthenticator (app: FastifyInstance, admitCostlyCheck: CostlyCheckGate): Authenticator | undefined {
  if (!app.hasDecorator('stowageKeys')) return undefined
  const keys = stowageOf(app).stowageKeys
  const keyStart = keys.prefix + '_'
  return {
    name: 'api_key',
    applies: (request) => bearerToken(request)?.startsWith(keyStart) === true,
    async authenticate (request) {
      const caller = await keys.verify(bearerToken(request) as string, { admitCostlyCheck: admitCostlyCheck(request) })
      if (!caller) throw REFUSED
      acceptCaller(request, caller, { method: 'api-key', key: { id: caller.keyId, expiresAt: caller.expiresAt, awsSsoOnly: caller.awsSsoOnly } })
    }
  }
}

const BASIC = /^Basic ([A-Za-z0-9+/]+={0,2})$/i

/** The password of an HTTP Basic Authorization header (the user name is not read). */
function basicPassword (request: FastifyRequest): string | undefined {
  const encoded = BASIC.exec(request.headers.authorization ?? '')?.[1]
  if (encoded === undefined) return undefined
  const decoded = Buffer.from(encoded, 'base64').toString('utf8')
  return decoded.includes(':') ? decoded.slice(decoded.indexOf(':') + 1) : undefined
}

/**
 * HTTP Basic with an API key as the password, on the routes that ask for it (`config.basicAuth`:
 * WebDAV, whose file managers speak nothing else). Verified, throttled and counted as a Bearer key.
 */
function basicAuthenticator (app: FastifyInstance, admitCostlyCheck: CostlyCheckGate): Authenticator | undefined {
  if (!app.hasDecorator('stowageKeys')) return undefined
  const keys = stowageOf(app).stowageKeys
  return {
    name: 'basic',
    applies: (request) => request.routeOptions.config?.basicAuth === true && BASIC.test(request.headers.authorization ?? ''),
    async authenticate (request) {
      const password = basicPassword(request)
      const caller = password === undefined ? undefined : await keys.verify(password, { admitCostlyCheck: admitCostlyCheck(request) })
      if (!caller) throw REFUSED
      acceptCaller(request, caller, { method: 'api-key', key: { id: caller.keyId, expiresAt: caller.expiresAt, awsSsoOnly: caller.awsSsoOnly } })
    }
  }
}

function awsAuthenticator (app: FastifyInstance, admitCostlyCheck: CostlyCheckGate): Authenticator | undefined {
  const awsCaller = stowageOf(app).stowageIdentity.awsCaller
  if (!awsCaller) return undefined
  return {
    name: 'aws',
    applies: (request) => awsCaller.applies(request),
    async authenticate (request) {
      let caller
      try {
        caller = await awsCaller.verify(request, { admitCostlyCheck: admitCostlyCheck(request) })
      } catch (error) {
        if (error instanceof DependencyUnavailableError || error instanceof TooManyAttemptsError) throw error
        request.log.debug({ reason: (error as Error).message }, 'AWS signature refused')
        throw REFUSED
      }
      acceptCaller(request, caller, { method: 'aws' })
    }
  }
}

type AuthFunction = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void

// Triggers exclude one another, so a method that applied has the last word. When its peer is down
// (503), a later method that does not apply must not turn that into a 401: @fastify/auth reports
// the last error of the chain.
const undecided = new WeakMap<FastifyRequest, Error>()

/** A method whose trigger is absent fails at once, without a promise: most requests skip two methods. */
function asAuthFunction (method: Authenticator): AuthFunction {
  return (request, _reply, done) => {
    if (!method.applies(request)) return done(undecided.get(request) ?? REFUSED)
    method.authenticate(request).then(() => done(), (error: Error & { statusCode?: number }) => {
      if (error.statusCode !== 401) undecided.set(request, error)
      done(error)
    })
  }
}

// RFC 8628 §3.2: a client that is told no interval waits 5 seconds between polls.
const DEVICE_POLL_SECONDS = 5

export interface AuthPluginOptions {
  /** Further methods, tried in order after those built from the app's decorators. */
  authenticators?: Authenticator[]
  /** Failed authentications allowed per client address in one window; then, until it ends, 429
   *  for any attempt from it that would cost a bcrypt compare or an STS call. */
  failuresPerAddress?: number
  failureWindowMs?: number
  /** Calls to the identity provider allowed per client address in one failure window; then 429. */
  providerCallsPerAddress?: number
  /** Told how each authentication ended, for metrics: the method that applied (or `none`) and its result. */
  onOutcome?: (method: string, result: AuthResult) => void
}

export type AuthResult = 'ok' | 'refused' | 'throttled' | 'unavailable'

const RESULTS: Record<number, AuthResult> = { 401: 'refused', 429: 'throttled' }

export const authPlugin = fp<AuthPluginOptions>(async (app, options) => {
  await app.register(fastifyAuth)
  // A host app may have its own userId and orgId on requests: Stowage then sets them on its routes.
  if (!app.hasRequestDecorator('userId')) app.decorateRequest('userId', '')
  if (!app.hasRequestDecorator('orgId')) app.decorateRequest('orgId', null)
  app.decorateRequest('stowageCredential', null)

  // An address that keeps failing may still send credentials that work, or cost nothing to refuse;
  // what it may no longer do is make Stowage run bcrypt or call STS for it.
  // On PostgreSQL the instances count an address's failures together.
  const db = stowageOf(app).stowageDb
  const windowMs = options.failureWindowMs ?? 60_000
  const countedIn = (scope: string, limit: FailureLimiterOptions) => isPostgres(db) ? sharedFailureLimit(db, scope, limit) : inProcessFailureLimit(limit)
  const addressFailures = countedIn('address', { max: options.failuresPerAddress ?? 100, windowMs })
  const providerCalls = countedIn('provider-calls', { max: options.providerCallsPerAddress ?? 60, windowMs })
  const devicePolls = countedIn('device-polls', { max: 1, windowMs: DEVICE_POLL_SECONDS * 1000 })
  if (isPostgres(db)) sweepEvery(app, { everyMs: 600_000, what: 'ended failure windows', sweep: () => forgetEndedFailures(db) })
  const admitCostlyCheck = (request: FastifyRequest) => async () => {
    const wait = await addressFailures.check(request.ip)
    if (wait > 0) throw new TooManyAttemptsError(wait, 'too many failed authentications from this address')
  }
  const chain = [jwtAuthenticator(app), apiKeyAuthenticator(app, admitCostlyCheck), basicAuthenticator(app, admitCostlyCheck), awsAuthenticator(app, admitCostlyCheck), ...(options.authenticators ?? [])]
    .filter((method): method is Authenticator => method !== undefined)
  const refuseAll: AuthFunction = (_request, _reply, done) => done(REFUSED)
  const runChain = app.auth(chain.length > 0 ? chain.map(asAuthFunction) : [refuseAll])
  const { onOutcome } = options
  const methodOf = (request: FastifyRequest) => {
    const applied = chain.find((method) => method.applies(request))
    return applied ? applied.name ?? 'custom' : 'none'
  }
  const people = app.hasDecorator('stowagePeople') ? stowageOf(app).stowagePeople : undefined
  const authenticate: preHandlerHookHandler = function (request, reply, done) {
    runChain.call(this, request, reply, (error?: Error) => {
      const status = (error as { statusCode?: number } | undefined)?.statusCode
      onOutcome?.(methodOf(request), error ? RESULTS[status ?? 0] ?? 'unavailable' : 'ok')
      if (!error && people) return people.noted(request.userId, { orgId: request.orgId, ...profiles.get(request) }).then(() => done(), done)
      if (status !== 401) return done(error)
      // Counted before the answer, so that the next attempt, on any instance, sees it.
      countFailure(request).then(() => done(error), () => done(error))
    })
  }
  async function countFailure (request: FastifyRequest) {
    if (await addressFailures.fail(request.ip)) request.log.warn({ address: request.ip }, 'client address throttled after repeated failed authentications')
  }
  decorateStowage(app, 'stowageAuthenticate', authenticate)
  decorateStowage(app, 'stowageLimitFailures', {
    admit: (request: FastifyRequest) => admitCostlyCheck(request)(),
    count: async <T>(request: FastifyRequest, reply: FastifyReply, payload: T) => {
      if (reply.statusCode === 401) await countFailure(request).catch(() => {})
      return payload
    },
    address: {
      known: (address: string) => addressFailures.known(address),
      wait: (address: string) => addressFailures.check(address),
      fail: async (address: string) => { await addressFailures.fail(address) }
    }
  })
  decorateStowage(app, 'stowageLimitProviderCalls', {
    async admit (request: FastifyRequest) {
      const wait = await providerCalls.check(request.ip)
      if (wait > 0) throw new TooManyAttemptsError(wait, 'too many calls to the identity provider from this address')
      await providerCalls.fail(request.ip)
    },
    async admitDevicePoll (deviceCode: string) {
      const subject = createHash('sha256').update(deviceCode).digest('base64url')
      if (await devicePolls.check(subject) > 0) throw new DeviceCodeWaitingError('slow_down')
      await devicePolls.fail(subject)
    }
  })
}, { name: 'stowage-auth', fastify: '5.x', dependencies: ['stowage-identity'] })
