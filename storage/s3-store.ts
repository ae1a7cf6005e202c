import {
  DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client
} from '@aws-sdk/client-s3'
import { NodeHttpHandler } from '@smithy/node-http-handler'
import type { ListOptions, ObjectStore } from './object-store.js'

export interface S3StoreOptions {
  bucket: string
  region: string
  endpoint?: string
  forcePathStyle?: boolean
  /** Defaults to the AWS default provider chain. */
  credentials?: { accessKeyId: string, secretAccessKey: string, sessionToken?: string }
  connectTimeoutMs?: number
  /** Longest one operation may take, its retries included. */
  timeoutMs?: number
}

// Not a 404 status alone: a missing bucket is the store's failure, not a missing file.
const isNotFound = (error: unknown) => ['NoSuchKey', 'NotFound'].includes((error as { name?: string }).name ?? '')

export function createS3Client ({ region, endpoint, forcePathStyle, credentials, connectTimeoutMs = 3000, timeoutMs = 15_000 }: Omit<S3StoreOptions, 'bucket'>) {
  return new S3Client({
    region,
    endpoint,
    forcePathStyle,
    credentials,
    // S3-compatible stores do not all speak the newer default checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Without throwOnRequestTimeout the handler only logs a warning when requestTimeout passes.
    requestHandler: new NodeHttpHandler({ connectionTimeout: connectTimeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true })
  })
}

export function createS3Store (options: S3StoreOptions): ObjectStore {
  const { bucket, timeoutMs = 15_000 } = options
  const client = createS3Client(options)
  // The SDK retries, and each attempt has its own requestTimeout: one deadline bounds them all.
  const deadline = () => ({ abortSignal: AbortSignal.timeout(timeoutMs) })

  async function head (key: string) {
    try {
      const answer = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), deadline())
      return { key, size: answer.ContentLength ?? 0, lastModified: answer.LastModified ?? new Date() }
    } catch (error) {
      if (isNotFound(error)) return undefined
      throw error
    }
  }

  return {
    head,

    async list (prefix: string, { startAfter, limit }: ListOptions) {
      const answer = await client.send(new ListObjectsV2Command({
        Bucket: bucket, Prefix: prefix, StartAfter: startAfter, MaxKeys: limit
      }), deadline())
      return {
        objects: (answer.Contents ?? []).map((object) => ({
          key: object.Key as string,
          size: object.Size ?? 0,
          lastModified: object.LastModified ?? new Date(0)
        })),
        isTruncated: answer.IsTruncated === true
      }
    },

    async get (key: string) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), deadline())
        const body = Buffer.from(await answer.Body!.transformToByteArray())
        return {
          key,
          body,
          size: body.length,
          contentType: answer.ContentType ?? 'application/octet-stream',
          lastModified: answer.LastModified ?? new Date()
        }
      } catch (error) {
        if (isNotFound(error)) return undefined
        throw error
      }
    },

    async put (key: string, body: Buffer, contentType: string) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }), deadline())
      return (await head(key)) ?? { key, size: body.length, lastModified: new Date() }
    },

    async delete (key: string) {
      // S3 deletes are idempotent; the API promises 404 for a missing file, so look first.
      if (!(await head(key))) return false
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }), deadline())
      return true
    },

    async check () {
      await client.send(new HeadBucketCommand({ Bucket: bucket }), deadline())
    },

    async close () {
      client.destroy()
    }
  }
}
