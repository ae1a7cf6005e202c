import {
  BadRequestError, ConflictError, ForbiddenError, InsufficientStorageError, isRetriedSoon, NotFoundError, PayloadTooLargeError, PreconditionFailedError, RangeNotSatisfiableError
} from '../errors.js'

/** An S3 error: its code and status as S3 answers them, and a message for people. */
export class S3Error extends Error {
  name = 'S3Error'
  constructor (readonly code: string, readonly status: number, message: string, readonly extra: Record<string, string> = {}) {
    super(message)
  }
}

export const accessDenied = (message = 'Access Denied') => new S3Error('AccessDenied', 403, message)
export const signatureMismatch = () => new S3Error('SignatureDoesNotMatch', 403, 'The request signature we calculated does not match the signature you provided. Check your key and signing method.')
export const noSuchBucket = (bucket: string) => new S3Error('NoSuchBucket', 404, 'The specified bucket does not exist', { BucketName: bucket })
export const noSuchKey = (key: string) => new S3Error('NoSuchKey', 404, 'The specified key does not exist.', { Key: key })
export const invalidArgument = (message: string) => new S3Error('InvalidArgument', 400, message)
export const notImplemented = (what: string) => new S3Error('NotImplemented', 501, `${what} is not implemented by this server`)

/** The S3 error for one of the file API's. */
export function s3ErrorOf (error: unknown, key?: string): S3Error {
  if (error instanceof S3Error) return error
  const { cause } = error as { cause?: unknown }
  if (cause instanceof S3Error) return cause
  if (error instanceof PreconditionFailedError) return new S3Error('PreconditionFailed', 412, 'At least one of the pre-conditions you specified did not hold')
  if (error instanceof InsufficientStorageError) return new S3Error('QuotaExceeded', 403, (error as Error).message)
  // A viewer's write into what is shared with them (DESIGN §13).
  if (error instanceof ForbiddenError) return accessDenied((error as Error).message)
  if (error instanceof PayloadTooLargeError) return new S3Error('EntityTooLarge', 400, 'Your proposed upload exceeds the maximum allowed object size.')
  if (error instanceof RangeNotSatisfiableError) return new S3Error('InvalidRange', 416, 'The requested range is not satisfiable')
  if (error instanceof NotFoundError) return new S3Error('NoSuchKey', 404, 'The specified key does not exist.', key ? { Key: key } : {})
  if (error instanceof ConflictError) return new S3Error('InvalidRequest', 400, (error as Error).message)
  if (error instanceof BadRequestError) return invalidArgument((error as Error).message)
  if (isRetriedSoon(error)) return new S3Error('ServiceUnavailable', 503, 'Please reduce your request rate.')
  // Fastify's own refusals of a malformed request (a Content-Type that is not one, a bad length).
  const { statusCode, code } = error as { statusCode?: number, code?: string }
  if (code?.startsWith('FST_ERR_') && statusCode !== undefined && statusCode >= 400 && statusCode < 500) return invalidArgument((error as Error).message)
  return new S3Error('InternalError', 500, 'We encountered an internal error. Please try again.')
}
