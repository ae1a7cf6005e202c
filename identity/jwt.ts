import { createVerifier, TokenError, type Algorithm } from 'fast-jwt'
import { DependencyUnavailableError } from '../errors.js'
import type { FailureLog, ObserveCall } from './http.js'
import { createJwks } from './jwks.js'

export interface JwtVerifierOptions {
  issuer: string
  audience?: string
  /** The service's own OAuth client at the provider: without `audience`, a token issued to it (an
   *  ID token) is refused unless the provider typed it an access token (RFC 9068's at+jwt). */
  clientId?: string
  /** Resolves the JWKS URL of the configured issuer. */
  jwksUrl: () => Promise<string>
  algorithms: Algorithm[]
  userClaim: string
  orgClaim: string
  fetchTimeoutMs?: number
  refetchIntervalMs?: number
  /** The clock of the key set's refetch interval (tokens' own times are checked against the real one). */
  now?: () => number
  onUpstreamFailure?: FailureLog
  observeCall?: ObserveCall
}

export interface TokenClaims {
  userId: unknown
  orgId: unknown
  /** What the token names the person, when it does: `email`, and `name` (else `preferred_username`). */
  email?: string
  name?: string
}

/** A claim that names the person, kept when it is text of a sensible length (an address is at most 320 characters, RFC 3696). */
const text = (value: unknown, longest: number) => typeof value === 'string' && value.trim() !== '' && value.length <= longest ? value.trim() : undefined

export const CLOCK_TOLERANCE_MS = 60_000
const ACCESS_TOKEN_TYPE = /^(application\/)?at\+jwt$/i

const audiencesOf = (payload: Record<string, unknown>) => Array.isArray(payload.aud) ? payload.aud : [payload.aud]

export function createJwtVerifier (options: JwtVerifierOptions) {
  const jwks = createJwks({
    jwksUrl: options.jwksUrl,
    timeoutMs: options.fetchTimeoutMs,
    refetchIntervalMs: options.refetchIntervalMs,
    now: options.now,
    algorithms: options.algorithms,
    onFailure: options.onUpstreamFailure,
    observeCall: options.observeCall
  })
  const verifier = createVerifier({
    // Only the configured issuer's key set is consulted; `jku`, `x5u` and the token's own `iss` are never followed.
    key: async ({ header }: { header: Record<string, unknown> }) => {
      if (typeof header.kid !== 'string') throw new Error('the token names no key')
      return jwks.publicKey(header.kid, String(header.alg))
    },
    algorithms: options.algorithms,
    allowedIss: options.issuer,
    allowedAud: options.audience,
    // fast-jwt accepts a token without `exp` unless it is required.
    requiredClaims: ['exp', 'iss', ...(options.audience ? ['aud'] : [])],
    clockTolerance: CLOCK_TOLERANCE_MS,
    complete: true,
    cache: 1000,
    // fast-jwt caches errors too, for clockTolerance + errorCacheTTL: a token refused because its
    // key could not be had (not published yet, provider down) must be looked at again next time.
    errorCacheTTL: (error: TokenError) => error.code === TokenError.codes.keyFetchingError ? -CLOCK_TOLERANCE_MS - 1 : -1
  })

  return {
    jwks,
    /** Rejects with the provider's DependencyUnavailableError when the key could not be had. */
    async verify (token: string): Promise<TokenClaims> {
      let decoded: { header: Record<string, unknown>, payload: Record<string, unknown> }
      try {
        decoded = await verifier(token) as typeof decoded
      } catch (error) {
        const cause = (error as TokenError).originalError
        throw cause instanceof DependencyUnavailableError ? cause : error
      }
      const { header, payload } = decoded
      if (!options.audience && options.clientId && audiencesOf(payload).includes(options.clientId) && !ACCESS_TOKEN_TYPE.test(String(header.typ))) {
        throw new Error('a token issued to the service\'s own client (an ID token) is not an access token')
      }
      return { userId: payload[options.userClaim], orgId: payload[options.orgClaim], email: text(payload.email, 320), name: text(payload.name, 256) ?? text(payload.preferred_username, 256) }
    }
  }
}

export type JwtVerifier = ReturnType<typeof createJwtVerifier>
