import { BadRequestError } from '../errors.js'

export const MAX_PATH_BYTES = 1024

// Control characters: C0, DEL and C1.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
// A userId becomes one folder of every object key: no separators, no dot names, nothing exotic.
const SAFE_SEGMENT = /^[A-Za-z0-9_@|+=:~-][A-Za-z0-9._@|+=:~-]{0,127}$/

export function isSafeSegment (value: unknown): value is string {
  return typeof value === 'string' && SAFE_SEGMENT.test(value)
}

function problemWithSegments (segments: string[]): string | undefined {
  for (const segment of segments) {
    if (segment === '') return 'must not contain an empty segment'
    if (segment === '.' || segment === '..') return 'must not contain a "." or ".." segment'
  }
  return undefined
}

function problemWithText (value: string): string | undefined {
  if (value.startsWith('/')) return 'must not start with "/"'
  if (value.includes('\\')) return 'must not contain a backslash'
  if (CONTROL.test(value)) return 'must not contain control characters'
  if (Buffer.byteLength(value, 'utf8') > MAX_PATH_BYTES) return `must be at most ${MAX_PATH_BYTES} bytes`
  return undefined
}

/** A file path relative to the user's root, as in `/api/files/{path}`. */
export function checkFilePath (path: string): string {
  const problem = path === '' ? 'must not be empty' : problemWithText(path) ?? problemWithSegments(path.split('/'))
  if (problem) throw new BadRequestError(`path ${problem}`)
  return path
}

/** A folder's path relative to the user's root, with or without its trailing `/`: answered with it. */
export function checkFolderPath (path: string): string {
  return checkFilePath(path.endsWith('/') ? path.slice(0, -1) : path) + '/'
}

/** A list filter: like a path, but it may be empty and its last segment may be partial (or empty). */
export function checkPrefix (prefix: string): string {
  const completeSegments = prefix.split('/').slice(0, -1)
  const problem = problemWithText(prefix) ?? problemWithSegments(completeSegments)
  if (problem) throw new BadRequestError(`prefix ${problem}`)
  return prefix
}

/** Continuation tokens carry the last key of a page; they are opaque to clients. */
export function encodeContinuationToken (lastPath: string): string {
  return Buffer.from(lastPath, 'utf8').toString('base64url')
}

export function decodeContinuationToken (token: string): string {
  const decoded = /^[A-Za-z0-9_-]+$/.test(token) ? Buffer.from(token, 'base64url') : undefined
  const path = decoded?.toString('utf8')
  if (!decoded || !path || Buffer.from(path, 'utf8').toString('base64url') !== token) {
    throw new BadRequestError('continuationToken is not one this service issued')
  }
  try {
    // A one-level page may end on a folder (`a/b/`).
    return path.endsWith('/') ? checkPrefix(path) : checkFilePath(path)
  } catch {
    throw new BadRequestError('continuationToken is not one this service issued')
  }
}
