import { createHash, createHmac } from 'node:crypto'
import { Crc32, Crc32c, Crc64Nvme } from '@aws-sdk/checksums/crc'
import { INPUT_LIMITS } from '../limits.js'
import { S3Error, signatureMismatch } from './errors.js'
import { EMPTY_SHA256, sameSignature, type SignedRequest } from './sigv4.js'

// A body as S3 takes it: checked as it streams (a payload hash, chunk signatures, a checksum in a
// header or a trailer, Content-MD5), the bytes passed on at once, and the stream failing at its end
// when a check fails, so that the write it feeds is never published.

interface Checksum { update (data: Uint8Array): void, digest (): Promise<Uint8Array> | Uint8Array }

const CHECKSUMS: Record<string, () => Checksum> = {
  crc32: () => new Crc32(),
  crc32c: () => new Crc32c(),
  crc64nvme: () => new Crc64Nvme(),
  sha1: () => hashOf('sha1'),
  sha256: () => hashOf('sha256')
}

function hashOf (algorithm: string): Checksum {
  const hash = createHash(algorithm)
  return { update: (data) => { hash.update(data) }, digest: () => hash.digest() }
}

const badDigest = (what: string) => new S3Error('BadDigest', 400, `The ${what} you specified did not match the calculated checksum.`)
const incomplete = () => new S3Error('IncompleteBody', 400, 'The request body ended before its end: the object was not stored.')
const malformed = (why: string) => new S3Error('InvalidRequest', 400, `The aws-chunked body is malformed: ${why}`)

/** The algorithm of an `x-amz-checksum-<algorithm>` name, when it is one this server checks. */
export function checksumAlgorithmOf (name: string): string | undefined {
  const algorithm = /^x-amz-checksum-([a-z0-9]+)$/.exec(name)?.[1]
  return algorithm !== undefined && algorithm in CHECKSUMS ? algorithm : undefined
}

type ChunkEvent = { kind: 'header', size: number, extensions: string } | { kind: 'data', bytes: Buffer } | { kind: 'trailer', lines: string[] }

/**
 * Reads an aws-chunked body: `<hex size>[;extensions]\r\n<data>\r\n`, …, `0…\r\n`, trailer lines, `\r\n`.
 * Every framed part is bounded: a line (INPUT_LIMITS.awsChunkLineBytes), the trailer's lines
 * (awsTrailerLines), the data (`declared`, x-amz-decoded-content-length).
 */
async function * awsChunks (source: AsyncIterable<Buffer>, declared: number): AsyncGenerator<ChunkEvent> {
  let pending: Buffer = Buffer.alloc(0)
  let state: 'header' | 'data' | 'crlf' | 'trailer' | 'done' = 'header'
  let left = 0
  let decoded = 0
  const trailer: string[] = []
  const line = () => {
    const end = pending.indexOf('\r\n')
    if (end === -1) {
      if (pending.length > INPUT_LIMITS.awsChunkLineBytes) throw malformed(`a chunk header or trailer line is longer than ${INPUT_LIMITS.awsChunkLineBytes} bytes`)
      return undefined
    }
    const text = pending.subarray(0, end).toString('latin1')
    pending = pending.subarray(end + 2)
    return text
  }
  for await (const chunk of source) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    for (;;) {
      if (state === 'header') {
        const header = line()
        if (header === undefined) break
        const match = /^([0-9a-fA-F]{1,16})(;.*)?$/.exec(header)
        if (!match) throw malformed('a chunk size is not hexadecimal')
        const size = parseInt(match[1], 16)
        decoded += size
        if (decoded > declared) throw malformed(`its chunks hold more than the ${declared} bytes x-amz-decoded-content-length declares`)
        yield { kind: 'header', size, extensions: match[2] ?? '' }
        if (size === 0) state = 'trailer'
        else [state, left] = ['data', size]
      } else if (state === 'data') {
        if (pending.length === 0) break
        const bytes = pending.subarray(0, left)
        pending = pending.subarray(bytes.length)
        left -= bytes.length
        yield { kind: 'data', bytes }
        if (left === 0) state = 'crlf'
      } else if (state === 'crlf') {
        if (pending.length < 2) break
        if (pending[0] !== 0x0d || pending[1] !== 0x0a) throw malformed('a chunk does not end with CRLF')
        pending = pending.subarray(2)
        state = 'header'
      } else if (state === 'trailer') {
        const text = line()
        if (text === undefined) break
        if (text === '') {
          state = 'done'
          yield { kind: 'trailer', lines: trailer }
        } else if (trailer.push(text) > INPUT_LIMITS.awsTrailerLines) throw malformed(`its trailer has more than ${INPUT_LIMITS.awsTrailerLines} lines`)
      } else break
    }
  }
  if ((state as string) !== 'done' || decoded < declared) throw incomplete()
}

/**
 * The body of a request as the bytes of the object: aws-chunked decoded, and every check S3 makes
 * on the way. `headers` give Content-MD5, x-amz-checksum-* and x-amz-trailer.
 */
export function objectBytes (source: AsyncIterable<Buffer>, signed: SignedRequest, key: { signingKey: Buffer, signature: string }, headers: Record<string, string | string[] | undefined>): AsyncIterable<Buffer> {
  const declared = isChunked(signed) ? declaredLengthOf(headers) : undefined
  const checks: Array<{ what: string, checksum: Checksum, expected?: string }> = []
  const contentMd5 = headers['content-md5']
  if (typeof contentMd5 === 'string' && (!/^[A-Za-z0-9+/]{22}==$/.test(contentMd5.trim()))) throw new S3Error('InvalidDigest', 400, 'The Content-MD5 you specified was invalid: it is the base64 of 16 bytes.')
  if (typeof contentMd5 === 'string') checks.push({ what: 'Content-MD5', checksum: hashOf('md5'), expected: contentMd5 })
  for (const [name, value] of Object.entries(headers)) {
    const algorithm = checksumAlgorithmOf(name)
    if (algorithm && typeof value === 'string') checks.push({ what: name, checksum: CHECKSUMS[algorithm](), expected: value })
  }
  const trailerName = typeof headers['x-amz-trailer'] === 'string' ? headers['x-amz-trailer'].trim().toLowerCase() : undefined
  const trailing = trailerName === undefined ? undefined : checksumAlgorithmOf(trailerName)
  if (trailerName !== undefined && !trailing) throw new S3Error('InvalidRequest', 400, `x-amz-trailer ${trailerName} is not a checksum this server checks`)
  const trailerCheck = trailing ? { what: trailerName!, checksum: CHECKSUMS[trailing]() } : undefined
  // Unsigned and unchecked (a presigned PUT): the bytes as they came, through no generator.
  if (signed.payload.kind === 'unsigned' && checks.length === 0 && !trailerCheck) return source
  return checkedBytes(source, signed, key, checks, trailerCheck, declared ?? 0)
}

export const isChunked = (signed: SignedRequest) => signed.payload.kind === 'streaming-signed' || signed.payload.kind === 'streaming-unsigned-trailer'

/** A length header's value: a whole number of bytes, or 400. */
export function lengthOf (name: string, value: string | string[] | undefined): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || !/^\d{1,16}$/.test(value.trim()) || !Number.isSafeInteger(Number(value))) throw new S3Error('InvalidArgument', 400, `${name} must be a whole number of bytes`)
  return Number(value)
}

/** x-amz-decoded-content-length: the object's length in an aws-chunked body, which the body must hold exactly. */
export function declaredLengthOf (headers: Record<string, string | string[] | undefined>): number {
  const length = lengthOf('x-amz-decoded-content-length', headers['x-amz-decoded-content-length'])
  if (length === undefined) throw new S3Error('MissingContentLength', 411, 'You must provide the Content-Length HTTP header (x-amz-decoded-content-length for aws-chunked).')
  return length
}

async function * checkedBytes (source: AsyncIterable<Buffer>, signed: SignedRequest, key: { signingKey: Buffer, signature: string },
  checks: Array<{ what: string, checksum: Checksum, expected?: string }>, trailerCheck: { what: string, checksum: Checksum } | undefined, declared: number): AsyncGenerator<Buffer> {
  const sha256 = signed.payload.kind === 'sha256' ? createHash('sha256') : undefined
  let bytes: AsyncIterable<Buffer> = source
  let trailer: string[] = []
  if (signed.payload.kind === 'streaming-signed') {
    bytes = signedChunksChecked(source, signed, key, declared)
  } else if (signed.payload.kind === 'streaming-unsigned-trailer') {
    bytes = (async function * () {
      for await (const event of awsChunks(source, declared)) {
        if (event.kind === 'data') yield event.bytes
        else if (event.kind === 'trailer') trailer = event.lines
      }
    })()
  }
  for await (const chunk of bytes) {
    sha256?.update(chunk)
    for (const { checksum } of checks) checksum.update(chunk)
    trailerCheck?.checksum.update(chunk)
    yield chunk
  }
  if (sha256 && signed.payload.kind === 'sha256' && sha256.digest('hex') !== signed.payload.hex) {
    throw new S3Error('XAmzContentSHA256Mismatch', 400, 'The provided \'x-amz-content-sha256\' header does not match what was computed.')
  }
  for (const { what, checksum, expected } of checks) {
    if (Buffer.from(await checksum.digest()).toString('base64') !== expected) throw badDigest(what)
  }
  if (trailerCheck) {
    const line = trailer.find((text) => text.toLowerCase().startsWith(`${trailerCheck.what}:`))
    if (!line) throw new S3Error('InvalidRequest', 400, `The trailer ${trailerCheck.what} named by x-amz-trailer is missing`)
    if (Buffer.from(await trailerCheck.checksum.digest()).toString('base64') !== line.slice(line.indexOf(':') + 1).trim()) throw badDigest(trailerCheck.what)
  }
}

/** STREAMING-AWS4-HMAC-SHA256-PAYLOAD: each chunk's signature chains from the one before, the
 *  request's first; each is checked when its bytes have all passed (at the next header). */
async function * signedChunksChecked (source: AsyncIterable<Buffer>, signed: SignedRequest, { signingKey, signature }: { signingKey: Buffer, signature: string }, declared: number): AsyncGenerator<Buffer> {
  let previous = signature
  let expected: string | undefined
  let hash = createHash('sha256')
  const check = () => {
    if (expected === undefined) return
    const stringToSign = ['AWS4-HMAC-SHA256-PAYLOAD', signed.amzDate, signed.scope, previous, EMPTY_SHA256, hash.digest('hex')].join('\n')
    if (!sameSignature(createHmac('sha256', signingKey).update(stringToSign).digest('hex'), expected)) throw signatureMismatch()
    previous = expected
    expected = undefined
  }
  for await (const event of awsChunks(source, declared)) {
    if (event.kind === 'header') {
      check()
      const match = /^;chunk-signature=([0-9a-f]{64})$/.exec(event.extensions)
      if (!match) throw malformed('a chunk has no chunk-signature')
      expected = match[1]
      hash = createHash('sha256')
      if (event.size === 0) check()
    } else if (event.kind === 'data') {
      hash.update(event.bytes)
      yield event.bytes
    }
  }
  if (expected !== undefined) throw incomplete()
}
