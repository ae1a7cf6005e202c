// HTTP's conditional and range requests (RFC 9110 §13 and §14), read from headers into what the
// file service and the stores take, and the rules that decide them.
import { BadRequestError, PreconditionFailedError } from '../errors.js'
import type { ObjectInfo, Preconditions, RangeRequest } from './object-store.js'

const ETAG_LIST = /^\s*(?:\*|(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"(?:\s*,\s*(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*")*)\s*$/
const ETAG = /(?:W\/)?"[^"]*"|\*/g

/** `*` or a list of quoted ETags; undefined when the header is absent, 400 when it is malformed. */
export function parseEtags (name: string, header: string | undefined): string[] | undefined {
  if (header === undefined) return undefined
  if (!ETAG_LIST.test(header)) throw new BadRequestError(`${name} must be * or a list of quoted ETags, such as "5d41402abc4b2a76b9719d911017c592"`)
  return header.match(ETAG) ?? []
}

/** If-Match and If-None-Match of a write. */
export function writePreconditions (headers: { 'if-match'?: string, 'if-none-match'?: string }): Preconditions {
  return { ifMatch: parseEtags('If-Match', headers['if-match']), ifNoneMatch: parseEtags('If-None-Match', headers['if-none-match']) }
}

/**
 * One range of bytes (`bytes=a-b`, `bytes=a-`, `bytes=-n`). Anything else is ignored, as RFC 9110
 * allows, and the whole file is sent: several ranges, another unit, or a malformed header.
 */
export function parseRange (header: string | undefined): RangeRequest | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '')
  if (!match || (match[1] === '' && match[2] === '')) return undefined
  const [start, end] = [match[1], match[2]].map((digits) => digits === '' ? undefined : Number(digits))
  if ([start, end].some((value) => value !== undefined && !Number.isSafeInteger(value))) return undefined
  if (start === undefined) return { suffix: end as number }
  if (end !== undefined && end < start) return undefined
  return { start, end }
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000)

function parseDate (header: string | undefined): Date | undefined {
  const time = header === undefined ? NaN : Date.parse(header)
  return Number.isNaN(time) ? undefined : new Date(time)
}

export interface ReadConditions {
  ifNoneMatch?: string[]
  ifModifiedSince?: Date
  /** An ETag or an HTTP date, as sent. */
  ifRange?: string
}

export function readConditions (headers: { 'if-none-match'?: string, 'if-modified-since'?: string, 'if-range'?: string }): ReadConditions {
  return {
    ifNoneMatch: parseEtags('If-None-Match', headers['if-none-match']),
    ifModifiedSince: parseDate(headers['if-modified-since']),
    ifRange: headers['if-range']
  }
}

/** Whether a GET may be answered 304: If-None-Match when sent, else If-Modified-Since. */
export function isNotModified (current: ObjectInfo, { ifNoneMatch, ifModifiedSince }: ReadConditions): boolean {
  if (ifNoneMatch) return matchesAny(ifNoneMatch, current)
  return ifModifiedSince !== undefined && seconds(current.lastModified) <= seconds(ifModifiedSince)
}

/** If-Range: the range is sent only if the file is still the one the client has (strong comparison). */
export function rangeStillApplies (ifRange: string | undefined, current: ObjectInfo): boolean {
  if (ifRange === undefined) return true
  const value = ifRange.trim()
  if (value.startsWith('"')) return value === current.etag
  const date = parseDate(value)
  return date !== undefined && seconds(date) === seconds(current.lastModified)
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
