export const DEFAULT_UPSTREAM_TIMEOUT_MS = 5000

/** fetch with a deadline and no redirects: every upstream call of the service goes through here. */
export async function fetchWithTimeout (url: string, init: RequestInit = {}, timeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS) {
  return fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) })
}

export async function fetchJson (url: string, init: RequestInit = {}, timeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS): Promise<unknown> {
  const response = await fetchWithTimeout(url, { ...init, headers: { accept: 'application/json', ...init.headers } }, timeoutMs)
  if (!response.ok) throw new Error(`${url} answered ${response.status}`)
  return response.json()
}
