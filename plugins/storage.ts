import fp from 'fastify-plugin'
import { createFileService, type FileService } from '../storage/files.js'
import { createFsStore } from '../storage/fs-store.js'
import { asDependency, type ObjectStore } from '../storage/object-store.js'
import { createS3Store } from '../storage/s3-store.js'

declare module 'fastify' {
  interface FastifyInstance {
    files: FileService
  }
}

export interface StoragePluginOptions {
  driver: 'fs' | 's3'
  /** fs driver: the folder that holds the objects. */
  dir?: string
  bucket: string
  region: string
  endpoint?: string
  forcePathStyle?: boolean
  /** s3 driver: longest wait to connect, and longest one operation may take with its retries. */
  connectTimeoutMs?: number
  timeoutMs?: number
  root: string
  maxFileBytes: number
  /** Use this store instead of building one from `driver`. */
  store?: ObjectStore
}

function createStore (options: StoragePluginOptions): ObjectStore {
  if (options.store) return options.store
  if (options.driver === 's3') return createS3Store(options)
  return createFsStore(options.dir ?? './data/objects')
}

export const storagePlugin = fp<StoragePluginOptions>(async (app, options) => {
  const store = asDependency(createStore(options))
  await store.open?.()
  app.decorate('files', createFileService({ ...options, store }))
  app.addHook('onClose', async () => { await store.close?.() })
}, { name: 'stowage-storage', fastify: '5.x' })
