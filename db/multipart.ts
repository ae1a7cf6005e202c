import type { Kysely, Selectable } from 'kysely'
import type { Database, S3MultipartPartsTable, S3MultipartUploadsTable } from './types.js'

export interface MultipartUpload {
  id: string
  userId: string
  orgId: string | null
  /** The file it makes, relative to the user's root. */
  path: string
  contentType: string
  createdAt: Date
  /** What the front end that began it keeps with it (S3's x-amz-meta-*, as JSON). */
  metadata?: string
  /** The store's own multipart upload at the file's key, which its parts go to (stores that make them). */
  storeUploadId?: string
  /** The file's key, chosen when it began (a mount's owner's, for an upload into a mount); absent
   *  for uploads begun before it was kept: the user's own. */
  intoKey?: string
}

export interface Part {
  partNumber: number
  size: number
  etag: string
  /** The object that holds the part; '' for a part of the store's own upload. */
  objectKey: string
  uploadedAt: Date
}

const partOf = (row: Selectable<S3MultipartPartsTable>): Part =>
  ({ partNumber: row.part_number, size: Number(row.size), etag: row.etag, objectKey: row.object_key, uploadedAt: new Date(row.uploaded_at) })

export function createMultipartRepository (db: Kysely<Database>) {
  const uploadOf = (row: Selectable<S3MultipartUploadsTable>): MultipartUpload => ({
    id: row.id, userId: row.user_id, orgId: row.org_id, path: row.path, contentType: row.content_type, createdAt: new Date(row.created_at),
    ...row.metadata === null ? {} : { metadata: row.metadata },
    ...row.store_upload_id === null ? {} : { storeUploadId: row.store_upload_id },
    ...row.into_key === null ? {} : { intoKey: row.into_key }
  })
  return {
    async add (upload: MultipartUpload): Promise<void> {
      await db.insertInto('s3_multipart_uploads').values({
        id: upload.id, user_id: upload.userId, org_id: upload.orgId, path: upload.path, content_type: upload.contentType, created_at: upload.createdAt.toISOString(),
        metadata: upload.metadata ?? null, store_upload_id: upload.storeUploadId ?? null, into_key: upload.intoKey ?? null
      }).execute()
    },

    async find (userId: string, id: string): Promise<MultipartUpload | undefined> {
      const row = await db.selectFrom('s3_multipart_uploads').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst()
      return row && uploadOf(row)
    },

    /** A user's uploads under `prefix`, by path then age, after (`path`, `id`), `limit + 1` read. */
    async list (userId: string, prefix: string, limit: number, after?: { path: string, id: string }): Promise<MultipartUpload[]> {
      let query = db.selectFrom('s3_multipart_uploads').selectAll().where('user_id', '=', userId)
      if (prefix) query = query.where('path', '>=', prefix).where('path', '<', prefix + '\uffff')
      if (after) query = query.where((where) => where.or([where('path', '>', after.path), where.and([where('path', '=', after.path), where('id', '>', after.id)])]))
      return (await query.orderBy('path').orderBy('id').limit(limit + 1).execute()).map(uploadOf)
    },

    /** Removes the upload and its parts' rows, once: resolves with its parts, or undefined when another took it first. */
    async remove (id: string): Promise<Part[] | undefined> {
      return await db.transaction().execute(async (trx) => {
        const { numDeletedRows } = await trx.deleteFrom('s3_multipart_uploads').where('id', '=', id).executeTakeFirst()
        if (Number(numDeletedRows) === 0) return undefined
        const parts = await trx.selectFrom('s3_multipart_parts').selectAll().where('upload_id', '=', id).orderBy('part_number').execute()
        await trx.deleteFrom('s3_multipart_parts').where('upload_id', '=', id).execute()
        return parts.map(partOf)
      })
    },

    /** Records a part; resolves with the part it replaced, if any. */
    async putPart (uploadId: string, part: Part): Promise<Part | undefined> {
      return await db.transaction().execute(async (trx) => {
        const before = await trx.selectFrom('s3_multipart_parts').selectAll().where('upload_id', '=', uploadId).where('part_number', '=', part.partNumber).executeTakeFirst()
        const values = { size: part.size, etag: part.etag, object_key: part.objectKey, uploaded_at: part.uploadedAt.toISOString() }
        if (before) await trx.updateTable('s3_multipart_parts').set(values).where('upload_id', '=', uploadId).where('part_number', '=', part.partNumber).execute()
        else await trx.insertInto('s3_multipart_parts').values({ upload_id: uploadId, part_number: part.partNumber, ...values }).execute()
        return before && partOf(before)
      })
    },

    async parts (uploadId: string, after = 0, limit = 10_000): Promise<Part[]> {
      return (await db.selectFrom('s3_multipart_parts').selectAll().where('upload_id', '=', uploadId).where('part_number', '>', after).orderBy('part_number').limit(limit).execute()).map(partOf)
    },

    /** Uploads begun before `before`: the abandoned. */
    async older (before: Date, limit: number): Promise<MultipartUpload[]> {
      return (await db.selectFrom('s3_multipart_uploads').selectAll().where('created_at', '<', before.toISOString()).limit(limit).execute()).map(uploadOf)
    }
  }
}

export type MultipartRepository = ReturnType<typeof createMultipartRepository>
