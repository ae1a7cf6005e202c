import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createKeyLocks } from '../db/key-locks.js'
import { recorderOf } from '../db/recording.js'
import { createTrashRepository } from '../db/trash.js'
import { createUsageRepository } from '../db/usage.js'
import { createVersionRepository } from '../db/versions.js'
import { createFileService } from '../storage/files.js'
import { createNameRepository } from '../db/names.js'
import { createMountRepository } from '../db/mounts.js'
import { createNameIndex, type NameIndex } from '../storage/names.js'
import { createMultipart } from '../storage/multipart.js'
import { createMultipartRepository } from '../db/multipart.js'
import { asDependency } from '../storage/object-store.js'
import { createQuotas } from '../storage/quotas.js'
import { createImageCache } from '../storage/image-cache.js'
import { createImageCacheRepository } from '../db/image-cache.js'
import { createStore, type StorageOptions } from '../storage/store.js'
import {
  DEFAULT_BUCKET, DEFAULT_IMAGE_CACHE_BYTES, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_UPLOAD_BYTES, DEFAULT_REGION, DEFAULT_STORAGE_ROOT, DEFAULT_TRASH_RETENTION_DAYS, DEFAULT_UPLOAD_EXPIRY_SECONDS, DEFAULT_VERSION_RETENTION_DAYS
} from '../defaults.js'
import { decorateStowage, stowageOf } from '../http/decorators.js'
import { sweepEvery } from '../http/sweep.js'

export type StoragePluginOptions = StorageOptions

const DAY_MS = 86_400_000

export const storagePlugin = fp<StoragePluginOptions>(async (app, options) => {
  const {
    bucket = DEFAULT_BUCKET, region = DEFAULT_REGION, root = DEFAULT_STORAGE_ROOT,
    maxFileBytes = DEFAULT_MAX_FILE_BYTES, maxUploadBytes = DEFAULT_MAX_UPLOAD_BYTES, trashRetentionDays = DEFAULT_TRASH_RETENTION_DAYS,
    versionRetentionDays = DEFAULT_VERSION_RETENTION_DAYS
  } = options
  const created = await createStore(options, maxUploadBytes, app.log)
  const store = asDependency(options.instrument ? options.instrument(created) : created)
  await store.open?.()
  const db = stowageOf(app).stowageDb
  const retentionMs = Math.round(trashRetentionDays * DAY_MS)
  const quotas = createQuotas(createUsageRepository(db, options.quotaBytes ?? null))
  const names = createNameIndex({ repository: createNameRepository(db), store, rootOf: (userId) => `users/${userId}/${root}/`, log: app.log })
  buildNames(app, names)
  const imageCache = createImageCache({ store, repository: createImageCacheRepository(db), maxBytes: options.imageCacheBytes ?? DEFAULT_IMAGE_CACHE_BYTES, log: app.log })
  const files = createFileService({
    store, bucket, region, root, maxFileBytes, maxUploadBytes, locks: createKeyLocks(db), quotas,
    trash: { repository: createTrashRepository(db), retentionMs },
    versions: { repository: createVersionRepository(db), retentionMs: Math.round(versionRetentionDays * DAY_MS) },
    journal: stowageOf(app).stowageChanges,
    names,
    record: recorderOf(db),
    derived: imageCache.hooks,
    mounts: createMountRepository(db)
  })
  decorateStowage(app, 'stowageFiles', files)
  decorateStowage(app, 'stowageImageCache', imageCache)
  decorateStowage(app, 'stowageNames', names)
  const multipart = createMultipart({ store, files, quotas, repository: createMultipartRepository(db), maxUploadBytes })
  decorateStowage(app, 'stowageMultipart', multipart)
  sweepEvery(app, { everyMs: 3600_000, what: 'abandoned S3 multipart uploads', sweep: () => multipart.sweep(new Date(Date.now() - DEFAULT_UPLOAD_EXPIRY_SECONDS * 1000)) })
  decorateStowage(app, 'stowageQuotas', quotas)
  sweepEvery(app, { everyMs: 60_000, what: 'quota reservations of stopped writes', sweep: quotas.expire })
  // Two instances purging one item both succeed.
  const { trash } = files
  if (trash) sweepEvery(app, { everyMs: Math.min(Math.max(retentionMs / 2, 1000), 3600_000), what: 'expired trash items', sweep: () => trash.sweep() })
  // Each instance claims the versions it removes.
  const { versions } = files
  if (versions) sweepEvery(app, { everyMs: 10 * 60_000, what: 'thinned and expired versions', sweep: versions.sweep })
  app.addHook('onClose', async () => { await store.close?.() })
}, { name: 'stowage-storage', fastify: '5.x', dependencies: ['stowage-db', 'stowage-changes'] })

/** Builds the index of names of a deployment that had none (its first start with it), beside the
 *  service: every minute until it is done, stopped when the service closes; a failure is logged and
 *  tried again. */
function buildNames (app: FastifyInstance, names: NameIndex) {
  const stopped = new AbortController()
  let done = false
  let running: Promise<void> | undefined
  const run = () => (running ??= names.build(stopped.signal).then((built) => { done = built }, (error: unknown) => {
    app.log.warn({ err: error }, 'the index of names could not be built yet; trying again in a minute')
  }).finally(() => { running = undefined }))
  const timer = setInterval(() => { if (!done) void run() }, 60_000)
  timer.unref()
  app.addHook('onReady', async () => { void run() })
  app.addHook('onClose', async () => {
    clearInterval(timer)
    stopped.abort()
    await running
  })
}
