import type { Readable } from 'node:stream'
import {
  dependencyUnavailable, isProgrammingError, isStowageError, PayloadTooLargeError, PreconditionFailedError, RangeNotSatisfiableError
} from '../errors.js'

export interface ObjectInfo {
  key: string
  size: number
  lastModified: Date
  /** A strong validator, quoted (`"…"`): it changes whenever the content does. */
  etag: string
}

export interface ObjectMeta extends ObjectInfo {
  contentType: string
}

/** A body to store: a stream, or buffers already in memory. */
export type Bytes = AsyncIterable<Buffer> | Iterable<Buffer>

/** Bytes `start` to `end`, both included. */
export interface ByteRange { start: number, end: number }

/** What a client asked for: from `start` (to `end`, or to the end of the file), or the last `suffix` bytes. */
export type RangeRequest = { start: number, end?: number } | { suffix: number }

export interface ObjectRead extends ObjectMeta {
  /** The whole object, or the bytes of `range`. */
  body: Readable
  /** The bytes `body` holds, when a range was asked for. */
  range?: ByteRange
}

/** If-Match and If-None-Match of a write, as lists of quoted ETags or `*`. */
export interface Preconditions {
  ifMatch?: string[]
  ifNoneMatch?: string[]
}

/** Runs the compare-and-publish step of a write or delete with no other writer of the key (or of
 *  any of the keys: a move holds its source and its destination) inside. */
export type Exclusive = <T>(key: string | readonly string[], publish: () => Promise<T>) => Promise<T>

/** For a store used alone: no other writer to keep out. */
export const directly: Exclusive = (_key, publish) => publish()

export interface WriteOptions {
  contentType: string
  /** A body longer than this fails with PayloadTooLargeError, and nothing is stored. */
  maxBytes: number
  /** Checked against the current object when the new one is published; 412 and nothing stored when they fail. */
  preconditions?: Preconditions
  exclusive?: Exclusive
}

export interface DeleteOptions {
  preconditions?: Preconditions
  exclusive?: Exclusive
}

/** A copy's or a move's. */
export interface TransferOptions {
  /** The source's (If-Match): checked against the version copied or moved; 412 otherwise. */
  sourcePreconditions?: Preconditions
  /** The destination's, checked when the object is published there under its key lock. */
  preconditions?: Preconditions
  exclusive?: Exclusive
}

export interface ListOptions {
  /** Only keys that sort after this one (byte order of their UTF-8 form, as S3 lists). */
  startAfter?: string
  /** `/`: one level only; what lies deeper is named once, as a folder (S3's CommonPrefixes). */
  delimiter?: '/'
  /** Files and folders together, in key order. */
  limit: number
}

export interface ListPage {
  objects: ObjectInfo[]
  /** With a delimiter: the folders of the page (`a/b/`), which share its limit with the objects. */
  folders?: string[]
  isTruncated: boolean
}

export interface PresignRequest {
  expiresInSeconds: number
  /** The Content-Type and Content-Disposition the store answers with, whatever the object's own. */
  served: { contentType: string, disposition?: string }
}

/** A staged write's progress between its pieces: plain JSON, kept by the caller (in the database). */
export type StagedState = Record<string, unknown>

export interface StagedPosition {
  /** Bytes stored so far: where this piece begins. */
  offset: number
  /** The whole upload's size. */
  length: number
  /** The bytes the piece says it carries (its Content-Length), if known: a hint, which may be wrong. */
  announced?: number
}

/**
 * A write that arrives in pieces, over requests that may reach different instances: a resumable
 * upload. Between pieces its progress is the state the driver returns, which the caller keeps;
 * nothing is visible at the key until `complete` publishes it, with the same preconditions and
 * key lock as `write`. `id` is the upload's own (32 hex digits), never derived from the key.
 */
export interface StagedWrites {
  begin (id: string, key: string, contentType: string): Promise<StagedState>
  /**
   * Appends `body` at `position.offset` and resolves with the offset reached. What arrives of a body
   * that is cut short is kept; only a failing store rejects. Bytes an earlier, unrecorded attempt
   * wrote past `offset` are overwritten.
   */
  append (id: string, key: string, state: StagedState, body: Bytes, position: StagedPosition): Promise<{ state: StagedState, offset: number }>
  /** Publishes the upload, whose pieces must all be appended. A refusal (412) or a failure leaves the
   *  staged upload as it was: to complete again, or to discard. */
  complete (id: string, key: string, state: StagedState, options: Omit<WriteOptions, 'maxBytes'>): Promise<ObjectMeta>
  /** Forgets the upload and frees what it stored. */
  discard (id: string, key: string, state: StagedState): Promise<void>
}

/** The chunks of `body` until it ends or fails; a failure (a client gone) is kept in `cut`, not thrown. */
export async function * untilCut (body: Bytes, cut: { error?: unknown }): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of body) yield chunk
  } catch (error) {
    cut.error = error
  }
}

const STAGED_ID = /^[0-9a-f]{32}$/

export function checkStagedId (id: string) {
  if (!STAGED_ID.test(id)) throw new Error('a staged upload id is 32 hex digits')
}

/**
 * Keys are full object keys (`users/{userId}/<root>/{path}`), already validated by the caller.
 * Bodies stream both ways: memory never follows an object's size.
 */
export interface ObjectStore {
  list (prefix: string, options: ListOptions): Promise<ListPage>
  head (key: string): Promise<ObjectMeta | undefined>
  /** Undefined when there is no such object; RangeNotSatisfiableError when `range` starts past its end. */
  read (key: string, range?: RangeRequest): Promise<ObjectRead | undefined>
  /** Stores the body whole or not at all: a body that fails, is cut off or is refused leaves the old object. */
  write (key: string, body: Bytes, options: WriteOptions): Promise<ObjectMeta>
  /** Resolves false when there was no such object. */
  delete (key: string, options?: DeleteOptions): Promise<boolean>
  /** Copies an object inside the store, no byte passing through the instance, and publishes it at
   *  `to` whole, as a write does. Undefined when there is no object at `from`. */
  copy (from: string, to: string, options?: TransferOptions): Promise<ObjectMeta | undefined>
  /** Moves an object inside the store: it ends at `to`, and `from` is gone, or, on a failure, it
   *  is still at `from` (and perhaps also at `to`). A write to `from` during the move is never lost:
   *  it stays at `from`, or is the version moved. Undefined when there is no object at `from`. */
  move (from: string, to: string, options?: TransferOptions): Promise<ObjectMeta | undefined>
  /** Throws unless the store answers and takes writes: the readiness check of /health. */
  check (): Promise<void>
  /** Bytes one write holds in memory at most: what an upload takes from the upload memory budget. */
  readonly writeBufferBytes: number
  /** A URL straight to the store to download one object, valid for `link.expiresInSeconds`
   *  (S3 presigned URLs); a store without it has its links served by Stowage. */
  presign? (key: string, link: PresignRequest): Promise<string>
  /** Resumable uploads; a store without them has no /api/uploads. */
  readonly staged?: StagedWrites
  /** Prepares the store before first use (the fs driver: folders, layout, leftovers). */
  open? (): Promise<void>
  close? (): Promise<void>
}

export function compareKeys (a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}

/** Where a page ends: its greatest entry, an object or a folder (the next page starts after it). */
export function pageEnd ({ objects, folders }: Pick<ListPage, 'objects' | 'folders'>): string | undefined {
  return [objects.at(-1)?.key, folders?.at(-1)].filter((key) => key !== undefined).sort(compareKeys).at(-1)
}

const opaque = (etag: string) => etag.replace(/^W\//, '')

/** If-None-Match compares weakly (RFC 9110 §13.1.2): `W/"x"` matches `"x"`. */
export function matchesAny (etags: string[], current: Pick<ObjectInfo, 'etag'> | undefined): boolean {
  if (!current) return false
  return etags.some((etag) => etag === '*' || opaque(etag) === current.etag)
}

/** Throws PreconditionFailedError unless `current` (undefined: no object) satisfies them. */
export function checkPreconditions (current: Pick<ObjectInfo, 'etag'> | undefined, { ifMatch, ifNoneMatch }: Preconditions = {}) {
  // If-Match compares strongly: a weak ETag never matches.
  if (ifMatch && !(current && ifMatch.some((etag) => etag === '*' || etag === current.etag))) {
    throw new PreconditionFailedError(current ? 'the file has changed (If-Match)' : 'the file does not exist (If-Match)')
  }
  if (ifNoneMatch && matchesAny(ifNoneMatch, current)) {
    throw new PreconditionFailedError('the file already exists (If-None-Match)')
  }
}

export const hasPreconditions = (preconditions: Preconditions = {}) =>
  preconditions.ifMatch !== undefined || preconditions.ifNoneMatch !== undefined

/** The range's first and last byte in a file of `size` bytes; RangeNotSatisfiableError past the end. */
export function resolveRange (range: RangeRequest, size: number): ByteRange {
  if ('suffix' in range) {
    if (range.suffix === 0 || size === 0) throw new RangeNotSatisfiableError(size)
    return { start: Math.max(0, size - range.suffix), end: size - 1 }
  }
  if (range.start >= size) throw new RangeNotSatisfiableError(size)
  return { start: range.start, end: Math.min(range.end ?? size - 1, size - 1) }
}

/** The body, refused with PayloadTooLargeError as soon as it passes `maxBytes`. */
export async function * limitBytes (body: Bytes, maxBytes: number): AsyncGenerator<Buffer> {
  let total = 0
  for await (const chunk of body) {
    total += chunk.length
    if (total > maxBytes) throw new PayloadTooLargeError(`file is larger than ${maxBytes} bytes`)
    yield chunk
  }
}

/** Wraps one operation of a store; `operation` names it. */
export type AroundOperation = <A extends unknown[], R>(operation: string, method: (...args: A) => Promise<R>) => (...args: A) => Promise<R>

function wrapStaged (staged: StagedWrites, around: AroundOperation): StagedWrites {
  return {
    begin: around('staged_begin', staged.begin.bind(staged)),
    append: around('staged_append', staged.append.bind(staged)),
    complete: around('staged_complete', staged.complete.bind(staged)),
    discard: around('staged_discard', staged.discard.bind(staged))
  }
}

/** The same store with each of its operations passed through `around` (asDependency, metrics). */
export function wrapOperations (store: ObjectStore, around: AroundOperation): ObjectStore {
  return {
    list: around('list', store.list.bind(store)),
    head: around('head', store.head.bind(store)),
    read: around('read', store.read.bind(store)),
    write: around('write', store.write.bind(store)),
    delete: around('delete', store.delete.bind(store)),
    copy: around('copy', store.copy.bind(store)),
    move: around('move', store.move.bind(store)),
    check: around('check', store.check.bind(store)),
    writeBufferBytes: store.writeBufferBytes,
    staged: store.staged && wrapStaged(store.staged, around),
    presign: store.presign && around('presign', store.presign.bind(store)),
    open: store.open && around('open', store.open.bind(store)),
    close: store.close && (() => store.close!())
  }
}

/** The same store, its own failures (down, slow, refusing the service) turned into a 503 that the
 *  client may retry; refusals of Stowage's own pass through. (A body that fails part way through
 *  can only be cut off: its answer has begun.) */
export function asDependency (store: ObjectStore): ObjectStore {
  return wrapOperations(store, (_operation, method) => async (...args) => {
    try {
      return await method(...args)
    } catch (error) {
      if (isStowageError(error) || isProgrammingError(error)) throw error
      throw dependencyUnavailable('the file store', error)
    }
  })
}
