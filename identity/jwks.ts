import buildGetJwks from 'get-jwks'
import type { JsonWebKey } from 'node:crypto'
import { dependencyUnavailable } from '../errors.js'
import { DEFAULT_UPSTREAM_TIMEOUT_MS, deadlineFetchOptions, fetchJson, unobserved, type FailureLog, type ObserveCall } from './http.js'

export interface JwksOptions {
  /** Resolves the JWKS URL of the configured issuer (never one named by a token). */
  jwksUrl: () => Promise<string>
  timeoutMs?: number
  /** How long a fetched key set is trusted before it is fetched again. */
  maxAgeMs?: number
  /** However many unknown `kid`s arrive, the key set is fetched at most once per this span. */
  refetchIntervalMs?: number
  /** Algorithms a key without its own `alg` may be used with. */
  algorithms?: string[]
  onFailure?: FailureLog
  observeCall?: ObserveCall
  now?: () => number
}

type Jwk = JsonWebKey & { kid?: string, alg?: string, use?: string }

/**
 * The issuer's public keys, by `kid`. get-jwks holds them: its cache, and its stale copy, which it
 * falls back on when a refetch fails, so that known keys keep verifying while the provider is down.
 *
 * In front of it, our guard reads the whole set, at most once per interval: when a token names a
 * `kid` the provider had not published at our last look, and when that look is older than maxAge.
 * Every published key then goes into get-jwks at once. get-jwks alone fetches once per unknown
 * `kid` and keeps only that key, so a flood of made-up `kid`s would cost a fetch each, and the one
 * fetch an interval allows would rarely be for the key just rotated in.
 */
export function createJwks ({
  jwksUrl, timeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS, maxAgeMs = 10 * 60_000, refetchIntervalMs = 30_000,
  algorithms = ['RS256'], onFailure, observeCall = unobserved, now = Date.now
}: JwksOptions) {
  const fetchOptions = deadlineFetchOptions(timeoutMs)
  let source: { getJwks: ReturnType<typeof buildGetJwks>, domain: string, url: string } | undefined
  // get-jwks cache keys (`alg:kid:domain`) of every key published at our last successful look.
  let published = new Set<string>()
  let lookedAt = -Infinity
  let lastAttempt = -Infinity
  let inFlight: Promise<void> | undefined
  let fetchCount = 0

  async function resolveSource () {
    if (source) return source
    let url
    try {
      url = new URL(await jwksUrl())
    } catch (error) {
      onFailure?.('the discovery document of the identity provider', error)
      throw error
    }
    // get-jwks fetches `<domain><jwksPath>`; the domain we pass is always this one.
    source = {
      url: url.toString(),
      domain: url.origin + '/',
      getJwks: buildGetJwks({ max: 100, ttl: 2 * maxAgeMs, jwksPath: url.pathname.slice(1) + url.search, fetchOptions })
    }
    return source
  }

  async function readPublishedSet () {
    const { getJwks, domain, url } = await resolveSource()
    fetchCount++
    let keys: Jwk[]
    try {
      const body = await observeCall('idp', 'jwks', () => fetchJson(url, {}, timeoutMs)) as { keys?: Jwk[] }
      if (!Array.isArray(body?.keys)) throw new Error('the JWKS has no keys')
      keys = body.keys
    } catch (error) {
      onFailure?.('the JWKS of the identity provider', error)
      throw error
    }
    const next = new Set<string>()
    for (const jwk of keys) {
      if (typeof jwk.kid !== 'string' || jwk.use === 'enc') continue
      for (const alg of jwk.alg ? [jwk.alg] : algorithms) {
        const cacheKey = getJwks.generateCacheKey(alg, jwk.kid, domain)
        next.add(cacheKey)
        getJwks.cache.set(cacheKey, Promise.resolve(jwk) as never)
      }
    }
    // A key the provider withdrew must not live on in get-jwks' stale copy.
    for (const cacheKey of published) {
      if (!next.has(cacheKey)) { getJwks.cache.delete(cacheKey); getJwks.staleCache.delete(cacheKey) }
    }
    published = next
    lookedAt = now()
  }

  function lookAgain (): Promise<void> {
    lastAttempt = now()
    inFlight ??= readPublishedSet()
      .catch((error) => { throw dependencyUnavailable('the identity provider', error) })
      .finally(() => { inFlight = undefined })
    return inFlight
  }

  const cacheKeyOf = (kid: string, alg: string) => source && source.getJwks.generateCacheKey(alg, kid, source.domain)
  const isPublished = (kid: string, alg: string) => published.has(cacheKeyOf(kid, alg) ?? '')

  return {
    get fetchCount () { return fetchCount },

    async publicKey (kid: string, alg: string): Promise<string> {
      const due = !isPublished(kid, alg) || now() - lookedAt >= maxAgeMs
      if (due && now() - lastAttempt >= refetchIntervalMs) {
        try {
          await lookAgain()
        } catch (error) {
          // Keys already known keep working while the provider is down.
          if (!isPublished(kid, alg)) throw error
        }
      } else if (inFlight && !isPublished(kid, alg)) {
        await inFlight.catch(() => undefined)
      }
      if (!source) throw dependencyUnavailable('the identity provider', new Error('its keys could not be read yet'))
      if (!isPublished(kid, alg)) throw new Error('no usable key for this token')
      return source.getJwks.getPublicKey({ domain: source.domain, alg, kid })
    }
  }
}
