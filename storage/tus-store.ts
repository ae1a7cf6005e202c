import { DataStore, ERRORS, Upload } from '@tus/utils'
import type { Readable } from 'node:stream'
import type { UploadRecord, UploadRepository } from '../db/uploads.js'
import type { Owner } from '../db/usage.js'
import { isStowageError } from '../errors.js'
import type { FileService } from './files.js'
import type { Preconditions } from './object-store.js'
import type { Quotas } from './quotas.js'

/** What a creating request decided about its upload before @tus/server asks the store to create it. */
export interface Destination extends Owner {
  path: string
  contentType: string
  preconditions: Preconditions
}

type StagedFiles = NonNullable<FileService['staged']>

/**
 * @tus/server's store for Stowage: an upload's bytes go to the file store as a staged write
 * (`store.staged`), its progress to the database, so that any instance can take the next request;
 * the last piece publishes the file at its destination, under the destination's preconditions.
 */
export class StagedUploadStore extends DataStore {
  private readonly destinations = new Map<string, Destination>()
  private readonly announced = new Map<string, number>()

  constructor (
    private readonly uploads: UploadRepository,
    private readonly files: StagedFiles,
    private readonly expiryMs: number,
    private readonly quotas: Pick<Quotas, 'change'>
  ) {
    super()
    this.extensions = ['creation', 'creation-with-upload', 'termination', 'expiration']
  }

  /** The ETag of the file a finished upload published. */
  async etagOf (id: string): Promise<string | undefined> {
    return (await this.uploads.find(id))?.etag ?? undefined
  }

  /** Called while the creating request is named: its destination, for `create` to find. */
  expect (id: string, destination: Destination) {
    this.destinations.set(id, destination)
    // A creation refused after naming (a lock timeout) never reaches `create`.
    setTimeout(() => this.destinations.delete(id), 60_000).unref()
  }

  /** The length a piece's request announces, for the store's next write of the upload: a hint only. */
  announce (id: string, bytes: number) {
    if (Number.isSafeInteger(bytes) && bytes > 0) this.announced.set(id, bytes)
  }

  /** The upload, if it is this user's. */
  async findOwned (id: string, userId: string): Promise<UploadRecord | undefined> {
    const record = await this.uploads.find(id)
    return record?.userId === userId ? record : undefined
  }

  async create (upload: Upload): Promise<Upload> {
    const destination = this.destinations.get(upload.id)
    this.destinations.delete(upload.id)
    if (!destination || upload.size === undefined) throw ERRORS.INVALID_LENGTH
    const { userId, orgId, path, contentType, preconditions } = destination
    const createdAt = new Date()
    // Its declared length counts against the quota until it is published or dropped: 507 before a
    // byte. Into a mount, against its owner's.
    const account = await this.files.claim({ userId, orgId }, path, upload.size)
    try {
      const state = await this.files.begin(upload.id, { userId, orgId }, path, contentType)
      await this.uploads.create({
        id: upload.id, userId, path, contentType, size: upload.size, metadata: upload.metadata ?? {}, preconditions, state,
        createdAt, expiresAt: new Date(createdAt.getTime() + this.expiryMs)
      })
    } catch (error) {
      await this.quotas.change(account.userId, { uploadBytes: -upload.size })
      throw error
    }
    upload.creation_date = createdAt.toISOString()
    // An empty file has no piece to come: it is published now.
    if (upload.size === 0) await this.write([], upload.id, 0)
    return upload
  }

  async getUpload (id: string): Promise<Upload> {
    const record = await this.uploads.find(id)
    if (!record) throw ERRORS.FILE_NOT_FOUND
    return new Upload({ id, size: record.size, offset: record.received, metadata: record.metadata, creation_date: record.createdAt.toISOString() })
  }

  async write (body: Readable | Buffer[], id: string, offset: number): Promise<number> {
    const announced = this.announced.get(id)
    this.announced.delete(id)
    const record = await this.uploads.find(id)
    if (!record) throw ERRORS.FILE_NOT_FOUND
    if (record.etag !== null) return record.received
    const { userId, path, size, contentType, preconditions } = record
    const appended = await this.files.append(id, userId, path, record.state, body, { offset, length: size, announced })
    if (appended.offset < size) {
      await this.uploads.progress(id, appended.offset, appended.state)
      return appended.offset
    }
    // The last piece: its progress is recorded only once the file is published, so that a client
    // whose completion failed (the store down) sends the piece again rather than believing it done.
    try {
      const published = await this.files.complete(id, userId, path, appended.state, { contentType, preconditions, length: size })
      await this.uploads.published(id, size, published.etag)
      return size
    } catch (error) {
      if (isStowageError(error) && (error as { statusCode?: number }).statusCode === 412) {
        await this.files.discard(id, userId, path, appended.state)
        await this.forget(record)
      }
      throw error
    }
  }

  async remove (id: string): Promise<void> {
    this.announced.delete(id)
    const record = await this.uploads.find(id)
    if (!record) throw ERRORS.FILE_NOT_FOUND
    if (record.etag === null) await this.files.discard(id, record.userId, record.path, record.state)
    await this.forget(record)
  }

  /** Removes the record; an unfinished upload's declared length stops counting, once. */
  private async forget (record: UploadRecord) {
    if (await this.uploads.remove(record.id) && record.etag === null) await this.quotas.change(this.files.accountOf(record.userId, record.state), { uploadBytes: -record.size })
  }

  getExpiration (): number {
    return this.expiryMs
  }

  /** Unfinished uploads past their age are discarded, with what they stored; finished ones forgotten. */
  async deleteExpired (): Promise<number> {
    let removed = 0
    for (let batch; (batch = await this.uploads.expired(new Date(), 100)).length > 0;) {
      for (const record of batch) {
        this.announced.delete(record.id)
        if (record.etag === null) await this.files.discard(record.id, record.userId, record.path, record.state)
        await this.forget(record)
        removed++
      }
    }
    return removed
  }
}
