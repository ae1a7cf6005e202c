import type { ObjectStore } from '../../storage/object-store.js'
import type { Publisher } from '../../storage/publisher.js'

/** One write of a buffer, unconditional and unbounded. */
export const putBytes = (publisher: Pick<Publisher, 'write'>, key: string, body: Buffer, contentType: string) =>
  publisher.write(key, [body], { contentType, maxBytes: Infinity })

/** The whole object, its body read into memory. */
export async function getBytes (store: Pick<ObjectStore, 'read'>, key: string) {
  const read = await store.read(key)
  if (!read) return undefined
  const chunks: Buffer[] = []
  for await (const chunk of read.body) chunks.push(chunk as Buffer)
  return { ...read, body: Buffer.concat(chunks) }
}
