import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { startS3Front } from './s3-front.js'
import { TEST_S3_CREDENTIALS, type S3Server } from './s3.js'

// s3rver never computes SigV4 ("Signature version 4 calculation is unimplemented"): it only
// refuses unknown access key ids and enforces X-Amz-Expires. This front does what a real S3 does
// with a signed request, presigned or signed in its Authorization header, written from AWS's SigV4
// description rather than with the SDK that signs, and passes everything else through.

/** RFC 3986 encoding, as SigV4 canonicalizes query names and values. */
const encode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text).digest()
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** What a request says of its signature: in its query (presigned) or in its Authorization header. */
function signatureOf (params: Array<readonly [string, string]>, headers: IncomingMessage['headers']) {
  const param = (name: string) => params.find(([key]) => key === name)?.[1]
  const presigned = param('X-Amz-Signature')
  if (presigned !== undefined) {
    return { given: presigned, credential: param('X-Amz-Credential') ?? '', signedHeaders: param('X-Amz-SignedHeaders') ?? '', amzDate: param('X-Amz-Date') ?? '', payload: 'UNSIGNED-PAYLOAD' }
  }
  const header = /^AWS4-HMAC-SHA256 Credential=([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)$/.exec(String(headers.authorization ?? ''))
  if (!header) return undefined
  return { given: header[3], credential: header[1], signedHeaders: header[2], amzDate: String(headers['x-amz-date'] ?? ''), payload: String(headers['x-amz-content-sha256'] ?? '') }
}

/** The signature a signed request should carry and the one it carries, recomputed from the request
 *  as it arrived, and the payload hash it signed; undefined for a request that carries none. */
export function signatures (method: string, rawUrl: string, headers: IncomingMessage['headers'], secretAccessKey: string) {
  const [path, query = ''] = rawUrl.split('?', 2)
  const params = query.split('&').filter(Boolean).map((pair) => {
    const [name, value = ''] = pair.split('=', 2).map((part) => decodeURIComponent(part.replace(/\+/g, '%20')))
    return [name, value] as const
  })
  const signed = signatureOf(params, headers)
  if (!signed) return undefined
  const canonicalQuery = params.filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => `${encode(name)}=${encode(value)}`).sort().join('&')
  const canonicalHeaders = signed.signedHeaders.split(';').map((name) => `${name}:${String(headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('')
  const canonicalRequest = [method, path, canonicalQuery, canonicalHeaders, signed.signedHeaders, signed.payload].join('\n')
  const [, date, region, service] = signed.credential.split('/')
  const scope = `${date}/${region}/${service}/aws4_request`
  const stringToSign = ['AWS4-HMAC-SHA256', signed.amzDate, scope, sha256(canonicalRequest)].join('\n')
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), 'aws4_request')
  return { expected: hmac(key, stringToSign).toString('hex'), given: signed.given, payload: signed.payload }
}

function refuse (res: ServerResponse, status: number, code: string, message: string) {
  res.writeHead(status, { 'content-type': 'application/xml' })
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`)
}

/**
 * A front before the test S3 that checks every signed request's SigV4 signature (presigned, or in
 * its Authorization header: the service's own requests) with its secret and answers 403
 * SignatureDoesNotMatch, as S3 does, when it does not match, and a payload signed by its SHA-256
 * against the body that came (400 XAmzContentSHA256Mismatch). Point the service (S3_ENDPOINT) at
 * `endpoint` so that its requests and the URLs it presigns come here. Chunk signatures are not
 * checked: the S3 endpoint's tests check those of real clients.
 */
export async function startSignatureCheckingS3 (s3: S3Server, secretAccessKey = TEST_S3_CREDENTIALS.secretAccessKey) {
  const target = new URL(s3.endpoint)
  // Changed by a test to see requests refused.
  const checking = { secretAccessKey }
  const counts = { checked: 0, refused: 0, bodiesChecked: 0 }
  const front = await startS3Front(target, (req, res, forward) => {
    const signed = signatures(req.method!, req.url!, req.headers, checking.secretAccessKey)
    if (!signed) return false
    counts.checked++
    const expected = Buffer.from(signed.expected)
    if (expected.length !== signed.given.length || !timingSafeEqual(expected, Buffer.from(signed.given))) {
      counts.refused++
      req.resume()
      refuse(res, 403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.')
      return true
    }
    const { payload } = signed
    if (!/^[0-9a-f]{64}$/.test(payload)) return false
    // A payload signed by its hash: S3 reads the body whole before it stores any of it.
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => {
      const body = Buffer.concat(chunks)
      if (body.length > 0) counts.bodiesChecked++
      if (createHash('sha256').update(body).digest('hex') === payload) return forward(body)
      counts.refused++
      refuse(res, 400, 'XAmzContentSHA256Mismatch', 'The provided \'x-amz-content-sha256\' header does not match what was computed.')
    })
    return true
  })
  return {
    /** The test S3 as the service should see it: through this front. */
    s3: { ...s3, endpoint: front.endpoint } satisfies S3Server,
    counts,
    checking,
    close: front.close
  }
}
