import type { FastifyReply } from 'fastify'
import type { Metadata } from '../storage/object-store.js'
import { S3Error } from './errors.js'

const PREFIX = 'x-amz-meta-'
// As S3 allows: the names and values of a PUT's user metadata, together.
const MAX_METADATA_BYTES = 2048

/** A request's x-amz-meta-* (names without the prefix); MetadataTooLarge past 2 KiB. */
export function metadataOf (headers: Record<string, string | string[] | undefined>): Metadata {
  const metadata: Metadata = {}
  let bytes = 0
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(PREFIX) || value === undefined) continue
    const text = Array.isArray(value) ? value.join(',') : value
    metadata[name.slice(PREFIX.length)] = text
    bytes += Buffer.byteLength(name.slice(PREFIX.length)) + Buffer.byteLength(text)
  }
  if (bytes > MAX_METADATA_BYTES) throw new S3Error('MetadataTooLarge', 400, `Your metadata headers exceed the maximum allowed metadata size (${MAX_METADATA_BYTES} bytes).`)
  return metadata
}

export function sendMetadata (reply: FastifyReply, metadata: Metadata) {
  for (const [name, value] of Object.entries(metadata)) reply.header(PREFIX + name, value)
}
