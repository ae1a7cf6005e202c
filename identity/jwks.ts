import { createPublicKey, type JsonWebKey } from 'node:crypto'
import { fetchJson } from './http.js'

export interface JwksOptions {
  /** Resolves the JWKS URL of the configured issuer (never one named by a token). */
  jwksUrl: () => Promise<string>
  timeoutMs?: number
  /** How long a fetched key set is trusted before it is fetched again. */
  maxAgeMs?: number
  /** However many unknown `kid`s arrive, the key set is fetched at most once per this span. */
  refetchIntervalMs?: number
  now?: () => number
}

interface KeySet { keys: Map<string, { pem: string, alg?: string }>, fetchedAt: number }

/**
 * The issuer's public keys, by `kid`. The whole set is cached, so a flood of unknown `kid`s costs at most
 * one fetch per interval and still brings in any key the provider has just published.
 */
export function createJwks ({ jwksUrl, timeoutMs, maxAgeMs = 10 * 60_000, refetchIntervalMs = 30_000, now = Date.now }: JwksOptions) {
  let current: KeySet | undefined
  let lastAttempt = -Infinity
  let inFlight: Promise<KeySet> | undefined
  let fetchCount = 0

  async function fetchKeySet (): Promise<KeySet> {
    fetchCount++
    const body = await fetchJson(await jwksUrl(), {}, timeoutMs) as { keys?: Array<JsonWebKey & { kid?: string, alg?: string }> }
    if (!Array.isArray(body?.keys)) throw new Error('the JWKS document has no keys')
    const keys = new Map<string, { pem: string, alg?: string }>()
    for (const jwk of body.keys) {
      if (typeof jwk.kid !== 'string' || jwk.use === 'enc') continue
      try {
        keys.set(jwk.kid, { pem: createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string, alg: jwk.alg })
      } catch {
        // A key this runtime cannot read is skipped; tokens signed with it are refused.
      }
    }
    return { keys, fetchedAt: now() }
  }

  function refresh (): Promise<KeySet> {
    lastAttempt = now()
    inFlight ??= fetchKeySet()
      .then((set) => { current = set; return set })
      .finally(() => { inFlight = undefined })
    return inFlight
  }

  return {
    get fetchCount () { return fetchCount },

    async publicKey (kid: string, alg: string): Promise<string> {
      const fresh = current && now() - current.fetchedAt < maxAgeMs
      let set = current
      if ((!fresh || !set?.keys.has(kid)) && now() - lastAttempt >= refetchIntervalMs) {
        set = await refresh()
      } else if (!set) {
        set = await inFlight
      }
      const key = set?.keys.get(kid)
      if (!key || (key.alg !== undefined && key.alg !== alg)) throw new Error('no usable key for this token')
      return key.pem
    }
  }
}
