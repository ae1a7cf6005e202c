// Who is signed in. The token lives in memory and in this tab's sessionStorage only, so that a
// reload keeps it and closing the tab ends it: never localStorage, a URL or a log line.

export interface Session { method: 'key', token: string }

const KEY = 'stowage.session'

export function savedSession (): Session | undefined {
  try {
    const saved = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Session | null
    return saved?.token ? saved : undefined
  } catch {
    return undefined
  }
}

export function keepSession (session: Session | undefined) {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session))
  else sessionStorage.removeItem(KEY)
}
