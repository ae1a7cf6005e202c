import { Agent } from 'undici'

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 5000

/** Wraps each call to the identity provider or STS, for metrics and traces. */
export type ObserveCall = <T>(peer: 'idp' | 'sts', operation: string, call: () => Promise<T>) => Promise<T>

export const unobserved: ObserveCall = async (_peer, _operation, call) => call()

/** Whether a call to a peer failed: it threw, other than by refusing what it was asked (an AWS SDK
 *  error with a 4xx status), or it answered 5xx. A refused token or signature is not the peer failing. */
export function isPeerFailure (outcome: { answer: unknown } | { error: unknown }): boolean {
  if ('answer' in outcome) return outcome.answer instanceof Response && outcome.answer.status >= 500
  const status = (outcome.error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode
  return status === undefined || status >= 500
}

/** Each call observed by every observer given, the first outermost. */
export function observeWithAll (...observers: Array<ObserveCall | undefined>): ObserveCall | undefined {
  const present = observers.filter((observer): observer is ObserveCall => observer !== undefined)
  if (present.length === 0) return undefined
  return (peer, operation, call) => present.reduceRight<typeof call>((inner, observer) => () => observer(peer, operation, inner), call)()
}

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
