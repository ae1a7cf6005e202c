import { fetchJson, unobserved, type ObserveCall } from './http.js'

export interface ProviderMetadata {
  jwks_uri?: string
}

/** OpenID discovery on the configured issuer, fetched once; a failure is retried on the next call. */
export function createDiscovery (issuer: string, timeoutMs?: number, observe: ObserveCall = unobserved) {
  let pending: Promise<ProviderMetadata> | undefined
  const url = issuer.replace(/\/$/, '') + '/.well-known/openid-configuration'
  return function discover (): Promise<ProviderMetadata> {
    pending ??= observe('idp', 'discovery', () => fetchJson(url, {}, timeoutMs)).then((body) => body as ProviderMetadata)
    pending.catch(() => { pending = undefined })
    return pending
  }
}
