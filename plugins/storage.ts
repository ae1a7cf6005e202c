import fp from 'fastify-plugin'
import type { FastifyBaseLogger } from 'fastify'
import { createKeyLocks } from '../db/key-locks.js'
import { createTrashRepository } from '../db/trash.js'
import { createUsageRepository } from '../db/usage.js'
import { createFileService } from '../storage/files.js'
import { createFsStore } from '../storage/fs-store.js'
import { asDependency, type ObjectStore } from '../storage/object-store.js'
import { createQuotas } from '../storage/quotas.js'
import {
  DEFAULT_BUCKET, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_UPLOAD_BYTES, DEFAULT_REGION, DEFAULT_STORAGE_DIR, DEFAULT_STORAGE_ROOT, DEFAULT_TRASH_RETENTION_DAYS, s3PartBytes
} from '../defaults.js'
import { stowageOf } from './decorators.js'
import { sweepEvery } from './sweep.js'

export interface StoragePluginOptions {
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
  /** Bytes each user may store (files, trash, unfinished uploads), unless `stowage admin set-quota`
   *  gave the user or the organization another; none by default. */
  quotaBytes?: number
  /** Use this store instead of building one from `driver`. */
  store?: ObjectStore
  /** Wraps the store, for metrics. */
  instrument?: (store: ObjectStore) => ObjectStore
}

/** The store the options name (a host's own, or one of the drivers'), not yet opened. */
export async function createStore (options: StoragePluginOptions, maxUploadBytes: number, log?: Pick<FastifyBaseLogger, 'warn'>): Promise<ObjectStore> {
  if (options.store) return options.store
  if (options.driver === 's3') {
    if (!options.bucket) throw new Error('the s3 driver needs a bucket')
    // Loaded only for this driver: the AWS SDK's S3 client is most of what the service loads.
    const { createS3Store } = await import('../storage/s3-store.js')
    return createS3Store({ ...options, bucket: options.bucket, region: options.region ?? DEFAULT_REGION, partBytes: s3PartBytes(maxUploadBytes), log })
  }
  return createFsStore(options.dir ?? DEFAULT_STORAGE_DIR)
}

export const storagePlugin = fp<StoragePluginOptions>(async (app, options) => {
  const {
    bucket = DEFAULT_BUCKET, region = DEFAULT_REGION, root = DEFAULT_STORAGE_ROOT,
    maxFileBytes = DEFAULT_MAX_FILE_BYTES, maxUploadBytes = DEFAULT_MAX_UPLOAD_BYTES, trashRetentionDays = DEFAULT_TRASH_RETENTION_DAYS
  } = options
  const created = await createStore(options, maxUploadBytes, app.log)
  const store = asDependency(options.instrument ? options.instrument(created) : created)
  await store.open?.()
  const db = stowageOf(app).stowageDb
  const retentionMs = Math.round(trashRetentionDays * 86_400_000)
  const quotas = createQuotas(createUsageRepository(db, options.quotaBytes ?? null))
  const files = createFileService({
    store, bucket, region, root, maxFileBytes, maxUploadBytes, exclusive: createKeyLocks(db), trash: { repository: createTrashRepository(db), retentionMs }, quotas
  })
  app.decorate('stowageFiles', files)
  app.decorate('stowageQuotas', quotas)
  sweepEvery(app, { everyMs: 60_000, what: 'quota reservations of stopped writes', sweep: quotas.expire })
  // Two instances purging one item both succeed.
  const { trash } = files
  if (trash) sweepEvery(app, { everyMs: Math.min(Math.max(retentionMs / 2, 1000), 3600_000), what: 'expired trash items', sweep: () => trash.sweep() })
  app.addHook('onClose', async () => { await store.close?.() })
}, { name: 'stowage-storage', fastify: '5.x', dependencies: ['stowage-db'] })
