// What every request of the page shares: where the service is, the client typed by the service's
// OpenAPI document, and what a refusal says to a person.
import createClient from 'openapi-fetch'
import type { paths } from './api-schema.js'

/** What a status means to a person, when the answer's own words are not enough. */
const ADVICE: Record<number, string> = {
  401: 'Your session has ended: sign in again.',
  412: 'Someone changed this file since you opened it: reload and try again.',
  507: 'You are over your storage quota: delete files or empty the trash.',
  503: 'The service is busy or its storage is down: try again in a moment.'
}

export class ApiError extends Error {
  constructor (readonly status: number, readonly detail: string) {
    super(ADVICE[status] ?? detail)
  }
}

/** The service's refusal: its status, and its `{error}` when the body carries one. */
export function refusal (status: number, body: string, fallback: string): ApiError {
  try {
    return new ApiError(status, (JSON.parse(body) as { error?: string }).error ?? fallback)
  } catch {
    return new ApiError(status, fallback)
  }
}

/** The service's URL for `path` (`api/…`), relative to where the console is mounted. */
export const serviceUrl = (path: string) => new URL(`../${path}`, document.baseURI)

/** The service's typed client: each call through `fetch` (the session's, for calls a token carries). */
export const serviceClient = (fetch?: (request: Request) => Promise<Response>) =>
  createClient<paths>({ baseUrl: serviceUrl('').href.replace(/\/$/, ''), fetch })
