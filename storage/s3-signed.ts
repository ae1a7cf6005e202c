import type { S3Client } from '@aws-sdk/client-s3'
import { HttpRequest, type HttpResponse } from '@smithy/protocol-http'
import { SignatureV4 } from '@smithy/signature-v4'
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { uriEncode } from '../objects.js'

type Secret = string | ArrayBuffer | ArrayBufferView
const secretBytes = (secret: Secret) => typeof secret === 'string'
  ? secret
  : secret instanceof ArrayBuffer ? new Uint8Array(secret) : new Uint8Array(secret.buffer, secret.byteOffset, secret.byteLength)

/** SHA-256, or its HMAC with a secret, by node:crypto: what SignatureV4 hashes with. */
class NodeSha256 {
  private readonly hash: Hash | Hmac
  constructor (secret?: Secret) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', secretBytes(secret))
  }

  update (data: string | Uint8Array) { this.hash.update(data) }
  async digest () { return new Uint8Array(this.hash.digest()) }
}

const EMPTY_BODY_SHA256 = createHash('sha256').digest('hex')
const ATTEMPTS = 3
const RETRIED_STATUSES = [429, 500, 502, 503, 504]
// What is read of a refusal's body for its S3 error code; the rest is let go with its connection.
const ERROR_BODY_BYTES = 16 * 1024

/** A key as an S3 path: each segment percent-encoded, its slashes kept. */
const keyPath = (key: string) => key.split('/').map(uriEncode).join('/')

/** The store's refusal, named and numbered as the SDK names its errors, so that one set of rules reads both. */
class StoreAnswerError extends Error {
  readonly $metadata: { httpStatusCode: number }
  constructor (status: number, code: string | undefined, method: string) {
    super(`the store answered ${method} with ${status}${code ? ` ${code}` : ''}`)
    this.name = code ?? (status === 404 ? 'NotFound' : `Http${status}`)
    this.$metadata = { httpStatusCode: status }
  }
}

async function refusalCode (body: IncomingMessage | undefined): Promise<string | undefined> {
  if (!body) return undefined
  let text = ''
  for await (const chunk of body) {
    text += String(chunk)
    if (text.length > ERROR_BODY_BYTES) break
  }
  body.destroy()
  return /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1]
}

type Method = 'GET' | 'HEAD' | 'PUT'
/** What a request sends besides its key: headers, and a PUT's body with its hash (hex SHA-256, signed). */
interface Sent {
  headers: Record<string, string>
  payload?: { body: Buffer, sha256: string }
}

const transient = (error: unknown) => !(error instanceof StoreAnswerError) || RETRIED_STATUSES.includes(error.$metadata.httpStatusCode)

/**
 * GetObject, HeadObject and the PutObject of a body in memory without the SDK's middleware: signed
 * by its SignatureV4 with the client's credentials, region and endpoint (a PUT's payload by its
 * SHA-256, as the SDK signs it), sent by the client's own request handler (its connections and
 * timeouts), three attempts in all as the SDK's standard retries make. The middleware cost a 1 MiB
 * GetObject about as much CPU as relaying its bytes, and a 64 KiB PutObject more (docs/design.md).
 */
export function createSignedRequests (client: S3Client, bucket: string, forcePathStyle: boolean | undefined) {
  const { config } = client
  const signer = new SignatureV4({ credentials: config.credentials, region: config.region, service: 's3', sha256: NodeSha256, uriEscapePath: false, applyChecksum: false })
  let base: Promise<URL> | undefined
  // The SDK's own rules for where the bucket is (virtual host or path, AWS or another endpoint), asked once.
  const bucketUrl = async () => {
    const endpoint = config.endpoint ? await config.endpoint() : undefined
    return config.endpointProvider({
      Bucket: bucket,
      Region: await config.region(),
      ForcePathStyle: forcePathStyle === true,
      Endpoint: endpoint && `${endpoint.protocol}//${endpoint.hostname}${endpoint.port ? `:${endpoint.port}` : ''}${endpoint.path}`,
      UseFIPS: false,
      UseDualStack: false,
      Accelerate: false
    }).url
  }

  async function attempt (method: Method, key: string, { headers, payload }: Sent, abortSignal: AbortSignal): Promise<HttpResponse> {
    const url = await (base ??= bucketUrl().catch((error) => { base = undefined; throw error }))
    const request = new HttpRequest({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: `${url.pathname.replace(/\/$/, '')}/${keyPath(key)}`,
      headers: { ...headers, host: url.host, 'x-amz-content-sha256': payload?.sha256 ?? EMPTY_BODY_SHA256 },
      body: payload?.body
    })
    const signed = await signer.sign(request) as HttpRequest
    const { response } = await config.requestHandler.handle(signed, { abortSignal })
    const body = response.body as IncomingMessage | undefined
    if (response.statusCode >= 300) throw new StoreAnswerError(response.statusCode, await refusalCode(body), method)
    // A body left unread keeps its connection from the pool: HEAD's and a PUT's (empty) are read at once.
    if (method !== 'GET') body?.resume()
    return response
  }

  /** `method` of `key`, retried when the store or the connection failed on the way, until `abortSignal`. */
  async function send (method: Method, key: string, sent: Sent, abortSignal: AbortSignal) {
    for (let tried = 1; ; tried++) {
      try {
        return await attempt(method, key, sent, abortSignal)
      } catch (error) {
        if (tried === ATTEMPTS || abortSignal.aborted || !transient(error)) throw abortSignal.aborted ? abortSignal.reason : error
        await sleep(Math.random() * 100 * 2 ** tried, undefined, { signal: abortSignal }).catch(() => {})
      }
    }
  }

  return {
    get: (key: string, range: string | undefined, abortSignal: AbortSignal) => send('GET', key, { headers: range ? { range } : {} }, abortSignal),
    head: (key: string, abortSignal: AbortSignal) => send('HEAD', key, { headers: {} }, abortSignal),
    /** PutObject of `body`, with `headers` (its type, S3's conditions); answers S3's headers (its ETag). */
    put: (key: string, body: Buffer, headers: Record<string, string>, abortSignal: AbortSignal) => send('PUT', key, {
      headers: { ...headers, 'content-length': String(body.length) },
      payload: { body, sha256: createHash('sha256').update(body).digest('hex') }
    }, abortSignal)
  }
}
