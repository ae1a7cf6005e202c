import type { Readable } from 'node:stream'
import { compareKeys, type Preconditions, type StagedState } from '../objects.js'
import { dependencyUnavailable, isProgrammingError, isStowageError, PayloadTooLargeError, RangeNotSatisfiableError } from '../errors.js'

export { compareKeys, type Preconditions, type StagedState }

export interface ObjectInfo {
  key: string
  size: number
  lastModified: Date
  /** A strong validator, quoted (`"…"`): it changes whenever the content does. */
  etag: string
}

/** x-amz-meta-* (names without the prefix), as the S3 endpoint was given them. */
export type Metadata = Record<string, string>

export interface ObjectMeta extends ObjectInfo {
  contentType: string
  /** Its x-amz-meta-*: known when the index of names answered, never from a store. */
  metadata?: Metadata
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


export interface CopyOptions {
  contentType?: string
}

export interface StageOptions {
  contentType: string
  /** A body longer than this fails with PayloadTooLargeError, and nothing is kept. */
  maxBytes: number
}

/**
 * Bytes a store holds for one key where no reader sees them (fs: a temporary file; S3: one buffered
 * part, the parts of a multipart upload, or a copy to make), until the publisher publishes them.
 */
export interface StagedObject {
  /**
   * Makes them the object at their key, replacing what stands there. Called at most once, by the
   * publisher, under the key's lock; resolves with what it published. For a conditional write,
   * `expected` is what the publisher found at the key: a store that can enforce it itself (S3's
   * conditional PutObject) does, so that a writer that bypassed Stowage is not lost (412).
   */
  publish (expected?: { current: ObjectMeta | undefined }): Promise<ObjectMeta>
  /** Frees what they hold, when they are not to be published. */
  discard (): Promise<void>
}

/** A store's own multipart uploads, numbered parts in any order, made an object by one request. */
export interface NativeParts {
  /** Begins an upload at `key`; resolves with its id. */
  begin (key: string, contentType: string): Promise<string>
  /** Sends part `partNumber` (replacing one of that number) as it arrives: exactly `length` bytes,
   *  or it fails and the store keeps none of it. Resolves with the part's ETag. */
  upload (key: string, uploadId: string, partNumber: number, body: Bytes, length: number): Promise<string>
  /** The parts chosen, to be published at `key` by the publisher (their upload completed then). */
  completion (key: string, uploadId: string, parts: Array<{ partNumber: number, etag: string }>, size: number, contentType: string): StagedObject
  abort (key: string, uploadId: string): Promise<void>
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
 * nothing is visible at the key until what `finish` answers is published. `id` is the upload's own (32 hex digits), never derived from the key.
 */
export interface StagedWrites {
  begin (id: string, key: string, contentType: string): Promise<StagedState>
  /**
   * Appends `body` at `position.offset` and resolves with the offset reached. What arrives of a body
   * that is cut short is kept; only a failing store rejects. Bytes an earlier, unrecorded attempt
   * wrote past `offset` are overwritten.
   */
  append (id: string, key: string, state: StagedState, body: Bytes, position: StagedPosition): Promise<{ state: StagedState, offset: number }>
  /** The upload, whose pieces must all be appended, ready to publish; a publish that fails leaves it
   *  as it was: to finish and publish again, or to discard (its StagedObject's `discard` does nothing). */
  finish (id: string, key: string, state: StagedState, contentType: string): Promise<StagedObject>
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
 * A store of objects, as a driver (or a host's own store) implements it: it keeps bytes and
 * publishes them, and nothing more. Locks, preconditions, usage, versions and the journal are the
 * publisher's (`storage/publisher.ts`), which alone calls `publish`, `rename` and `delete`.
 * Keys are full object keys (`users/{userId}/<root>/{path}`), already validated by the caller.
 * Bodies stream both ways: memory never follows an object's size.
 */
export interface ObjectStore {
  list (prefix: string, options: ListOptions): Promise<ListPage>
  head (key: string): Promise<ObjectMeta | undefined>
  /** Undefined when there is no such object; RangeNotSatisfiableError when `range` starts past its end. */
  read (key: string, range?: RangeRequest): Promise<ObjectRead | undefined>
  /** Keeps the body for `key`, unseen until published. A body that fails, is cut off or passes
   *  `maxBytes` rejects, and nothing is kept. */
  stage (key: string, body: Bytes, options: StageOptions): Promise<StagedObject>
  /** A copy of `source`, made inside the store (no byte passing through the instance), to publish at
   *  `to`. Its publish fails with PreconditionFailedError when the object at `source.key` is no longer
   *  the version `source` describes. Undefined when there is no object at `source.key`. The copy
   *  keeps the source's content type unless `contentType` gives another. */
  stageCopy (source: ObjectMeta, to: string, options?: CopyOptions): Promise<StagedObject | undefined>
  /** Renames the object `source` names to `to`, replacing what stands there, when the store can do so
   *  at once (fs); undefined when it is gone. Without it, a move is a copy and a delete. */
  rename? (source: ObjectMeta, to: string): Promise<ObjectMeta | undefined>
  /** Removes the object at `key`, if there is one. */
  delete (key: string): Promise<void>
  /** Throws unless the store answers and takes writes: the readiness check of /health. */
  check (): Promise<void>
  /** Bytes one write holds in memory at most: what an upload takes from the upload memory budget. */
  readonly writeBufferBytes: number
  /** A URL straight to the store to download one object, valid for `link.expiresInSeconds`
   *  (S3 presigned URLs); a store without it has its links served by Stowage. */
  presign? (key: string, link: PresignRequest): Promise<string>
  /** Resumable uploads; a store without them has no /api/uploads. */
  readonly staged?: StagedWrites
  /** The store's own multipart uploads (S3's), at the object's key: S3 multipart uploads through
   *  Stowage send their parts straight to them. A store without them has parts joined at completion. */
  readonly nativeParts?: NativeParts
  /** Prepares the store before first use (the fs driver: folders, layout, leftovers). */
  open? (): Promise<void>
  close? (): Promise<void>
}

/** Where a page ends: its greatest entry, an object or a folder (the next page starts after it). */
export function pageEnd ({ objects, folders }: Pick<ListPage, 'objects' | 'folders'>): string | undefined {
  return [objects.at(-1)?.key, folders?.at(-1)].filter((key) => key !== undefined).sort(compareKeys).at(-1)
}

/** Every page of `lister`'s listing of `prefix` (a store's, or the index of names'), from after
 *  `startAfter`: each page starts after the last one's end. */
export async function * listedPages (lister: Pick<ObjectStore, 'list'>, prefix: string, { startAfter, limit = 1000, delimiter }: Partial<ListOptions> = {}) {
  for (;;) {
    const page = await lister.list(prefix, { startAfter, limit, delimiter })
    yield page
    startAfter = pageEnd(page)
    if (!page.isTruncated || startAfter === undefined) return
  }
}

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

/** A staged object whose publish and discard pass through `around` too. */
function wrapStagedObject (around: AroundOperation) {
  return (staged: StagedObject): StagedObject => ({
    publish: around('publish', (expected?: { current: ObjectMeta | undefined }) => staged.publish(expected)),
    discard: around('discard', () => staged.discard())
  })
}

function wrapStaged (staged: StagedWrites, around: AroundOperation): StagedWrites {
  const finish = around('staged_finish', staged.finish.bind(staged))
  return {
    begin: around('staged_begin', staged.begin.bind(staged)),
    append: around('staged_append', staged.append.bind(staged)),
    finish: async (...args) => wrapStagedObject(around)(await finish(...args)),
    discard: around('staged_discard', staged.discard.bind(staged))
  }
}

function wrapNativeParts (parts: NativeParts, around: AroundOperation): NativeParts {
  return {
    begin: around('parts_begin', parts.begin.bind(parts)),
    upload: around('parts_upload', parts.upload.bind(parts)),
    completion: (...args) => wrapStagedObject(around)(parts.completion(...args)),
    abort: around('parts_abort', parts.abort.bind(parts))
  }
}

/** The same store with each of its operations passed through `around` (asDependency, metrics). */
export function wrapOperations (store: ObjectStore, around: AroundOperation): ObjectStore {
  const wrapped = wrapStagedObject(around)
  const stage = around('stage', store.stage.bind(store))
  const stageCopy = around('stage_copy', store.stageCopy.bind(store))
  return {
    list: around('list', store.list.bind(store)),
    head: around('head', store.head.bind(store)),
    read: around('read', store.read.bind(store)),
    stage: async (...args) => wrapped(await stage(...args)),
    stageCopy: async (...args) => { const staged = await stageCopy(...args); return staged && wrapped(staged) },
    rename: store.rename && around('rename', store.rename.bind(store)),
    delete: around('delete', store.delete.bind(store)),
    check: around('check', store.check.bind(store)),
    writeBufferBytes: store.writeBufferBytes,
    staged: store.staged && wrapStaged(store.staged, around),
    nativeParts: store.nativeParts && wrapNativeParts(store.nativeParts, around),
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
