// The bearer token of every call: an API key as it is; the identity provider's access token renewed
// through the service before it expires, or once after a 401, by one refresh at a time (the
// provider rotates refresh tokens and revokes the grant when an old one is used again).
import type { SessionStore } from './session.js'
import type { components } from './api-schema.js'
import { serviceClient } from './requests.js'

const RENEW_BEFORE_MS = 30_000

export type TokenSet = components['schemas']['StowageTokenSet']

export const sessionOf = (tokens: TokenSet) => ({
  method: 'idp' as const,
  token: tokens.accessToken,
  refreshToken: tokens.refreshToken,
  expiresAt: tokens.expiresIn === undefined ? undefined : Date.now() + tokens.expiresIn * 1000
})

export function createTokens (sessions: SessionStore) {
  let renewing: Promise<string | undefined> | undefined

  async function refresh (): Promise<string | undefined> {
    const session = sessions.get()
    if (session?.method !== 'idp' || !session.refreshToken) return undefined
    const tokens = (await serviceClient().POST('/api/auth/refresh', { body: { refreshToken: session.refreshToken } }).catch(() => undefined))?.data
    if (!tokens) return undefined
    // A provider that does not rotate answers no refresh token: the one held stays good.
    sessions.set({ ...sessionOf(tokens), refreshToken: tokens.refreshToken ?? session.refreshToken })
    return tokens.accessToken
  }

  /** A new access token, or undefined when the session cannot be renewed. */
  const renewed = () => (renewing ??= refresh().finally(() => { renewing = undefined }))

  return {
    renewed,
    async current (): Promise<string | undefined> {
      const session = sessions.get()
      if (session?.method === 'idp' && session.expiresAt !== undefined && session.expiresAt - Date.now() < RENEW_BEFORE_MS) {
        return await renewed() ?? session.token
      }
      return session?.token
    }
  }
}

export type Tokens = ReturnType<typeof createTokens>
