import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { createMemory } from '../limits.js'
import { uriEncode } from '../objects.js'
import { accessDenied, S3Error, signatureMismatch } from './errors.js'

// AWS Signature Version 4 as S3 checks it, written from AWS's description of the algorithm: the
// Authorization header and the presigned query, and what each says of the payload.

const ALGORITHM = 'AWS4-HMAC-SHA256'
// A request's date may be this far from the clock.
export const MAX_SKEW_MS = 15 * 60_000
// The longest a presigned URL may live (X-Amz-Expires), as S3 allows.
export const MAX_PRESIGNED_SECONDS = 7 * 86_400
export const EMPTY_SHA256 = createHash('sha256').update('').digest('hex')

/** How the body is signed (x-amz-content-sha256). */
export type PayloadSigning =
  | { kind: 'unsigned' }
  | { kind: 'sha256', hex: string }
  | { kind: 'streaming-signed' }
  | { kind: 'streaming-unsigned-trailer' }

export interface SignedRequest {
  accessKeyId: string
  /** The query as the signature read it: the one reading the operation acts on too. */
  query: URLSearchParams
  sessionToken?: string
  payload: PayloadSigning
  /** The request's time, `YYYYMMDDTHHMMSSZ`, and its credential scope: chunk signatures name them too. */
  amzDate: string
  scope: string
  /** Checks the signature with the signer's secret; resolves with the signing key and the
   *  signature, from which a streamed body's chunk signatures go on. */
  verify (secretAccessKey: string): { signingKey: Buffer, signature: string }
}

export const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')
const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text).digest()

function decoded (text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    throw new S3Error('InvalidURI', 400, 'Couldn\'t parse the specified URI.')
  }
}

/** A query's names and values, decoded once ("+" is a space, as a form's query reads): what is signed is what is acted on. */
function queryPairs (rawQuery: string): Array<[string, string]> {
  return rawQuery.split('&').filter(Boolean).map((pair) => {
    const at = pair.indexOf('=')
    const [name, value] = at === -1 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)]
    return [decoded(name.replace(/\+/g, ' ')), decoded(value.replace(/\+/g, ' '))]
  })
}

// Headers SigV4 itself defines, which a request may carry unsigned; any other x-amz-* header
// changes what the request does, so it must be signed (S3 refuses it otherwise).
const UNSIGNED_ALLOWED = new Set(['x-amz-content-sha256', 'x-amz-date', 'x-amz-security-token'])

function refuseUnsigned (headers: IncomingHttpHeaders, signedHeaders: string[]) {
  const unsigned = Object.keys(headers).filter((name) => name.startsWith('x-amz-') && !UNSIGNED_ALLOWED.has(name) && !signedHeaders.includes(name))
  if (unsigned.length > 0) throw new S3Error('AccessDenied', 403, 'There were headers present in the request which were not signed', { HeadersNotSigned: unsigned.join(', ') })
}

// A key's signing key changes once a day: derived once (four HMACs), not per request.
const signingKeys = createMemory<Buffer>(10_000)

export function signingKeyOf (secretAccessKey: string, date: string, region: string): Buffer {
  const memo = `${date}\n${region}\n${secretAccessKey}`
  let signingKey = signingKeys.get(memo)
  if (signingKey === undefined) {
    signingKey = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), 's3'), 'aws4_request')
    signingKeys.set(memo, signingKey)
  }
  return signingKey
}

export function sameSignature (expected: string, given: string): boolean {
  const a = Buffer.from(expected)
  const b = Buffer.from(given)
  return a.length === b.length && timingSafeEqual(a, b)
}

const collapse = (value: string) => value.trim().replace(/\s+/g, ' ')

function headerValue (headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value.join(',') : value
}

/** The date of `YYYYMMDDTHHMMSSZ`, or undefined when it is not one. */
function dateOf (amzDate: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate)
  if (!match) return undefined
  const date = new Date(`${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}Z`)
  return Number.isNaN(date.getTime()) ? undefined : date
}

function payloadOf (header: string | undefined): PayloadSigning {
  if (header === undefined) throw new S3Error('InvalidRequest', 400, 'Missing required header for this request: x-amz-content-sha256')
  if (header === 'UNSIGNED-PAYLOAD') return { kind: 'unsigned' }
  if (header === 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD') return { kind: 'streaming-signed' }
  if (header === 'STREAMING-UNSIGNED-PAYLOAD-TRAILER') return { kind: 'streaming-unsigned-trailer' }
  if (/^[0-9a-f]{64}$/.test(header)) return { kind: 'sha256', hex: header }
  if (header.startsWith('STREAMING-')) throw new S3Error('NotImplemented', 501, `x-amz-content-sha256 ${header} is not implemented by this server`)
  throw new S3Error('InvalidArgument', 400, 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER or a SHA-256 in hex')
}

interface Parts { credential: string, signedHeaders: string[], signature: string, amzDate: string, sessionToken?: string, payload: PayloadSigning, expiresSeconds?: number }

function fromHeader (authorization: string, headers: IncomingHttpHeaders): Parts {
  const match = /^AWS4-HMAC-SHA256\s+Credential=([^,\s]+)\s*,\s*SignedHeaders=([^,\s]+)\s*,\s*Signature=([0-9a-f]{64})\s*$/.exec(authorization)
  if (!match) {
    if (/^AWS\s/.test(authorization)) throw new S3Error('InvalidRequest', 400, 'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.')
    throw new S3Error('AuthorizationHeaderMalformed', 400, 'The authorization header is malformed.')
  }
  const amzDate = headerValue(headers, 'x-amz-date')
  if (!amzDate) throw new S3Error('AccessDenied', 403, 'AWS authentication requires a valid Date or x-amz-date header')
  return {
    credential: match[1], signedHeaders: match[2].split(';'), signature: match[3], amzDate,
    sessionToken: headerValue(headers, 'x-amz-security-token'),
    payload: payloadOf(headerValue(headers, 'x-amz-content-sha256'))
  }
}

function fromQuery (query: URLSearchParams): Parts {
  if (query.get('X-Amz-Algorithm') !== ALGORITHM) throw new S3Error('AuthorizationQueryParametersError', 400, 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"')
  const [credential, signedHeaders, signature, amzDate, expires] = ['X-Amz-Credential', 'X-Amz-SignedHeaders', 'X-Amz-Signature', 'X-Amz-Date', 'X-Amz-Expires'].map((name) => query.get(name))
  if (!credential || !signedHeaders || !signature || !amzDate || !expires) {
    throw new S3Error('AuthorizationQueryParametersError', 400, 'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.')
  }
  const expiresSeconds = Number(expires)
  if (!/^\d{1,7}$/.test(expires) || expiresSeconds < 1) throw new S3Error('AuthorizationQueryParametersError', 400, 'X-Amz-Expires should be a number of seconds')
  if (expiresSeconds > MAX_PRESIGNED_SECONDS) throw new S3Error('AuthorizationQueryParametersError', 400, 'X-Amz-Expires must be less than a week (in seconds) that is 604800')
  return { credential, signedHeaders: signedHeaders.split(';'), signature, amzDate, sessionToken: query.get('X-Amz-Security-Token') ?? undefined, payload: { kind: 'unsigned' }, expiresSeconds }
}

/**
 * Reads a request's SigV4 signature (header or presigned query) and checks all that needs no
 * secret: the form, the date against the clock (and a presigned URL's expiry), the scope's region
 * and service. `verify` then checks the signature itself. Unsigned requests are AccessDenied.
 */
export function readSignature (request: { method: string, url: string, headers: IncomingHttpHeaders }, { region, now = new Date() }: { region: string, now?: Date }): SignedRequest {
  const [rawPath, rawQuery = ''] = request.url.split('?', 2)
  const pairs = queryPairs(rawQuery)
  const query = new URLSearchParams(pairs)
  const authorization = headerValue(request.headers, 'authorization')
  const presigned = query.has('X-Amz-Signature')
  if (!authorization && !presigned && query.has('AWSAccessKeyId') && query.has('Signature')) {
    throw new S3Error('InvalidRequest', 400, 'Signature Version 2 is not supported: presign with AWS Signature Version 4 (boto3: Config(signature_version="s3v4"))')
  }
  if (!authorization && !presigned) throw accessDenied('Anonymous access is not allowed: sign requests with AWS Signature Version 4')
  const parts = authorization ? fromHeader(authorization, request.headers) : fromQuery(query)

  const [accessKeyId, date, scopeRegion, service, terminator, ...rest] = parts.credential.split('/')
  if (!accessKeyId || !date || service !== 's3' || terminator !== 'aws4_request' || rest.length > 0) {
    throw new S3Error('AuthorizationHeaderMalformed', 400, 'The authorization header is malformed; the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".')
  }
  if (scopeRegion !== region) throw new S3Error('AuthorizationHeaderMalformed', 400, `The authorization header is malformed; the region '${scopeRegion}' is wrong; expecting '${region}'`, { Region: region })
  const signedAt = dateOf(parts.amzDate)
  if (!signedAt || !parts.amzDate.startsWith(date)) throw accessDenied('X-Amz-Date must be the date of the credential scope, as YYYYMMDDTHHMMSSZ')
  if (parts.expiresSeconds !== undefined) {
    if (now.getTime() > signedAt.getTime() + parts.expiresSeconds * 1000) throw accessDenied('Request has expired')
    if (signedAt.getTime() - now.getTime() > MAX_SKEW_MS) throw new S3Error('RequestTimeTooSkewed', 403, 'The difference between the request time and the current time is too large.')
  } else if (Math.abs(now.getTime() - signedAt.getTime()) > MAX_SKEW_MS) {
    throw new S3Error('RequestTimeTooSkewed', 403, 'The difference between the request time and the current time is too large.', { RequestTime: parts.amzDate, ServerTime: now.toISOString() })
  }
  if (!parts.signedHeaders.includes('host')) throw accessDenied('The host header must be signed')
  refuseUnsigned(request.headers, parts.signedHeaders)

  const canonicalPath = rawPath.split('/').map((segment) => uriEncode(decoded(segment))).join('/')
  const canonicalQuery = pairs
    .filter(([name]) => !(presigned && name === 'X-Amz-Signature'))
    .map(([name, value]) => [uriEncode(name), uriEncode(value)])
    .sort(([a, x], [b, y]) => a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0)
    .map(([name, value]) => `${name}=${value}`).join('&')
  const canonicalHeaders = parts.signedHeaders.map((name) => {
    const value = headerValue(request.headers, name)
    if (value === undefined) throw accessDenied(`The signed header ${name} is missing`)
    return `${name}:${collapse(value)}\n`
  }).join('')
  const payloadHash = authorization ? headerValue(request.headers, 'x-amz-content-sha256')! : 'UNSIGNED-PAYLOAD'
  const canonicalRequest = [request.method, canonicalPath, canonicalQuery, canonicalHeaders, parts.signedHeaders.join(';'), payloadHash].join('\n')
  const scope = `${date}/${region}/s3/aws4_request`
  const stringToSign = [ALGORITHM, parts.amzDate, scope, sha256Hex(canonicalRequest)].join('\n')

  return {
    accessKeyId,
    query,
    sessionToken: parts.sessionToken,
    payload: parts.payload,
    amzDate: parts.amzDate,
    scope,
    verify (secretAccessKey) {
      const signingKey = signingKeyOf(secretAccessKey, date, region)
      const expected = createHmac('sha256', signingKey).update(stringToSign).digest('hex')
      if (!sameSignature(expected, parts.signature)) throw signatureMismatch()
      return { signingKey, signature: parts.signature }
    }
  }
}
