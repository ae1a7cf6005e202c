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
