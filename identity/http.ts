import { Agent } from 'undici'

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 5000

export interface Logger { warn (details: object, message: string): void }

/** fetch with a deadline and no redirects: every upstream call of the service goes through here. */
export async function fetchWithTimeout (url: string, init: RequestInit = {}, timeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS) {
  return fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) })
}

export async function fetchJson (url: string, init: RequestInit = {}, timeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS): Promise<unknown> {
  const response = await fetchWithTimeout(url, { ...init, headers: { accept: 'application/json', ...init.headers } }, timeoutMs)
  if (!response.ok) throw new Error(`${url} answered ${response.status}`)
  return response.json()
}

/**
 * Request options for a fetch made by a library that takes options but no signal (get-jwks): the
 * deadlines live in the dispatcher, since fetch ignores a `timeout` option.
 */
export function deadlineFetchOptions (timeoutMs: number) {
  const dispatcher = new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
  return { dispatcher, redirect: 'error' as const }
}

/**
 * Warns about a failing upstream endpoint at most once per interval per endpoint, with the number
 * of failures left unsaid, so that a flood of requests against a down provider does not flood the log.
 */
export function createFailureLog (log: Logger | undefined, intervalMs = 60_000, now = Date.now) {
  const last = new Map<string, { at: number, unsaid: number }>()
  return (endpoint: string, error: unknown) => {
    const seen = last.get(endpoint)
    if (seen && now() - seen.at < intervalMs) {
      seen.unsaid++
      return
    }
    last.set(endpoint, { at: now(), unsaid: 0 })
    log?.warn({ endpoint, err: error, failuresSinceLastWarning: seen?.unsaid ?? 0 }, `${endpoint} failed`)
  }
}

export type FailureLog = ReturnType<typeof createFailureLog>
