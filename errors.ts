import createError from '@fastify/error'

// The errors every layer throws; plugins/errors.ts maps them to HTTP answers.
export const BadRequestError = createError<[string]>('STOWAGE_ERR_BAD_REQUEST', '%s', 400)
export const UnauthorizedError = createError('STOWAGE_ERR_UNAUTHORIZED', 'Unauthorized', 401)
export const ForbiddenError = createError<[string]>('STOWAGE_ERR_FORBIDDEN', '%s', 403)
export const NotFoundError = createError<[string]>('STOWAGE_ERR_NOT_FOUND', '%s', 404)
export const ConflictError = createError<[string]>('STOWAGE_ERR_CONFLICT', '%s', 409)
/** A file written where a folder made on purpose stands (409; WebDAV answers 405). */
export class FolderInTheWayError extends ConflictError {
  constructor (path: string) {
    super(`a folder has that name: ${path}`)
  }
}
export const PayloadTooLargeError = createError<[string]>('STOWAGE_ERR_TOO_LARGE', '%s', 413)
export const UnsupportedMediaTypeError = createError<[string]>('STOWAGE_ERR_UNSUPPORTED_MEDIA_TYPE', '%s', 415)
/** An image with more pixels than the service decodes (IMAGE_MAX_PIXELS), or a file too large to read whole. */
export const ImageTooLargeError = createError<[string]>('STOWAGE_ERR_IMAGE_TOO_LARGE', '%s', 422)
/** An If-Match or If-None-Match that does not hold: nothing was changed. */
export const PreconditionFailedError = createError<[string]>('STOWAGE_ERR_PRECONDITION_FAILED', '%s', 412)
/** A write that would take the user's usage past the quota: nothing was stored. */
export const InsufficientStorageError = createError<[string]>('STOWAGE_ERR_INSUFFICIENT_STORAGE', '%s', 507)
export const BadGatewayError = createError<[string]>('STOWAGE_ERR_BAD_GATEWAY', '%s', 502)
/** The service cannot do this at all (not configured): retrying will not help. */
export const ServiceUnavailableError = createError<[string]>('STOWAGE_ERR_UNAVAILABLE', '%s', 503)
/** A dependency (database, store, IdP, STS) is down or too slow: the client may retry shortly. */
export const DependencyUnavailableError = createError<[string]>('STOWAGE_ERR_DEPENDENCY_UNAVAILABLE', '%s is unavailable, try again shortly', 503)

/** The service is at a limit of its own (upload memory): the client may retry shortly. */
export const BusyError = createError<[string]>('STOWAGE_ERR_BUSY', '%s', 503)
/** The request did not arrive in time. */
export const RequestTimeoutError = createError<[string]>('STOWAGE_ERR_REQUEST_TIMEOUT', '%s', 408)
/** The client left before its answer: the work for it stopped. Nobody reads the answer. */
export const ClientGoneError = createError('STOWAGE_ERR_CLIENT_GONE', 'the client closed the request', 499)

export const RETRY_AFTER_SECONDS = 5

const RETRIED_SOON = new Set(['STOWAGE_ERR_DEPENDENCY_UNAVAILABLE', 'STOWAGE_ERR_BUSY'])

/** A 503 worth retrying in RETRY_AFTER_SECONDS; a service that is not configured is not one. */
export function isRetriedSoon (error: unknown): boolean {
  return RETRIED_SOON.has((error as { code?: string })?.code ?? '')
}

/** Errors raised by Stowage itself, as opposed to those of a library or a peer. */
export function isStowageError (error: unknown): boolean {
  return typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code.startsWith('STOWAGE_ERR_')
}

/** A bug of ours, not a peer's failure: stays a 500. */
export function isProgrammingError (error: unknown): boolean {
  return [TypeError, RangeError, ReferenceError, SyntaxError].some((type) => error instanceof type)
}

/** A DependencyUnavailableError that keeps the peer's own error for the log. */
export function dependencyUnavailable (dependency: string, cause: unknown): Error {
  const error = new DependencyUnavailableError(dependency)
  error.cause = cause
  return error
}

/** A change-journal cursor older than the journal keeps: the client lists again (`code: reset`). */
export class CursorResetError extends createError<[string]>('STOWAGE_ERR_CURSOR_RESET', '%s', 410) {
  readonly publicCode = 'reset'
}

/** A range that starts past the end of the file; its `size` goes in the answer's Content-Range. */
export class RangeNotSatisfiableError extends createError<[string]>('STOWAGE_ERR_RANGE_NOT_SATISFIABLE', '%s', 416) {
  constructor (readonly size: number) {
    super(`the range is outside the file (${size} bytes)`)
  }
}

/** Too many failed attempts: refused before any costly check; `retryAfterSeconds` goes in Retry-After. */
export class TooManyAttemptsError extends createError<[string]>('STOWAGE_ERR_TOO_MANY_ATTEMPTS', '%s', 429) {
  constructor (readonly retryAfterSeconds: number, what = 'too many failed attempts') {
    super(`${what}, try again in ${retryAfterSeconds} s`)
  }
}
