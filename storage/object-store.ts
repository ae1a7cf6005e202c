import { dependencyUnavailable, isProgrammingError, isStowageError } from '../errors.js'

export interface ObjectInfo {
  key: string
  size: number
  lastModified: Date
}

export interface StoredObject extends ObjectInfo {
  body: Buffer
  contentType: string
}

export interface ListOptions {
  /** Only keys that sort after this one (byte order of their UTF-8 form, as S3 lists). */
  startAfter?: string
  limit: number
}

export interface ListPage {
  objects: ObjectInfo[]
  isTruncated: boolean
}

/** Keys are full object keys (`users/{userId}/<root>/{path}`), already validated by the caller. */
export interface ObjectStore {
  list (prefix: string, options: ListOptions): Promise<ListPage>
  get (key: string): Promise<StoredObject | undefined>
  head (key: string): Promise<ObjectInfo | undefined>
  put (key: string, body: Buffer, contentType: string): Promise<ObjectInfo>
  /** Resolves false when there was no such object. */
  delete (key: string): Promise<boolean>
  /** Throws unless the store answers and takes writes: the readiness check of /health. */
  check (): Promise<void>
  /** Prepares the store before first use (the fs driver: folders, layout, leftovers). */
  open? (): Promise<void>
  close? (): Promise<void>
}

export function compareKeys (a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}

/** The same store, its own failures (down, slow, refusing the service) turned into a 503 that the
 *  client may retry; refusals of Stowage's own pass through. */
export function asDependency (store: ObjectStore): ObjectStore {
  const guard = <A extends unknown[], R>(method: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    try {
      return await method.apply(store, args)
    } catch (error) {
      if (isStowageError(error) || isProgrammingError(error)) throw error
      throw dependencyUnavailable('the file store', error)
    }
  }
  return {
    list: guard(store.list),
    get: guard(store.get),
    head: guard(store.head),
    put: guard(store.put),
    delete: guard(store.delete),
    check: guard(store.check),
    open: store.open && guard(store.open),
    close: store.close && (() => store.close!())
  }
}
