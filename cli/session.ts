import { open, rm, stat } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { readSettings, settingsFolderMade, settingsPath, writeSettings, type SignedInSettings } from './config-file.js'
import { postJson, RequestFailed } from './io.js'

/** What POST /api/auth/token and /api/auth/refresh answer. */
export interface TokenAnswer {
  accessToken: string
  idToken: string
  refreshToken?: string
  expiresIn?: number
  credentials?: { accessKeyId: string, secretAccessKey: string, sessionToken: string, expiration: string }
}

// Refreshed this long before the access token expires, so that a request never carries one that dies
// on the way; a token that lives less than twice that, half its life before (a 12 s token is not
// "expiring soon" the moment it is issued).
const EARLY_MS = 60_000
const LOCK_STALE_MS = 30_000
const LOCK_WAIT_MS = 60_000

export const SESSION_ENDED = 'your session has ended (the sign-in was revoked or expired); run "stowage login"'

/** When an access token of `expiresIn` seconds expires; a JWT's own `exp` when the provider says nothing. */
export function expiryOf (answer: TokenAnswer): number {
  if (answer.expiresIn !== undefined) return Date.now() + answer.expiresIn * 1000
  const { exp } = claimsOf(answer.accessToken)
  return typeof exp === 'number' ? exp * 1000 : Date.now()
}

/** The settings a sign-in leaves: the tokens, and when the access token expires. */
export function signedIn (url: string, answer: TokenAnswer, refreshToken = answer.refreshToken): SignedInSettings {
  if (!refreshToken) throw new RequestFailed('the identity provider issued no refresh token: ask its administrator to allow the refresh grant (offline_access)')
  return { url, mode: 'oidc', accessToken: answer.accessToken, refreshToken, issuedAt: new Date().toISOString(), expiresAt: new Date(expiryOf(answer)).toISOString() }
}

/** Whether the access token is in the part of its life when it is renewed before use. */
export function expiresSoon (settings: SignedInSettings, now = Date.now()): boolean {
  const expiresAt = Date.parse(settings.expiresAt)
  const lifetime = settings.issuedAt ? expiresAt - Date.parse(settings.issuedAt) : Infinity
  return expiresAt - now < Math.min(EARLY_MS, lifetime / 2)
}

/**
 * The one place a command gets its access token. The refresh token rotates at most providers, and
 * one sent twice revokes the whole sign-in (reuse detection), so a refresh is done under a lock
 * file beside the settings: a second process that waited finds the tokens the first one stored,
 * and uses them rather than refreshing again with a token that is spent.
 */
export function createSession (env: Record<string, string | undefined>, initial: SignedInSettings) {
  let current = initial
  const lockPath = `${settingsPath(env)}.lock`

  async function locked<T> (work: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + LOCK_WAIT_MS
    await settingsFolderMade(env)
    for (;;) {
      try {
        const handle = await open(lockPath, 'wx', 0o600)
        await handle.close()
        break
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
        // A process that died holding it leaves it behind.
        const age = await stat(lockPath).then((s) => Date.now() - s.mtimeMs, () => 0)
        if (age > LOCK_STALE_MS) await rm(lockPath, { force: true })
        if (Date.now() > deadline) throw new RequestFailed(`another stowage command has held ${lockPath} for a minute; remove it if none is running`)
        await sleep(25 + Math.random() * 50)
      }
    }
    try {
      return await work()
    } finally {
      await rm(lockPath, { force: true })
    }
  }

  async function refresh (refreshToken: string): Promise<TokenAnswer> {
    const { status, statusText, answer } = await postJson(current.url, '/api/auth/refresh', { refreshToken })
    if (status === 401) throw new RequestFailed(SESSION_ENDED)
    if (status !== 200) throw new RequestFailed(`${status}: ${String(answer.error ?? statusText)}`)
    return answer as unknown as TokenAnswer
  }

  /** Refreshes unless another process did since `seen` was read; the tokens stored either way. */
  async function renew (seen: SignedInSettings, needed: (stored: SignedInSettings) => boolean): Promise<TokenAnswer | undefined> {
    return locked(async () => {
      const stored = await readSettings(env)
      if (stored.mode !== 'oidc') throw new RequestFailed('signed out meanwhile; run "stowage login"')
      if (stored.refreshToken !== seen.refreshToken && !needed(stored)) {
        current = stored
        return undefined
      }
      const answer = await refresh(stored.refreshToken)
      current = signedIn(stored.url, answer, answer.refreshToken ?? stored.refreshToken)
      await writeSettings(env, current)
      return answer
    })
  }

  return {
    async accessToken (): Promise<string> {
      if (expiresSoon(current)) await renew(current, expiresSoon)
      return current.accessToken
    },
    /** After a 401: the token may have been revoked early; one refresh, then the request again. */
    async afterRefused (): Promise<void> {
      const refused = current.accessToken
      await renew(current, (stored) => stored.accessToken === refused)
    },
    /** A refresh whatever the expiry, for its AWS credentials. */
    async refreshNow (): Promise<TokenAnswer> {
      const seen = current
      return (await renew(seen, () => true))!
    },
    get settings () { return current }
  }
}

export type Session = ReturnType<typeof createSession>

/** The claims of a JWT, unverified: only to show the user what their own token says. */
export function claimsOf (jwt: string): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>
  } catch {
    return {}
  }
}
