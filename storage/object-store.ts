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
  close? (): Promise<void>
}

export function compareKeys (a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}
