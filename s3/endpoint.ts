import { randomBytes } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyPluginCallback, type FastifyReply, type FastifyRequest } from 'fastify'
import type { Owner } from '../db/usage.js'
import type { S3MetadataRepository } from '../db/s3-metadata.js'
import { metadataOf } from './metadata.js'
import type { Metrics } from '../metrics/metrics.js'
import { metricsPlugin } from '../plugins/metrics.js'
import { lingerBeforeClose } from '../plugins/errors.js'
import type { AddressFailureLimit } from '../http/decorators.js'
import { createMemory } from '../limits.js'
import { ConflictError, NotFoundError } from '../errors.js'
import type { FileService } from '../storage/files.js'
import type { Multipart } from '../storage/multipart.js'
import { completeUpload, createUpload, listParts, listUploads, multipartError, uploadPart, uploadPartCopy } from './multipart.js'
import { bucketConfiguration, bucketExists, bucketOf, checkBucketName, listBuckets, listObjects, maxKeysOf } from './buckets.js'
import type { S3Credentials } from './credentials.js'
import { invalidArgument, noSuchBucket, notImplemented, S3Error, s3ErrorOf } from './errors.js'
import { CURRENT, deleteVersion, listVersions, readVersion } from './versions.js'
import { contentTypeOf, quoteEtags, copyObject, deleteObject, deleteObjects, getObject, headObject, putObject, uploadOf, xmlBody } from './objects.js'
import { readSignature } from './sigv4.js'
import { errorDocument, xmlDocument, type XmlNode } from './xml.js'

export interface S3EndpointOptions {
  files: FileService
  /** x-amz-meta-* of the objects written here. */
  metadata: S3MetadataRepository
  multipart: Multipart
  credentials: S3Credentials
  /** The region clients sign for (S3_API_REGION). */
  region: string
  /** With it, `bucket.domain` is virtual-hosted style (S3_API_DOMAIN). */
  domain?: string
  /** Whether versions are kept (GetBucketVersioning says Enabled). */
  versioning: boolean
  /** The failure limits of the authentication chain, per client address. */
  failures: AddressFailureLimit
  logger: FastifyBaseLogger
  idleTimeoutMs: number
  /** The service's metrics: the endpoint's requests are counted as the API's are (routes `/` and `/*`). */
  metrics?: Metrics
  /** @fastify/otel's plugin, when traces are on: a span per request, its store and database calls below it. */
  tracing?: FastifyPluginCallback
}

/** The bucket and key a request names: `bucket.domain/key` (virtual-hosted) or `/bucket/key` (path style). */
function addressed (request: FastifyRequest, domain: string | undefined): { bucket?: string, key?: string } {
  const path = request.url.split('?', 1)[0]
  const given = String(request.headers.host ?? '').toLowerCase()
  // The port is part of the name only when the domain names one.
  const host = domain?.includes(':') ? given : given.replace(/:\d+$/, '')
  let decoded: string
  try {
    decoded = decodeURIComponent(path)
  } catch {
    throw new S3Error('InvalidURI', 400, 'Couldn\'t parse the specified URI.')
  }
  if (domain && host !== domain && host.endsWith(`.${domain}`)) {
    return { bucket: host.slice(0, -domain.length - 1), key: decoded.slice(1) || undefined }
  }
  const [, bucket = '', ...rest] = decoded.split('/')
  return { bucket: bucket || undefined, key: rest.length > 0 && rest.join('/') !== '' ? rest.join('/') : undefined }
}

/**
 * The S3 protocol on a listener of its own: a user's buckets are the top-level folders of their
 * root, keys the paths below. A thin front end: every operation is the file API's, so isolation,
 * quotas, the trash, versions and the journal hold as they do on /api.
 */
export async function buildS3Endpoint ({ files, metadata, multipart, credentials, region, domain, versioning, failures, logger, idleTimeoutMs, metrics, tracing }: S3EndpointOptions) {
  // Request ids as S3 writes them (16 upper-case hex digits): this process's own start, then a count.
  const idPrefix = randomBytes(3).toString('hex').toUpperCase()
  let requests = 0
  const app = Fastify({
    loggerInstance: logger.child({ endpoint: 's3' }),
    genReqId: () => idPrefix + (requests++ % 0x10000000000).toString(16).toUpperCase().padStart(10, '0'),
    connectionTimeout: idleTimeoutMs,
    requestTimeout: 0,
    // Keys are case-sensitive and may end in "/": the path is read as it came.
    routerOptions: { ignoreTrailingSlash: false, caseSensitive: true }
  })
  if (tracing) await app.register(tracing)
  if (metrics) await app.register(metricsPlugin, { metrics })
  // The body is the object, or a small XML document: read by the operation, never parsed before.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, _payload, done) => done(null))

  app.setErrorHandler(async (error, request, reply) => {
    const s3 = s3ErrorOf(multipartError(error), (request as FastifyRequest & { s3Key?: string }).s3Key)
    // A refusal (501 included: an operation this server does not serve) is not an error of ours.
    if (s3.status >= 500 && s3.status !== 501 && s3.status !== 503) request.log.error({ err: error }, 'S3 request failed')
    else if (s3.status >= 500) request.log.info({ code: s3.code, reason: s3.message }, 'S3 request refused')
    // Refused before its body was read whole: the rest is dropped for a moment, then the connection closed.
    if (!request.raw.complete) lingerBeforeClose(request.raw)
    const resource = request.url.split('?', 1)[0]
    reply.code(s3.status).header('content-type', 'application/xml').header('x-amz-request-id', request.id)
    // A HEAD answer has no body: the status says it.
    if (request.method === 'HEAD') return reply.send()
    return reply.send(errorDocument({ Code: s3.code, Message: s3.message, ...s3.extra, Resource: resource, RequestId: request.id }))
  })

  // Buckets of one's own seen to exist, so that a write into one asks the store once a minute, not
  // per write: a bucket deleted on another instance may take a write here (making it again) within
  // that minute. A mount's bucket is asked for each time: it ends with its share, at once (DESIGN §13).
  const knownBuckets = createMemory<true>(10_000)
  const BUCKET_MEMORY_MS = 60_000
  async function requireBucketFor (userId: string, bucket: string) {
    const memo = `${userId}\n${bucket}`
    if (knownBuckets.get(memo)) return
    const found = await bucketOf(files, userId, bucket)
    if (!found) throw noSuchBucket(bucket)
    if (found === 'own') knownBuckets.set(memo, true, Date.now() + BUCKET_MEMORY_MS)
  }
  const forgetBucket = (userId: string, bucket: string) => knownBuckets.set(`${userId}\n${bucket}`, true, 0)

  // Access keys that signed a request correctly here: their requests ask the database only for the
  // key itself, the address's failures being those this instance knows (each failure, counted in the
  // database, tells it the total).
  const signedCorrectly = createMemory<true>(10_000)

  /** Who signed the request, checked: counts a wrong signature or key against the address, as the chain does. */
  async function signerOf (request: FastifyRequest) {
    const signed = readSignature({ method: request.method, url: request.url, headers: request.headers }, { region })
    const wait = signedCorrectly.get(signed.accessKeyId) ? failures.known(request.ip) : await failures.wait(request.ip)
    if (wait > 0) throw new S3Error('SlowDown', 503, 'Too many failed authentications from this address; wait and try again.')
    try {
      const signer = await credentials.signer(signed.accessKeyId, signed.sessionToken)
      if (!signer) throw new S3Error('InvalidAccessKeyId', 403, 'The AWS Access Key Id you provided does not exist in our records.', { AWSAccessKeyId: signed.accessKeyId })
      const key = signed.verify(signer.secretAccessKey)
      signedCorrectly.set(signed.accessKeyId, true)
      return { signed, signer, key }
    } catch (error) {
      await failures.fail(request.ip).catch(() => {})
      throw error
    }
  }

  const sendXml = (reply: FastifyReply, root: string, node: XmlNode | string, status = 200) =>
    reply.code(status).header('content-type', 'application/xml').send(xmlDocument(root, node))

  async function handle (request: FastifyRequest, reply: FastifyReply) {
    reply.header('x-amz-request-id', request.id)
    const { signed, signer, key: signingKey } = await signerOf(request)
    quoteEtags(request.headers)
    const owner: Owner = { userId: signer.userId, orgId: signer.orgId }
    const { userId } = owner
    const { query } = signed
    const { bucket, key } = addressed(request, domain)
    const method = request.method
    ;(request as FastifyRequest & { s3Key?: string }).s3Key = key

    if (bucket === undefined) {
      if (method === 'GET') return sendXml(reply, 'ListAllMyBucketsResult', await listBuckets(files, userId))
      throw new S3Error('MethodNotAllowed', 405, 'The specified method is not allowed against this resource.')
    }
    if (key === undefined) {
      if (method === 'PUT' && [...query.keys()].length === 0) {
        checkBucketName(bucket)
        await files.makeFolder(userId, bucket).catch((error: unknown) => {
          if (error instanceof ConflictError) throw new S3Error('BucketAlreadyExists', 409, 'The requested bucket name is not available.', { BucketName: bucket })
          throw error
        })
        return reply.header('location', `/${bucket}`).send()
      }
      if (method === 'HEAD') {
        if (!await bucketExists(files, userId, bucket)) throw noSuchBucket(bucket)
        return reply.header('x-amz-bucket-region', region).send()
      }
      await requireBucketFor(userId, bucket)
      if (method === 'DELETE' && [...query.keys()].length === 0) {
        forgetBucket(userId, bucket)
        await files.removeFolder(userId, bucket).catch((error: unknown) => {
          if (error instanceof ConflictError) throw new S3Error('BucketNotEmpty', 409, 'The bucket you tried to delete is not empty', { BucketName: bucket })
          if (error instanceof NotFoundError) return
          throw error
        })
        return reply.code(204).send()
      }
      if (method === 'POST' && query.has('delete')) return sendXml(reply, 'DeleteResult', await deleteObjects(files, userId, bucket, await xmlBody(request, signed, signingKey, 'Delete'), (key, id) => deleteVersion(files, userId, bucket, key, id), signer.skipTrash))
      if (method !== 'GET') throw notImplemented(`${method} on a bucket with ${[...query.keys()].join(', ') || 'no sub-resource'}`)
      const configuration = bucketConfiguration(query, userId, bucket)
      if (configuration) return sendXml(reply, configuration.root, configuration.node)
      if (query.has('location')) return sendXml(reply, 'LocationConstraint', region === 'us-east-1' ? '' : region)
      if (query.has('versioning')) return sendXml(reply, 'VersioningConfiguration', versioning ? { Status: 'Enabled' } : {})
      if (query.has('uploads')) return sendXml(reply, 'ListMultipartUploadsResult', await listUploads(multipart, userId, bucket, query))
      if (query.has('versions')) return sendXml(reply, 'ListVersionsResult', await listVersions(files, userId, bucket, query))
      const v2 = query.get('list-type') === '2'
      const urlEncoded = query.get('encoding-type') === 'url'
      if (query.has('encoding-type') && !urlEncoded) throw invalidArgument('Invalid Encoding Method specified in Request')
      // As S3 encodes: a slash stays, a space is %20.
      const shown = (text: string) => urlEncoded ? encodeURIComponent(text).replace(/%2F/g, '/') : text
      const prefix = query.get('prefix') ?? ''
      // An empty delimiter is none.
      const delimiter = query.get('delimiter') || undefined
      const maxKeys = maxKeysOf(query.get('max-keys') ?? undefined)
      const token = query.get('continuation-token')
      let after: string | undefined
      if (v2 && token !== null) {
        after = Buffer.from(token, 'base64url').toString('utf8')
        if (!after || Buffer.from(after).toString('base64url') !== token) throw invalidArgument('The continuation token provided is incorrect')
      } else after = (v2 ? query.get('start-after') : query.get('marker')) || undefined
      const page = await listObjects(files, userId, bucket, { prefix, delimiter, maxKeys, after })
      const contents = page.contents.map((object) => ({ Key: shown(object.key), LastModified: object.lastModified, ETag: object.etag, Size: object.size, StorageClass: 'STANDARD' }))
      const common = page.prefixes.map((Prefix) => ({ Prefix: shown(Prefix) }))
      const shared = { Name: bucket, Prefix: shown(prefix), Delimiter: delimiter && shown(delimiter), MaxKeys: maxKeys, EncodingType: urlEncoded ? 'url' : undefined, IsTruncated: page.isTruncated }
      if (v2) {
        return sendXml(reply, 'ListBucketResult', {
          ...shared, KeyCount: contents.length + common.length, ContinuationToken: token ?? undefined, StartAfter: query.get('start-after') ?? undefined,
          NextContinuationToken: page.isTruncated && page.next ? Buffer.from(page.next).toString('base64url') : undefined, Contents: contents, CommonPrefixes: common
        })
      }
      return sendXml(reply, 'ListBucketResult', {
        ...shared, Marker: query.get('marker') ?? '', NextMarker: page.isTruncated && delimiter ? page.next && shown(page.next) : undefined, Contents: contents, CommonPrefixes: common
      })
    }

    if (query.has('uploadId')) {
      if (method === 'PUT' && request.headers['x-amz-copy-source'] !== undefined) return sendXml(reply, 'CopyPartResult', await uploadPartCopy(multipart, files, owner, query, request))
      if (method === 'PUT') return reply.header('etag', await uploadPart(multipart, owner, query, uploadOf(request, signed, signingKey))).send()
      if (method === 'POST') return sendXml(reply, 'CompleteMultipartUploadResult', await completeUpload(multipart, owner, bucket, key, query, request, await xmlBody(request, signed, signingKey, 'CompleteMultipartUpload')))
      if (method === 'DELETE') {
        await multipart.abort(userId, query.get('uploadId')!)
        return reply.code(204).send()
      }
      if (method === 'GET') return sendXml(reply, 'ListPartsResult', await listParts(multipart, userId, bucket, key, query))
    }
    if (method === 'POST' && query.has('uploads')) {
      await requireBucketFor(userId, bucket)
      return sendXml(reply, 'InitiateMultipartUploadResult', await createUpload(multipart, owner, bucket, key, contentTypeOf(request), metadataOf(request.headers)))
    }
    if (['uploads', 'uploadId', 'partNumber', 'tagging', 'acl', 'retention', 'legal-hold', 'attributes', 'torrent', 'restore', 'select'].some((name) => query.has(name))) {
      throw notImplemented(`${method} with ${[...query.keys()].filter((name) => !name.startsWith('X-Amz-')).join(', ')}`)
    }
    const versionId = query.get('versionId')
    if (versionId !== null && versionId !== CURRENT) {
      if (method === 'GET' || method === 'HEAD') return readVersion(files, userId, bucket, key, versionId, request, reply)
      if (method === 'DELETE') {
        await deleteVersion(files, userId, bucket, key, versionId)
        return reply.header('x-amz-version-id', versionId).code(204).send()
      }
    }
    if (method === 'GET') return getObject(files, metadata, userId, bucket, key, request, reply, query)
    if (method === 'HEAD') return headObject(files, metadata, userId, bucket, key, request, reply)
    if (method === 'DELETE') return deleteObject(files, userId, bucket, key, request, reply, signer.skipTrash)
    if (method === 'PUT') {
      // Into a bucket that exists only, as S3: a typo in a bucket's name makes no new bucket.
      await requireBucketFor(userId, bucket)
      if (request.headers['x-amz-copy-source'] !== undefined) return sendXml(reply, 'CopyObjectResult', await copyObject(files, metadata, owner, bucket, key, request))
      return putObject(files, metadata, owner, bucket, key, request, reply, uploadOf(request, signed, signingKey))
    }
    throw new S3Error('MethodNotAllowed', 405, 'The specified method is not allowed against this resource.')
  }

  app.route({ method: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'], url: '/*', exposeHeadRoute: false, handler: handle })
  app.route({ method: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'], url: '/', exposeHeadRoute: false, handler: handle })
  return app
}

