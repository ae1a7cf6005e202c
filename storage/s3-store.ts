import {
  DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client
} from '@aws-sdk/client-s3'
import type { ListOptions, ObjectStore } from './object-store.js'

export interface S3StoreOptions {
  bucket: string
  region: string
  endpoint?: string
  forcePathStyle?: boolean
  /** Defaults to the AWS default provider chain. */
  credentials?: { accessKeyId: string, secretAccessKey: string, sessionToken?: string }
}

const isNotFound = (error: unknown) => {
  const { name, $metadata } = error as { name?: string, $metadata?: { httpStatusCode?: number } }
  return name === 'NoSuchKey' || name === 'NotFound' || $metadata?.httpStatusCode === 404
}

export function createS3Client ({ region, endpoint, forcePathStyle, credentials }: Omit<S3StoreOptions, 'bucket'>) {
  return new S3Client({
    region,
    endpoint,
    forcePathStyle,
    credentials,
    // S3-compatible stores do not all speak the newer default checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED'
  })
}

export function createS3Store (options: S3StoreOptions): ObjectStore {
  const { bucket } = options
  const client = createS3Client(options)

  async function head (key: string) {
    try {
      const answer = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))
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
      }))
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
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))
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
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }))
      return (await head(key)) ?? { key, size: body.length, lastModified: new Date() }
    },

    async delete (key: string) {
      // S3 deletes are idempotent; the API promises 404 for a missing file, so look first.
      if (!(await head(key))) return false
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }))
      return true
    },

    async close () {
      client.destroy()
    }
  }
}
