import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { TEST_S3_CREDENTIALS, type S3Server } from './s3.js'

// s3rver never computes SigV4 ("Signature version 4 calculation is unimplemented"): it only
// refuses unknown access key ids and enforces X-Amz-Expires. This front does what a real S3 does
// with a presigned request, written from AWS's SigV4 description rather than with the SDK that
// signs, and passes everything else through.

/** RFC 3986 encoding, as SigV4 canonicalizes query names and values. */
const encode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text).digest()
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** The signature a presigned request should carry, recomputed from the request as it arrived. */
export function expectedPresignedSignature (method: string, rawUrl: string, headers: IncomingMessage['headers'], secretAccessKey: string): string {
  const [path, query = ''] = rawUrl.split('?', 2)
  const params = query.split('&').filter(Boolean).map((pair) => {
    const [name, value = ''] = pair.split('=', 2).map((part) => decodeURIComponent(part.replace(/\+/g, '%20')))
    return [name, value] as const
  })
  const param = (name: string) => params.find(([key]) => key === name)?.[1] ?? ''
  const signedHeaders = param('X-Amz-SignedHeaders')
  const canonicalQuery = params.filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => `${encode(name)}=${encode(value)}`).sort().join('&')
  const canonicalHeaders = signedHeaders.split(';').map((name) => `${name}:${String(headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('')
  const canonicalRequest = [method, path, canonicalQuery, canonicalHeaders, signedHeaders, 'UNSIGNED-PAYLOAD'].join('\n')
  const [, date, region, service] = param('X-Amz-Credential').split('/')
  const scope = `${date}/${region}/${service}/aws4_request`
  const stringToSign = ['AWS4-HMAC-SHA256', param('X-Amz-Date'), scope, sha256(canonicalRequest)].join('\n')
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), 'aws4_request')
  return hmac(key, stringToSign).toString('hex')
}

function refuse (res: ServerResponse) {
  res.writeHead(403, { 'content-type': 'application/xml' })
  res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code>' +
    '<Message>The request signature we calculated does not match the signature you provided.</Message></Error>')
}

/**
 * A front before the test S3 that checks every presigned request's SigV4 signature with its secret
 * and answers 403 SignatureDoesNotMatch, as S3 does, when it does not match. Point the service
 * (S3_ENDPOINT) at `endpoint` so that the URLs it presigns come here.
 */
export async function startSignatureCheckingS3 (s3: S3Server, secretAccessKey = TEST_S3_CREDENTIALS.secretAccessKey) {
  const target = new URL(s3.endpoint)
  const counts = { checked: 0, refused: 0 }
  const front = createServer((req, res) => {
    const given = new URL(req.url!, 'http://front').searchParams.get('X-Amz-Signature')
    if (given !== null) {
      counts.checked++
      const expected = Buffer.from(expectedPresignedSignature(req.method!, req.url!, req.headers, secretAccessKey))
      if (expected.length !== given.length || !timingSafeEqual(expected, Buffer.from(given))) {
        counts.refused++
        req.resume()
        return refuse(res)
      }
    }
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve))
  const endpoint = `http://127.0.0.1:${(front.address() as AddressInfo).port}`
  return {
    /** The test S3 as the service should see it: through this front. */
    s3: { ...s3, endpoint } satisfies S3Server,
    counts,
    close: () => new Promise<void>((resolve) => { front.closeAllConnections(); front.close(() => resolve()) })
  }
}
