import type { FastifyRequest } from 'fastify'
import type { Owner } from '../db/usage.js'
import type { Metadata } from '../storage/object-store.js'
import { NotFoundError } from '../errors.js'
import { parseRange, writePreconditions } from '../storage/conditional.js'
import type { FileService } from '../storage/files.js'
import { MAX_PART_NUMBER, MultipartError, type Multipart } from '../storage/multipart.js'
import { invalidArgument, noSuchKey, S3Error } from './errors.js'
import { copySourceOf, pathOf, type uploadOf } from './objects.js'
import type { XmlNode } from './xml.js'
import { INPUT_LIMITS } from '../limits.js'
import { childNamed, type XmlElement } from '../xml-body.js'

const MULTIPART_CODES: Record<MultipartError['reason'], [string, number]> = {
  'no-upload': ['NoSuchUpload', 404], 'invalid-part': ['InvalidPart', 400], 'part-order': ['InvalidPartOrder', 400], 'too-small': ['EntityTooSmall', 400]
}

/** The S3 error of a multipart refusal; anything else as it is. */
export function multipartError (error: unknown): unknown {
  if (!(error instanceof MultipartError)) return error
  const [code, status] = MULTIPART_CODES[error.reason]
  return new S3Error(code, status, error.message)
}

function partNumberOf (value: string | null): number {
  const number = Number(value)
  if (!/^\d{1,5}$/.test(value ?? '') || number < 1 || number > MAX_PART_NUMBER) throw invalidArgument(`Part number must be an integer between 1 and ${MAX_PART_NUMBER}, inclusive`)
  return number
}

const uploadKeyOf = (bucket: string, path: string) => path.slice(bucket.length + 1)

export async function createUpload (multipart: Multipart, owner: Owner, bucket: string, key: string, contentType: string, metadata: Metadata): Promise<XmlNode> {
  const upload = await multipart.create(owner, pathOf(bucket, key), contentType, JSON.stringify(metadata))
  return { Bucket: bucket, Key: key, UploadId: upload.id }
}

/** UploadPart; resolves with the part's ETag. */
export async function uploadPart (multipart: Multipart, owner: Owner, query: URLSearchParams, upload: ReturnType<typeof uploadOf>) {
  if (upload.length === undefined) throw new S3Error('MissingContentLength', 411, 'You must provide the Content-Length HTTP header.')
  return await multipart.uploadPart(owner, query.get('uploadId')!, partNumberOf(query.get('partNumber')), upload.body, upload.length)
}

/** UploadPartCopy: a part that is (a range of) an object of the same user's. */
export async function uploadPartCopy (multipart: Multipart, files: FileService, owner: Owner, query: URLSearchParams, request: FastifyRequest): Promise<XmlNode> {
  const { bucket: fromBucket, key: fromKey } = copySourceOf(request)
  const rangeHeader = request.headers['x-amz-copy-source-range']
  const range = typeof rangeHeader === 'string' ? parseRange(rangeHeader) : undefined
  if (typeof rangeHeader === 'string' && (!range || !('start' in range) || range.end === undefined)) throw invalidArgument('The x-amz-copy-source-range value must be of the form bytes=first-last')
  const read = await files.read(owner.userId, pathOf(fromBucket, fromKey), { range }).catch((error: unknown) => {
    if (error instanceof NotFoundError) throw noSuchKey(fromKey)
    throw error
  })
  if (read.notModified) throw invalidArgument('the copy source was not read')
  if (range && 'start' in range && range.end !== undefined && range.end >= read.file.size) {
    read.file.body.destroy()
    throw new S3Error('InvalidRange', 416, `The x-amz-copy-source-range is not within the source object of ${read.file.size} bytes`)
  }
  const length = read.file.range ? read.file.range.end - read.file.range.start + 1 : read.file.size
  const etag = await multipart.uploadPart(owner, query.get('uploadId')!, partNumberOf(query.get('partNumber')), read.file.body, length)
  return { ETag: etag, LastModified: new Date().toISOString() }
}

export async function completeUpload (multipart: Multipart, owner: Owner, bucket: string, key: string, query: URLSearchParams, request: FastifyRequest, root: XmlElement): Promise<XmlNode> {
  const parts = root.children.filter((child) => child.name === 'Part')
  if (parts.length === 0 || parts.length > INPUT_LIMITS.s3CompleteParts) {
    throw new S3Error('MalformedXML', 400, `The XML you provided was not well-formed or did not validate against our published schema: a CompleteMultipartUpload names 1 to ${INPUT_LIMITS.s3CompleteParts} parts.`)
  }
  const chosen = parts.map((part) => ({ partNumber: partNumberOf(childNamed(part, 'PartNumber')?.text.trim() ?? null), etag: childNamed(part, 'ETag')?.text.trim() ?? '' }))
  const id = query.get('uploadId')!
  if ((await multipart.find(owner.userId, id)).path !== pathOf(bucket, key)) throw new S3Error('NoSuchUpload', 404, 'The specified upload does not exist.')
  const done = await multipart.complete(owner, id, chosen, writePreconditions(request.headers))
  return { Location: `/${bucket}/${key}`, Bucket: bucket, Key: key, ETag: done.etag }
}

export async function listParts (multipart: Multipart, userId: string, bucket: string, key: string, query: URLSearchParams): Promise<XmlNode> {
  const id = query.get('uploadId')!
  const maxParts = Math.min(Number(query.get('max-parts') ?? 1000) || 1000, 1000)
  const marker = Number(query.get('part-number-marker') ?? 0) || 0
  const parts = await multipart.parts(userId, id, marker, maxParts + 1)
  const shown = parts.slice(0, maxParts)
  const isTruncated = parts.length > maxParts
  return {
    Bucket: bucket, Key: key, UploadId: id, PartNumberMarker: marker, NextPartNumberMarker: isTruncated ? shown.at(-1)?.partNumber : undefined, MaxParts: maxParts, IsTruncated: isTruncated,
    StorageClass: 'STANDARD',
    Part: shown.map((part) => ({ PartNumber: part.partNumber, LastModified: part.uploadedAt.toISOString(), ETag: part.etag, Size: part.size }))
  }
}

export async function listUploads (multipart: Multipart, userId: string, bucket: string, query: URLSearchParams): Promise<XmlNode> {
  const maxUploads = Math.min(Number(query.get('max-uploads') ?? 1000) || 1000, 1000)
  const prefix = query.get('prefix') ?? ''
  const keyMarker = query.get('key-marker')
  const idMarker = query.get('upload-id-marker')
  const after = keyMarker ? { path: pathOf(bucket, keyMarker), id: idMarker ?? '\uffff' } : undefined
  const uploads = await multipart.list(userId, pathOf(bucket, prefix), maxUploads, after)
  const shown = uploads.slice(0, maxUploads)
  const isTruncated = uploads.length > maxUploads
  const last = shown.at(-1)
  return {
    Bucket: bucket, KeyMarker: keyMarker ?? '', UploadIdMarker: idMarker ?? '', Prefix: prefix, MaxUploads: maxUploads, IsTruncated: isTruncated,
    NextKeyMarker: isTruncated && last ? uploadKeyOf(bucket, last.path) : undefined, NextUploadIdMarker: isTruncated && last ? last.id : undefined,
    Upload: shown.map((upload) => ({ Key: uploadKeyOf(bucket, upload.path), UploadId: upload.id, Initiated: upload.createdAt.toISOString(), StorageClass: 'STANDARD' }))
  }
}
