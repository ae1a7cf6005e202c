// Sign-in through the identity provider: authorization code with PKCE (S256). The page makes the
// verifier and `state`, keeps them in this tab until the provider sends the person back to
// `callback`, and has the service exchange the code (the service is the OAuth client).
import { ApiError, serviceClient } from './requests.js'
import { sessionOf } from './tokens.js'
import type { Session } from './session.js'

const PENDING = 'stowage.sign-in'

const base64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
const randomValue = () => base64url(crypto.getRandomValues(new Uint8Array(32)))
const redirectUri = () => new URL('callback', document.baseURI).href

/** Whether the service has an identity provider to sign in with (else: API keys only); its page says. */
export const hasIdentityProvider = () =>
  document.querySelector<HTMLMetaElement>('meta[name="stowage-sign-in"]')?.content.split(' ').includes('identity-provider') ?? false

/** Leaves for the provider's sign-in page; `returnTo` is where the person lands afterwards. */
export async function startSignIn (returnTo: string) {
  // Web Crypto's digest exists on https and on this machine's own addresses only.
  if (!crypto.subtle) throw new Error('Signing in through the identity provider needs https: open the console at its https address.')
  const [verifier, state] = [randomValue(), randomValue()]
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))))
  sessionStorage.setItem(PENDING, JSON.stringify({ state, verifier, returnTo }))
  location.assign(new URL(`sign-in?${new URLSearchParams({ redirectUri: redirectUri(), codeChallenge: challenge, state })}`, document.baseURI))
}

/** Back from the provider: the code exchanged for a session, and where the person was going. */
export async function finishSignIn (): Promise<{ session: Session, returnTo: string }> {
  const query = new URLSearchParams(location.search)
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as { state: string, verifier: string, returnTo: string } | null
  sessionStorage.removeItem(PENDING)
  const error = query.get('error')
  if (error === 'access_denied') throw new Error('The sign-in was cancelled.')
  if (error) throw new Error(`The sign-in did not work: ${query.get('error_description') ?? error}.`)
  const code = query.get('code')
  if (!pending || !code || query.get('state') !== pending.state) throw new Error('This sign-in was not started in this tab: sign in again.')
  const { data: tokens, error: refused, response } = await serviceClient().POST('/api/auth/token', { body: { code, codeVerifier: pending.verifier, redirectUri: redirectUri() } })
  if (response.status === 401) throw new Error('The identity provider did not accept this sign-in: sign in again.')
  if (!tokens) throw new ApiError(response.status, (refused as { error?: string } | undefined)?.error ?? response.statusText)
  return { session: sessionOf(tokens), returnTo: pending.returnTo }
}
