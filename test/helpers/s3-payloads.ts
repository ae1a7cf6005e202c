import { createHash, createHmac } from 'node:crypto'
import { Sha256 } from '@aws-crypto/sha256-js'
import { HttpRequest } from '@smithy/protocol-http'
import { SignatureV4 } from '@smithy/signature-v4'

// Requests as S3 clients send them, for the forms the SDK's defaults do not use: signed by the SDK's
// own signer (@smithy/signature-v4), the chunk signatures after AWS's description of
// STREAMING-AWS4-HMAC-SHA256-PAYLOAD.

export interface Credentials { accessKeyId: string, secretAccessKey: string }

const hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex')
const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text).digest()

/** The headers the SDK's signer gives `method url` with `headers` (x-amz-content-sha256 as given). */
export async function signed (method: string, url: string, credentials: Credentials, headers: Record<string, string>, date = new Date()) {
  const target = new URL(url)
  const request = new HttpRequest({
    method, protocol: target.protocol, hostname: target.hostname, port: Number(target.port), path: decodeURIComponent(target.pathname),
    query: Object.fromEntries(target.searchParams),
    headers: { host: target.host, ...headers }
  })
  const signer = new SignatureV4({ credentials, region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: true, applyChecksum: false })
  return (await signer.sign(request, { signingDate: date })).headers as Record<string, string>
}

/**
 * A PUT of `chunks` as aws-chunked with a signature per chunk; `tamper` changes the signature of the
 * chunk at that index; `declared` is the x-amz-decoded-content-length signed (the true length by default). Resolves with the headers and the body to send.
 */
export async function signedChunks (url: string, credentials: Credentials, chunks: Buffer[], { tamper, declared }: { tamper?: number, declared?: string } = {}) {
  const date = new Date()
  const length = chunks.reduce((total, chunk) => total + chunk.length, 0)
  const headers = await signed('PUT', url, credentials, {
    'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD', 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': declared ?? String(length)
  }, date)
  const amzDate = headers['x-amz-date']
  const day = amzDate.slice(0, 8)
  const scope = `${day}/us-east-1/s3/aws4_request`
  const key = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), 'us-east-1'), 's3'), 'aws4_request')
  let previous = /Signature=([0-9a-f]{64})/.exec(headers.authorization)![1]
  const parts: Buffer[] = []
  for (const [index, chunk] of [...chunks, Buffer.alloc(0)].entries()) {
    const stringToSign = ['AWS4-HMAC-SHA256-PAYLOAD', amzDate, scope, previous, hex(''), hex(chunk)].join('\n')
    let signature = createHmac('sha256', key).update(stringToSign).digest('hex')
    previous = signature
    if (index === tamper) signature = signature.replace(/^./, (c) => c === '0' ? '1' : '0')
    parts.push(Buffer.from(`${chunk.length.toString(16)};chunk-signature=${signature}\r\n`), chunk, Buffer.from('\r\n'))
  }
  const body = Buffer.concat(parts)
  return { headers: { ...headers, 'content-length': String(body.length) }, body }
}
