import createError from '@fastify/error'
import { BadRequestError, NotFoundError, UnauthorizedError } from '../errors.js'
import { GrantRefusedError, refusal, type OAuthClient } from './oauth.js'
import type { TokenRefresher } from './refresh.js'

/** RFC 8628 §3.5: the device code is still waiting (or the client must slow down, or it expired). */
export class DeviceCodeWaitingError extends createError<[string]>('STOWAGE_ERR_DEVICE_CODE', '%s', 400) {
  constructor (readonly publicCode: 'authorization_pending' | 'slow_down' | 'expired_token') {
    super({
      authorization_pending: 'the sign-in has not been approved yet: ask again after the interval',
      slow_down: 'asked too often: ask again less often',
      expired_token: 'the device code expired: start the sign-in again'
    }[publicCode])
  }
}

const WAITING = new Set(['authorization_pending', 'slow_down', 'expired_token'])

export interface SignInOptions {
  provider: OAuthClient
  refresher: TokenRefresher
  /** PUBLIC_URL: `<PUBLIC_URL>/console/…` is a redirect URI the service accepts. */
  publicUrl?: string
  /** What clients ask the provider for. */
  scope: string
}

/**
 * Redirect URIs a code may be exchanged for: a loopback listener on any port (RFC 8252 §7.3), as the
 * CLI opens, and the console's callback under PUBLIC_URL. Anything else could hand a code to someone
 * else. Answers the URI as it was checked (parsed and serialized again), which is what the provider
 * must be given: a raw string such as `http://127.0.0.1:9999\\@evil.example/` can read otherwise there.
 */
export function allowedRedirect (redirectUri: string, publicUrl?: string): string | undefined {
  let url: URL
  try {
    url = new URL(redirectUri)
  } catch {
    return undefined
  }
  if (url.username || url.password || url.hash) return undefined
  if (url.protocol === 'http:' && ['127.0.0.1', '[::1]'].includes(url.hostname) && url.port !== '') return url.href
  if (!publicUrl) return undefined
  const callback = new URL('console/callback', publicUrl.endsWith('/') ? publicUrl : `${publicUrl}/`)
  return url.origin === callback.origin && url.pathname === callback.pathname && url.search === '' ? url.href : undefined
}

/** Sign-in through the service: authorization codes and device codes exchanged, refresh tokens revoked. */
export function createSignIn ({ provider, refresher, publicUrl, scope }: SignInOptions) {
  const exchanged = async (tokens: ReturnType<OAuthClient['refresh']>) =>
    refresher.withCredentials(await tokens.catch((error: unknown) => { throw refusal(error) }))

  return {
    scope,

    /** The provider's sign-in page for a console or CLI that keeps `state` and the PKCE verifier itself. */
    async authorizationUrl (request: { redirectUri: string, codeChallenge: string, state: string }) {
      const redirectUri = allowedRedirect(request.redirectUri, publicUrl)
      if (!redirectUri) {
        throw new BadRequestError('set PUBLIC_URL to the address people reach Stowage at: the identity provider can only send them back there')
      }
      const url = await provider.authorizationUrl({ ...request, redirectUri, scope })
      if (!url) throw new NotFoundError('the identity provider has no authorization endpoint')
      return url
    },

    async exchangeCode (grant: { code: string, codeVerifier: string, redirectUri: string }) {
      const redirectUri = allowedRedirect(grant.redirectUri, publicUrl)
      if (!redirectUri) {
        throw new BadRequestError('redirectUri must be a loopback address (http://127.0.0.1:<port>/…) or the console\'s callback under PUBLIC_URL')
      }
      return exchanged(provider.exchangeCode({ ...grant, redirectUri }))
    },

    async startDevice () {
      const started = await provider.startDevice(scope).catch((error: unknown) => { throw refusal(error) })
      if (!started) throw new NotFoundError('the identity provider has no device authorization endpoint')
      return {
        deviceCode: started.device_code,
        userCode: started.user_code,
        verificationUri: started.verification_uri,
        ...(started.verification_uri_complete ? { verificationUriComplete: started.verification_uri_complete } : {}),
        expiresIn: started.expires_in,
        interval: started.interval ?? 5
      }
    },

    async pollDevice (deviceCode: string) {
      return exchanged(provider.pollDevice(deviceCode).catch((error: unknown) => {
        if (error instanceof GrantRefusedError && WAITING.has(error.error)) throw new DeviceCodeWaitingError(error.error as DeviceCodeWaitingError['publicCode'])
        if (error instanceof GrantRefusedError && error.error === 'access_denied') throw new UnauthorizedError()
        throw error
      }))
    },

    /** True when the provider revoked the token; false when it has no revocation endpoint. */
    async logout (refreshToken: string) {
      return provider.revoke(refreshToken).catch((error: unknown) => {
        // A token the provider no longer knows is as good as revoked.
        if (error instanceof GrantRefusedError && error.error === 'invalid_grant') return true
        throw refusal(error)
      })
    }
  }
}

export type SignIn = ReturnType<typeof createSignIn>
