// What the data layer and the storage layer both speak of, below both: the order of keys, a write's
// preconditions, a staged upload's state, a newest-first page's cursor, and how S3 writes a name in a
// URL (the S3 driver's requests and the S3 endpoint's signature check both write it). db/ imports these from
// here, never from storage/ (the data layer does not climb to the services).

/** Keys in the order S3 lists them: by their UTF-8 bytes. */
export function compareKeys (a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}

/** RFC 3986 encoding, as S3 and SigV4 write names, values and path segments: encodeURIComponent
 *  leaves `!'()*` as they are. */
export const uriEncode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

/** If-Match and If-None-Match of a write, as lists of quoted ETags or `*`. */
export interface Preconditions {
  ifMatch?: string[]
  ifNoneMatch?: string[]
}

/** A staged write's progress between its pieces: plain JSON, kept by the caller (in the database). */
export type StagedState = Record<string, unknown>

/** Where a newest-first page ends: the last row's time (ISO 8601) and id; the next page starts after it. */
export interface NewestFirstCursor { at: string, id: string }
