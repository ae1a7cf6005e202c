// Who is signed in. Tokens live in memory and in this tab's sessionStorage only, so that a reload
// keeps them and closing the tab ends them: never localStorage, a URL or a log line.

export type Session =
  | { method: 'key', token: string }
  /** Signed in through the identity provider: its access token, kept fresh with the refresh token. */
  | { method: 'idp', token: string, refreshToken?: string, expiresAt?: number }

const KEY = 'stowage.session'

function saved (): Session | undefined {
  try {
    const session = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Session | null
    return session?.token ? session : undefined
  } catch {
    return undefined
  }
}

/** The one session of the tab: read by the API on every call, replaced by sign-in, refresh and sign-out. */
export function createSessionStore () {
  let current = saved()
  const listeners = new Set<() => void>()
  return {
    get: () => current,
    set (next: Session | undefined) {
      current = next
      if (next) sessionStorage.setItem(KEY, JSON.stringify(next))
      else sessionStorage.removeItem(KEY)
      for (const listener of listeners) listener()
    },
    subscribe (listener: () => void) {
      listeners.add(listener)
      return () => { listeners.delete(listener) }
    }
  }
}

export type SessionStore = ReturnType<typeof createSessionStore>
