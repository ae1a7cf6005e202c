import { createFsStore } from './fs-store.js'
import type { ObjectStore } from './object-store.js'
import { DEFAULT_REGION, DEFAULT_STORAGE_DIR, s3PartBytes } from '../defaults.js'

/** What a store warns about (the s3 driver: a multipart upload it could not abort). */
export interface StoreLog { warn (message: unknown, ...rest: unknown[]): void }

export interface StorageOptions {
  driver: 'fs' | 's3'
  /** fs driver: the folder that holds the objects. */
  dir?: string
  /** Reported by the credentials route, for the fs driver too. */
  bucket?: string
  region?: string
  endpoint?: string
  forcePathStyle?: boolean
  /** s3 driver: longest wait to connect, and longest one operation may take with its retries. */
  connectTimeoutMs?: number
  timeoutMs?: number
  /** s3 driver, streamed reads: longest wait for the store's answer, then for each next chunk. */
  idleTimeoutMs?: number
  /** The `<root>` of `users/{userId}/<root>/{path}`. */
  root?: string
  /** The largest file of the JSON form. */
  maxFileBytes?: number
  /** The largest streamed upload (raw and resumable). */
  maxUploadBytes?: number
  /** How long a deleted file waits in the trash (30 days by default); 0: deletes are at once. */
  trashRetentionDays?: number
  /** How long a replaced file is kept as a version (30 days by default, thinned); 0: nothing is kept. */
  versionRetentionDays?: number
  /** Bytes each user may store (files, trash, unfinished uploads), unless `stowage admin set-quota`
   *  gave the user or the organization another; none by default. */
  quotaBytes?: number
  /** Bytes of derived images (thumbnails) kept in the store for every instance; past it, the oldest go. */
  imageCacheBytes?: number
  /** Use this store instead of building one from `driver`. */
  store?: ObjectStore
  /** Wraps the store, for metrics. */
  instrument?: (store: ObjectStore) => ObjectStore
}

/** The store the options name (a host's own, or one of the drivers'), not yet opened. */
export async function createStore (options: StorageOptions, maxUploadBytes: number, log?: StoreLog): Promise<ObjectStore> {
  if (options.store) return options.store
  if (options.driver === 's3') {
    if (!options.bucket) throw new Error('the s3 driver needs a bucket')
    // Loaded only for this driver: the AWS SDK's S3 client is most of what the service loads.
    const { createS3Store } = await import('./s3-store.js')
    return createS3Store({ ...options, bucket: options.bucket, region: options.region ?? DEFAULT_REGION, partBytes: s3PartBytes(maxUploadBytes), log })
  }
  return createFsStore(options.dir ?? DEFAULT_STORAGE_DIR)
}
