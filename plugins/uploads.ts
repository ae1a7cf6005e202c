import fp from 'fastify-plugin'
import { MemoryLocker } from '@tus/server'
import { ERRORS, type Lock, type Locker } from '@tus/utils'
import { isPostgres } from '../db/dialect.js'
import { createUploadLeases, createUploadRepository, type UploadLease } from '../db/uploads.js'
import { isStowageError } from '../errors.js'
import { deadline } from '../limits.js'
import { StagedUploadStore } from '../storage/tus-store.js'
import { decorateStowage, stowageOf } from '../http/decorators.js'
import { sweepEvery } from '../http/sweep.js'

export interface UploadsPluginOptions {
  /** How long an unfinished upload is kept, from its creation. */
  expiryMs: number
}

// A request that wants an upload another holds waits this long for it, then gets 500 (tus' lock timeout).
const LOCK_WAIT_MS = 30_000

/** tus' locks of uploads, as leases in the database: held across instances. */
function leasedLocker (leases: (id: string) => UploadLease): Locker {
  return {
    newLock (id): Lock {
      const lease = leases(id)
      return {
        async lock (signal, requestRelease) {
          const waiting = deadline(LOCK_WAIT_MS, [signal])
          try {
            await lease.take(waiting.signal, () => { void requestRelease() })
          } catch (error) {
            // A database that is down is its 503, not a lock that was waited for.
            if (signal.aborted || isStowageError(error)) throw error
            throw ERRORS.ERR_LOCK_TIMEOUT
          } finally {
            waiting.done()
          }
        },
        unlock: () => lease.release()
      }
    }
  }
}

/**
 * Resumable uploads' state: the store @tus/server writes through (progress in the database, bytes
 * staged in the file store), the locks of uploads (across instances on PostgreSQL; in this process
 * on SQLite, whose instances share no uploads, as they share no key locks), and the sweep of expired
 * ones. Nothing is decorated when the file store cannot stage writes.
 */
export const uploadsPlugin = fp<UploadsPluginOptions>(async (app, { expiryMs }) => {
  const { stowageFiles: files, stowageDb, stowageQuotas } = stowageOf(app)
  if (!files.staged) {
    app.log.warn('the file store cannot stage writes: resumable uploads (/api/uploads) are off')
    return
  }
  const store = new StagedUploadStore(createUploadRepository(stowageDb), files.staged, expiryMs, stowageQuotas)
  const locker = isPostgres(stowageDb) ? leasedLocker(createUploadLeases(stowageDb)) : new MemoryLocker({ acquireLockTimeout: LOCK_WAIT_MS })
  decorateStowage(app, 'stowageUploads', { store, locker })
  // A sweep skips the uploads a request holds.
  sweepEvery(app, { everyMs: Math.min(expiryMs / 2, 3600_000), what: 'expired uploads', sweep: () => store.deleteExpired() })
}, { name: 'stowage-uploads', fastify: '5.x', dependencies: ['stowage-db', 'stowage-storage'] })
