import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CopyObjectCommand, CreateMultipartUploadCommand, DeleteObjectCommand,
  GetObjectCommand, HeadBucketCommand, ListObjectsV2Command, S3Client, UploadPartCommand, UploadPartCopyCommand,
  type CompletedPart
} from '@aws-sdk/client-s3'
import { NodeHttpHandler } from '@smithy/node-http-handler'
import { once } from 'node:events'
import { PassThrough, Transform, type Readable } from 'node:stream'
import { BadRequestError, PreconditionFailedError, RangeNotSatisfiableError } from '../errors.js'
import {
  compareKeys, limitBytes, resolveRange,
  type ByteRange, type Bytes, type CopyOptions, type ListOptions, type NativeParts, type ObjectMeta, type ObjectRead, type ObjectStore, type PresignRequest, type RangeRequest,
  type StagedObject, type StageOptions
} from './object-store.js'
import { firstPart, PART_BUFFERS, partsOf, partWindow, slicesOf } from './s3-parts.js'
import { createSignedRequests } from './s3-signed.js'
import { createS3StagedWrites, type StreamedPart } from './s3-staged.js'

export interface S3StoreOptions {
  bucket: string
  region: string
  endpoint?: string
  forcePathStyle?: boolean
  /** Defaults to the AWS default provider chain. */
  credentials?: { accessKeyId: string, secretAccessKey: string, sessionToken?: string }
  connectTimeoutMs?: number
  /** Longest one operation may take, its retries included; a streamed body has idleTimeoutMs instead. */
  timeoutMs?: number
  /** A streamed read: longest wait for the store's answer, and then for each next chunk of the body. */
  idleTimeoutMs?: number
  /** Size of the parts of a multipart upload (S3's least is 5 MiB); a smaller body is one PutObject. */
  partBytes?: number
  log?: { warn (details: object, message: string): void }
}

const DEFAULT_PART_BYTES = 8 * 1024 * 1024
// S3's largest CopyObject; a larger object is copied in parts (UploadPartCopy) of COPY_PART_BYTES.
const MAX_COPY_OBJECT_BYTES = 5 * 1024 ** 3
const COPY_PART_BYTES = 1024 ** 3
// A copy's deadline grows with its size, at the least rate a store copies at.
const COPY_BYTES_PER_MS = 20 * 1024

/** A key as x-amz-copy-source wants it: URL-encoded, its slashes kept. */
const copySource = (bucket: string, key: string) => `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`

const errorName = (error: unknown) => (error as { name?: string }).name ?? ''
const statusOf = (error: unknown) => (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode
// Not a 404 status alone: a missing bucket is the store's failure, not a missing file.
const isNotFound = (error: unknown) => ['NoSuchKey', 'NotFound'].includes(errorName(error))

/** The store enforced a precondition itself (AWS S3, MinIO, R2): a writer that bypassed Stowage changed the object. */
function storeRefusal (error: unknown): unknown {
  if (errorName(error) === 'PreconditionFailed' || statusOf(error) === 412 || errorName(error) === 'ConditionalRequestConflict') {
    return new PreconditionFailedError('the file has changed (the store refused the write)')
  }
  return error
}

/** What the publisher found at the key, for S3 to enforce itself: that ETag still there, or still nothing. */
type Expected = { current: ObjectMeta | undefined } | undefined
const storeConditions = (expected: Expected): { IfMatch?: string, IfNoneMatch?: string } => expected === undefined
  ? {}
  : expected.current ? { IfMatch: expected.current.etag } : { IfNoneMatch: '*' }
/** The same, as the headers of a request signed by hand. */
function conditionHeaders (expected: Expected): Record<string, string> {
  const { IfMatch, IfNoneMatch } = storeConditions(expected)
  return { ...IfMatch !== undefined && { 'if-match': IfMatch }, ...IfNoneMatch !== undefined && { 'if-none-match': IfNoneMatch } }
}

const rangeHeader = ({ start, end }: ByteRange) => `bytes=${start}-${Number.isFinite(end) ? end : ''}`

/** `bytes 0-9/100` → the range and the object's size. */
function parseContentRange (header: string | undefined) {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header ?? '')
  return match ? { range: { start: Number(match[1]), end: Number(match[2]) }, size: Number(match[3]) } : undefined
}

/** What GetObject's and HeadObject's headers say of an object (of a range: its length is the range's). */
const described = (headers: Record<string, string | undefined>) => ({
  size: Number(headers['content-length'] ?? 0),
  lastModified: headers['last-modified'] ? new Date(headers['last-modified']) : new Date(),
  contentType: headers['content-type'] ?? 'application/octet-stream',
  etag: headers.etag ?? '""'
})

/**
 * The body, failed when the store is silent for `idleMs` while it is read (a reader that pauses it,
 * a slow client, does not count), and cut at `length` bytes: a store may serve more of a range than
 * was asked. A plain Transform and one timer: a per-chunk deadline cost a third of the throughput.
 */
function guardedBody (source: Readable, idleMs: number, length: number): Readable {
  let left = length
  let lastProgress = performance.now()
  const body = new Transform({
    transform (chunk: Buffer, _encoding, done) {
      lastProgress = performance.now()
      if (chunk.length <= left) {
        left -= chunk.length
        return done(null, chunk)
      }
      // More than was asked: the rest is not read, and its connection not kept.
      const last = chunk.subarray(0, left)
      left = 0
      done(null, last)
      source.unpipe(body)
      source.destroy()
      body.end()
    },
    flush (done) {
      done(left > 0 ? new Error(`the store ended the body ${left} bytes short`) : null)
    }
  })
  const watchdog = setInterval(() => {
    if (!source.isPaused() && performance.now() - lastProgress > idleMs) body.destroy(new Error(`the store sent nothing for ${idleMs} ms`))
  }, Math.min(1000, idleMs / 4)).unref()
  source.on('resume', () => { lastProgress = performance.now() })
  source.on('error', (error) => body.destroy(error))
  body.on('close', () => {
    clearInterval(watchdog)
    // A body read to its end keeps its connection for the next request; one cut short does not.
    if (!source.readableEnded) source.destroy()
  })
  if (length === 0) body.end()
  else source.pipe(body)
  return body
}

/**
 * `sendsAsItArrives`: for bodies sent as they arrive from a client, which may be slow: one attempt
 * (a body cannot be sent twice), bounded by the connection's silence rather than by its length.
 */
export function createS3Client ({ region, endpoint, forcePathStyle, credentials, connectTimeoutMs = 3000, timeoutMs = 15_000 }: Omit<S3StoreOptions, 'bucket'>, sendsAsItArrives = false) {
  return new S3Client({
    region,
    endpoint,
    forcePathStyle,
    credentials,
    // S3-compatible stores do not all speak the newer default checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...sendsAsItArrives
      ? { maxAttempts: 1, requestHandler: new NodeHttpHandler({ connectionTimeout: connectTimeoutMs, socketTimeout: timeoutMs }) }
      // Without throwOnRequestTimeout the handler only logs a warning when requestTimeout passes.
      // It runs until the answer's headers: a streamed body is guarded by withIdleDeadline.
      : { requestHandler: new NodeHttpHandler({ connectionTimeout: connectTimeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true }) }
  })
}

export function createS3Store (options: S3StoreOptions): ObjectStore {
  const { bucket, timeoutMs = 15_000, idleTimeoutMs = 5000, partBytes = DEFAULT_PART_BYTES, log } = options
  const client = createS3Client(options)
  const signed = createSignedRequests(client, bucket, options.forcePathStyle)
  // A part sent as it arrives, whose one attempt may fail: the part is then sent again whole.
  const streamingClient = createS3Client(options, true)
  // The SDK retries, and each attempt has its own requestTimeout: one deadline bounds them all.
  const deadline = (ms = timeoutMs) => ({ abortSignal: AbortSignal.timeout(ms) })
  const copyDeadline = (bytes: number) => deadline(timeoutMs + Math.ceil(bytes / COPY_BYTES_PER_MS))

  async function head (key: string): Promise<ObjectMeta | undefined> {
    try {
      return { key, ...described((await signed.head(key, deadline().abortSignal)).headers) }
    } catch (error) {
      if (isNotFound(error)) return undefined
      throw error
    }
  }

  /** GetObject, given idleTimeoutMs to answer (a whole-operation deadline would also cut the body). */
  async function getObject (key: string, range?: ByteRange) {
    const answered = new AbortController()
    const timer = setTimeout(() => answered.abort(new Error(`the store did not answer within ${idleTimeoutMs} ms`)), idleTimeoutMs)
    try {
      const answer = await signed.get(key, range && rangeHeader(range), answered.signal)
      return { headers: answer.headers, body: answer.body as Readable }
    } finally {
      clearTimeout(timer)
    }
  }

  /**
   * When the store stamped an object it published between `sent` and now, without asking it (a
   * PutObject's answer has no Last-Modified): S3 keeps the time to the second, so a request within
   * one second of this instance's clock was stamped with that second. Across the turn of a second
   * (a request of a few milliseconds, now and then) a HEAD tells.
   */
  async function publishedAt (key: string, etag: string, sent: number): Promise<Date> {
    const second = Math.floor(sent / 1000) * 1000
    if (Date.now() - second < 1000) return new Date(second)
    const current = await head(key)
    return current?.etag === etag ? current.lastModified : new Date()
  }

  /** Publishes by `send`, which answers the ETag of what it stored at `key`. */
  async function published (key: string, size: number, contentType: string, send: () => Promise<string | undefined>): Promise<ObjectMeta> {
    const sent = Date.now()
    const etag = await send().catch((error) => { throw storeRefusal(error) }) ?? '""'
    return { key, size, contentType, etag, lastModified: await publishedAt(key, etag, sent) }
  }

  /** One PutObject of a body already in memory, signed by hand (storage/s3-signed.ts). */
  const putWhole = (key: string, body: Buffer, contentType: string, expected?: Expected) => published(key, body.length, contentType, async () =>
    (await signed.put(key, body, { 'content-type': contentType, ...conditionHeaders(expected) }, deadline().abortSignal)).headers.etag)

  async function abortUpload (key: string, uploadId: string) {
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }), deadline()).catch((abortError) => {
      log?.warn({ err: abortError, uploadId }, 'the store refused to abort an unfinished multipart upload')
    })
  }

  /** A copy made by the store when published: CopyObject of the version `source` names. */
  function copyObject (source: ObjectMeta, to: string, contentType?: string): StagedObject {
    return {
      async publish () {
        const answer = await client.send(new CopyObjectCommand({
          Bucket: bucket, Key: to, CopySource: copySource(bucket, source.key), CopySourceIfMatch: source.etag,
          ...(contentType === undefined ? { MetadataDirective: 'COPY' } : { MetadataDirective: 'REPLACE', ContentType: contentType })
        }), copyDeadline(source.size)).catch((error) => {
          if (isNotFound(error) || storeRefusal(error) !== error) throw new PreconditionFailedError('the file changed while it was copied')
          throw error
        })
        const copied = answer.CopyObjectResult
        return { ...source, key: to, etag: copied?.ETag ?? source.etag, lastModified: copied?.LastModified ?? new Date(), contentType: contentType ?? source.contentType }
      },
      async discard () {}
    }
  }

  /** An object larger than CopyObject takes, copied in parts (UploadPartCopy) now, and completed when published. */
  async function copyInParts (source: ObjectMeta, to: string, contentType = source.contentType): Promise<StagedObject> {
    const copyFrom = { Bucket: bucket, Key: to, CopySource: copySource(bucket, source.key), CopySourceIfMatch: source.etag }
    const uploadId = await multipart.create(to, contentType)
    try {
      const parts: CompletedPart[] = []
      const window = partWindow()
      for (let start = 0; start < source.size; start += COPY_PART_BYTES) {
        const PartNumber = parts.length + 1
        const end = Math.min(start + COPY_PART_BYTES, source.size) - 1
        parts.push({ PartNumber })
        await window.add(client.send(new UploadPartCopyCommand({ ...copyFrom, UploadId: uploadId, PartNumber, CopySourceRange: `bytes=${start}-${end}` }),
          copyDeadline(end - start + 1)).then((answer) => { parts[PartNumber - 1].ETag = answer.CopyPartResult?.ETag }))
      }
      await window.drain()
      return multipartObject(to, uploadId, parts, source.size, contentType)
    } catch (error) {
      await abortUpload(to, uploadId)
      if (isNotFound(error) || storeRefusal(error) !== error) throw new PreconditionFailedError('the file changed while it was copied')
      throw error
    }
  }

  /** A multipart upload whose parts are all sent, published by CompleteMultipartUpload. */
  function multipartObject (key: string, uploadId: string, parts: CompletedPart[], size: number, contentType: string, abortOnDiscard = true): StagedObject {
    return {
      publish: (expected) => published(key, size, contentType, () => multipart.complete(key, uploadId, parts, expected)),
      discard: async () => { if (abortOnDiscard) await abortUpload(key, uploadId) }
    }
  }

  /** The three steps of a multipart upload, for a write in one request and for a staged one. */
  const multipart = {
    create: async (key: string, contentType: string) =>
      (await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType }), deadline())).UploadId as string,
    uploadPart: async (key: string, uploadId: string, number: number, part: Buffer) => (await client.send(new UploadPartCommand({
      Bucket: bucket, Key: key, UploadId: uploadId, PartNumber: number, Body: part, ContentLength: part.length
    }), deadline())).ETag as string,
    streamPart (key: string, uploadId: string, number: number, size: number): StreamedPart {
      const body = new PassThrough()
      const cancel = new AbortController()
      const sent = streamingClient.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber: number, Body: body, ContentLength: size }),
        { abortSignal: cancel.signal }).then((answer) => answer.ETag as string)
      let failed = false
      const settled = sent.then(() => {}, () => { failed = true })
      return {
        size,
        async write (bytes) {
          if (failed) return
          if (!body.write(bytes)) await Promise.race([once(body, 'drain').catch(() => {}), settled])
        },
        end () {
          body.end()
          return sent
        },
        abort () {
          cancel.abort()
          body.destroy()
        }
      }
    },
    complete: async (key: string, uploadId: string, parts: CompletedPart[], expected: Expected) =>
      (await client.send(new CompleteMultipartUploadCommand({
        Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts }, ...storeConditions(expected)
      }), deadline())).ETag
  }

  /** The parts of a body sent as a multipart upload, to complete when published. */
  async function sendParts (key: string, parts: AsyncIterable<Buffer>, contentType: string): Promise<StagedObject> {
    const uploadId = await multipart.create(key, contentType)
    try {
      const completed: CompletedPart[] = []
      const window = partWindow()
      let size = 0
      for await (const part of parts) {
        const PartNumber = completed.length + 1
        completed.push({ PartNumber })
        size += part.length
        await window.add(multipart.uploadPart(key, uploadId, PartNumber, part).then((ETag) => { completed[PartNumber - 1].ETag = ETag }))
      }
      await window.drain()
      return multipartObject(key, uploadId, completed, size, contentType)
    } catch (error) {
      // A real S3 keeps the parts of an unfinished upload (and bills them) until it is aborted.
      await abortUpload(key, uploadId)
      throw error
    }
  }

  const staged = createS3StagedWrites({
    partBytes,
    begin: multipart.create,
    uploadPart: multipart.uploadPart,
    streamPart: multipart.streamPart,
    completion: (key, uploadId, parts, size, contentType) => multipartObject(key, uploadId, parts, size, contentType, false),
    putEmpty: (key, contentType, expected) => putWhole(key, Buffer.alloc(0), contentType, expected),
    abort: abortUpload,
    readTail: async (tailKey, bytes) => {
      const answer = await getObject(tailKey, { start: 0, end: bytes - 1 })
      return guardedBody(answer.body, idleTimeoutMs, bytes)
    },
    putTail: async (tailKey, bytes) => { await putWhole(tailKey, bytes, 'application/octet-stream') },
    deleteTail: async (tailKey) => { await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: tailKey }), deadline()) }
  })

  const nativeParts: NativeParts = {
    begin: multipart.create,
    async upload (key, uploadId, partNumber, body, length) {
      const part = multipart.streamPart(key, uploadId, partNumber, length)
      let sent = 0
      try {
        for await (const chunk of body) {
          sent += chunk.length
          if (sent > length) break
          await part.write(chunk)
        }
        if (sent !== length) throw new BadRequestError(`the part had ${sent > length ? 'more' : 'fewer'} bytes than the ${length} its length said`)
        return await part.end()
      } catch (error) {
        part.abort()
        throw error
      }
    },
    completion: (key, uploadId, parts, size, contentType) =>
      multipartObject(key, uploadId, parts.map(({ partNumber, etag }) => ({ PartNumber: partNumber, ETag: etag })), size, contentType, false),
    abort: abortUpload
  }

  return {
    head,
    writeBufferBytes: PART_BUFFERS * partBytes,
    staged,
    nativeParts,

    async presign (key: string, { expiresInSeconds, served }: PresignRequest) {
      const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner')
      const command = new GetObjectCommand({ Bucket: bucket, Key: key, ResponseContentType: served.contentType, ResponseContentDisposition: served.disposition })
      return getSignedUrl(client, command, { expiresIn: expiresInSeconds })
    },

    async list (prefix: string, { startAfter, limit, delimiter }: ListOptions) {
      // After a folder, S3 names that folder again (its keys sort after it): one more is asked for, and it is left out.
      const answer = await client.send(new ListObjectsV2Command({
        Bucket: bucket, Prefix: prefix, StartAfter: startAfter, MaxKeys: delimiter ? limit + 1 : limit, Delimiter: delimiter
      }), deadline())
      const objects = (answer.Contents ?? []).map((object) => ({
        key: object.Key as string,
        size: object.Size ?? 0,
        lastModified: object.LastModified ?? new Date(0),
        etag: object.ETag ?? '""'
      }))
      if (!delimiter) return { objects, isTruncated: answer.IsTruncated === true }
      // S3 counts folders in MaxKeys and starts them after StartAfter; s3rver (and perhaps other
      // stores) names every folder every time: only those inside this page's range are kept.
      const lastObject = answer.IsTruncated === true ? objects.at(-1)?.key : undefined
      const folders = (answer.CommonPrefixes ?? []).map((common) => common.Prefix as string)
        .filter((folder) => (startAfter === undefined || compareKeys(folder, startAfter) > 0) && (lastObject === undefined || compareKeys(folder, lastObject) < 0))
      const entries = [...objects.map((object) => ({ key: object.key, object })), ...folders.map((key) => ({ key, object: undefined }))]
        .sort((a, b) => compareKeys(a.key, b.key))
      const shown = entries.slice(0, limit)
      return {
        objects: shown.flatMap((entry) => entry.object ? [entry.object] : []),
        folders: shown.filter((entry) => !entry.object).map((entry) => entry.key),
        isTruncated: answer.IsTruncated === true || entries.length > limit
      }
    },

    async read (key: string, request?: RangeRequest): Promise<ObjectRead | undefined> {
      let range: ByteRange | undefined
      if (request && 'suffix' in request) {
        // Sent as a first and last byte: not every S3-compatible store knows suffix ranges.
        const current = await head(key)
        if (!current) return undefined
        range = resolveRange(request, current.size)
      } else if (request) {
        range = { start: request.start, end: request.end ?? Infinity }
      }
      let answer
      try {
        answer = await getObject(key, range)
      } catch (error) {
        if (isNotFound(error)) return undefined
        if (errorName(error) === 'InvalidRange' || statusOf(error) === 416) {
          const current = await head(key)
          if (!current) return undefined
          throw new RangeNotSatisfiableError(current.size)
        }
        throw error
      }
      const contentRange = answer.headers['content-range']
      const served = parseContentRange(contentRange)
      const meta = described(answer.headers)
      const size = served?.size ?? meta.size
      if (range && served?.range.start !== range.start) {
        answer.body.destroy()
        throw new Error(`the store answered ${contentRange ?? 'the whole object'} for bytes ${range.start}-${range.end}`)
      }
      if (range) range = { start: range.start, end: Math.min(range.end, size - 1) }
      return {
        key,
        ...meta,
        size,
        range,
        body: guardedBody(answer.body, idleTimeoutMs, range ? range.end - range.start + 1 : size)
      }
    },

    async stage (key: string, body: Bytes, { contentType, maxBytes }: StageOptions) {
      const inMemory = Array.isArray(body) && body.length === 1 && body[0].length <= maxBytes ? body[0] as Buffer : undefined
      const start = inMemory ? { whole: inMemory } : await firstPart(limitBytes(body, maxBytes), partBytes)
      const parts = 'whole' in start ? slicesOf(start.whole, partBytes) : partsOf(start.rest, partBytes)
      const first = await parts.next()
      const second = await parts.next()
      if (second.done) {
        const whole = first.value as Buffer
        return { publish: (expected) => putWhole(key, whole, contentType, expected), discard: async () => {} } satisfies StagedObject
      }
      async function * all () {
        yield first.value as Buffer
        yield second.value as Buffer
        yield * parts
      }
      return sendParts(key, all(), contentType)
    },

    stageCopy: async (source: ObjectMeta, to: string, { contentType }: CopyOptions = {}) =>
      source.size <= MAX_COPY_OBJECT_BYTES ? copyObject(source, to, contentType) : copyInParts(source, to, contentType),

    async delete (key: string) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }), deadline())
    },

    async check () {
      await client.send(new HeadBucketCommand({ Bucket: bucket }), deadline())
    },

    async close () {
      client.destroy()
      streamingClient.destroy()
    }
  }
}
