import type { FileService } from '../storage/files.js'
import { encodeContinuationToken } from '../storage/paths.js'
import { invalidArgument, notImplemented, S3Error } from './errors.js'
import type { XmlNode } from './xml.js'

// S3's bucket names: 3 to 63 lower-case letters, digits, dots and hyphens, a letter or digit at each end, not an IP address.
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/
export const isBucketName = (name: string) => BUCKET_NAME.test(name) && !/^\d+\.\d+\.\d+\.\d+$/.test(name) && !name.includes('..')

export function checkBucketName (name: string) {
  if (!isBucketName(name)) throw new S3Error('InvalidBucketName', 400, 'The specified bucket is not valid.', { BucketName: name })
}

/** Whether the user's root holds the folder `bucket`: a file under it, or the folder made on purpose. */
export async function bucketExists (files: FileService, userId: string, bucket: string): Promise<boolean> {
  return await bucketOf(files, userId, bucket) !== undefined
}

/** What a bucket is to its caller: a folder of their own, one shared with them, or nothing. */
export async function bucketOf (files: FileService, userId: string, bucket: string): Promise<'own' | 'shared' | undefined> {
  return isBucketName(bucket) ? await files.topFolder(userId, bucket) : undefined
}

/** ListBuckets: the top-level folders whose names are bucket names. */
export async function listBuckets (files: FileService, userId: string): Promise<XmlNode> {
  const names: string[] = []
  let continuationToken: string | undefined
  do {
    const page = await files.list(userId, { delimiter: '/', continuationToken })
    for (const folder of page.folders ?? []) if (isBucketName(folder.slice(0, -1))) names.push(folder.slice(0, -1))
    continuationToken = page.continuationToken
  } while (continuationToken)
  // Dated when made (CreateBucket, a folder made in any front end, or the first file put in it);
  // one the index has no time for is dated now.
  const now = new Date()
  const made = await files.folderDates(userId, names)
  return { Owner: { ID: userId, DisplayName: userId }, Buckets: { Bucket: names.map((Name, index) => ({ Name, CreationDate: (made[index] ?? now).toISOString() })) } }
}

// A bucket's configurations this server keeps none of: S3's answer for "none configured".
const NONE_CONFIGURED: Record<string, [string, string]> = {
  policy: ['NoSuchBucketPolicy', 'The bucket policy does not exist'],
  encryption: ['ServerSideEncryptionConfigurationNotFoundError', 'The server side encryption configuration was not found'],
  cors: ['NoSuchCORSConfiguration', 'The CORS configuration does not exist'],
  tagging: ['NoSuchTagSet', 'The TagSet does not exist'],
  lifecycle: ['NoSuchLifecycleConfiguration', 'The lifecycle configuration does not exist'],
  website: ['NoSuchWebsiteConfiguration', 'The specified bucket does not have a website configuration'],
  replication: ['ReplicationConfigurationNotFoundError', 'The replication configuration was not found'],
  'object-lock': ['ObjectLockConfigurationNotFoundError', 'Object Lock configuration does not exist for this bucket']
}
const NOT_SERVED = ['logging', 'notification', 'requestPayment', 'accelerate', 'analytics', 'metrics', 'inventory', 'intelligent-tiering', 'ownershipControls', 'publicAccessBlock', 'policyStatus']

/**
 * A GET of a bucket's sub-resource that is not its listing: S3's "none configured" error, the owner's
 * full control for `?acl`, NotImplemented for the rest; undefined when the request is a listing.
 */
export function bucketConfiguration (query: URLSearchParams, userId: string, bucket: string): { root: string, node: XmlNode } | undefined {
  if (query.has('acl')) {
    const owner = { ID: userId, DisplayName: userId }
    return { root: 'AccessControlPolicy', node: { Owner: owner, AccessControlList: { Grant: { Grantee: owner, Permission: 'FULL_CONTROL' } } } }
  }
  for (const [name, [code, message]] of Object.entries(NONE_CONFIGURED)) {
    if (query.has(name)) throw new S3Error(code, 404, message, { BucketName: bucket })
  }
  const notServed = NOT_SERVED.find((name) => query.has(name))
  if (notServed) throw notImplemented(`GET of a bucket's ${notServed}`)
  return undefined
}

export interface ListQuery {
  prefix: string
  delimiter?: string
  maxKeys: number
  /** Keys after this one (start-after, marker, or a continuation token's key), relative to the bucket. */
  after?: string
}

export function maxKeysOf (value: string | undefined): number {
  if (value === undefined) return 1000
  if (!/^\d{1,9}$/.test(value)) throw invalidArgument('max-keys must be an integer from 0 to 1000')
  return Math.min(Number(value), 1000)
}

/**
 * A page of the bucket's objects (and, with the delimiter `/`, its common prefixes), in key order,
 * at most `maxKeys` of both together, read from the file API's pages.
 */
export async function listObjects (files: FileService, userId: string, bucket: string, { prefix, delimiter, maxKeys, after }: ListQuery) {
  if (delimiter !== undefined && delimiter !== '' && delimiter !== '/') throw invalidArgument('only "/" is supported as a delimiter')
  const oneLevel = delimiter === '/'
  const contents: Array<{ key: string, size: number, lastModified: string, etag: string }> = []
  const prefixes: string[] = []
  let continuationToken = after === undefined ? undefined : encodeContinuationToken(`${bucket}/${after}`)
  let isTruncated = false
  let more = true
  while (more && contents.length + prefixes.length < maxKeys) {
    const room = maxKeys - contents.length - prefixes.length
    const page = await files.list(userId, { prefix: `${bucket}/${prefix}`, continuationToken, pageSize: room, ...oneLevel ? { delimiter: '/' } : {} })
    const entries = [
      ...page.files.map((file) => ({ at: file.key, file })),
      ...oneLevel ? (page.folders ?? []).map((folder) => ({ at: folder, file: undefined })) : []
    ].sort((a, b) => a.at < b.at ? -1 : a.at > b.at ? 1 : 0)
    for (const { at, file } of entries.slice(0, room)) {
      if (file) contents.push({ ...file, key: at.slice(bucket.length + 1) })
      else prefixes.push(at.slice(bucket.length + 1))
    }
    if (entries.length > room) isTruncated = true
    more = !isTruncated && page.isTruncated
    continuationToken = page.continuationToken
  }
  isTruncated ||= more
  const last = [contents.at(-1)?.key, prefixes.at(-1)].filter((key): key is string => key !== undefined).sort().at(-1)
  return { contents, prefixes, isTruncated: isTruncated && last !== undefined, next: isTruncated ? last : undefined }
}
