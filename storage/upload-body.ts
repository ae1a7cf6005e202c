import type { Readable } from 'node:stream'
import { BadRequestError, PayloadTooLargeError } from '../errors.js'
import { decodeStrictBase64 } from './base64.js'

export interface ParsedUpload {
  /** The JSON object, with `content` emptied when it was decoded straight from the body. */
  body: unknown
  /** The decoded file, when `content` was a string. */
  bytes?: Buffer
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const isSpace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d

async function readAll (payload: Readable, declaredLength: number | undefined, limit: number): Promise<Buffer> {
  const tooLarge = () => new PayloadTooLargeError('Request body is too large')
  if (declaredLength !== undefined && declaredLength > limit) throw tooLarge()
  const chunks: Buffer[] = []
  let total = 0
  // With a declared length, one buffer is filled in place: no second copy of the body.
  const whole = declaredLength === undefined ? undefined : Buffer.allocUnsafe(declaredLength)
  for await (const chunk of payload as AsyncIterable<Buffer>) {
    if (total + chunk.length > (whole?.length ?? limit)) throw tooLarge()
    if (whole) chunk.copy(whole, total)
    else chunks.push(chunk)
    total += chunk.length
  }
  return whole ? whole.subarray(0, total) : Buffer.concat(chunks, total)
}

function skipSpace (raw: Buffer, at: number) {
  while (at < raw.length && isSpace(raw[at])) at++
  return at
}

/** The index just past the string starting at `at` (a quote), or -1. */
function skipString (raw: Buffer, at: number) {
  for (let i = at + 1; i < raw.length; i++) {
    if (raw[i] === BACKSLASH) i++
    else if (raw[i] === QUOTE) return i + 1
  }
  return -1
}

/** The index just past a scalar, object or array starting at `at`; its validity is left to JSON.parse. */
function skipValue (raw: Buffer, at: number) {
  if (raw[at] === QUOTE) return skipString(raw, at)
  let depth = 0
  for (let i = at; i < raw.length; i++) {
    const byte = raw[i]
    if (byte === QUOTE) {
      const next = skipString(raw, i)
      if (next < 0) return -1
      i = next - 1
    } else if (byte === 0x7b || byte === 0x5b) {
      depth++
    } else if (byte === 0x7d || byte === 0x5d) {
      if (depth === 0) return i
      if (--depth === 0) return i + 1
    } else if (byte === 0x2c && depth === 0) {
      return i
    }
  }
  return -1
}

/**
 * Where the top-level "content" string lies in the body, when it is plain (no escapes) and the
 * only one; undefined sends the body to JSON.parse whole.
 */
function findContent (raw: Buffer): { start: number, end: number } | undefined {
  let at = skipSpace(raw, 0)
  if (raw[at] !== 0x7b) return undefined
  let found: { start: number, end: number } | undefined
  for (at = skipSpace(raw, at + 1); raw[at] !== 0x7d;) {
    if (raw[at] !== QUOTE) return undefined
    const keyEnd = skipString(raw, at)
    if (keyEnd < 0) return undefined
    const key = raw.toString('latin1', at + 1, keyEnd - 1)
    if (key.includes('\\')) return undefined
    at = skipSpace(raw, keyEnd)
    if (raw[at] !== 0x3a) return undefined
    at = skipSpace(raw, at + 1)
    if (key === 'content') {
      if (found || raw[at] !== QUOTE) return undefined
      const end = raw.indexOf(QUOTE, at + 1)
      if (end < 0 || raw.subarray(at + 1, end).includes(BACKSLASH)) return undefined
      found = { start: at + 1, end }
      at = end + 1
    } else {
      at = skipValue(raw, at)
      if (at < 0) return undefined
    }
    at = skipSpace(raw, at)
    if (raw[at] === 0x2c) at = skipSpace(raw, at + 1)
    else if (raw[at] !== 0x7d) return undefined
  }
  return skipSpace(raw, at + 1) === raw.length ? found : undefined
}

function parseJson (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new BadRequestError(`body is not valid JSON: ${(error as Error).message}`)
  }
}

/**
 * Reads an upload `{content, contentType}` and decodes `content` from the body's own bytes, so that
 * a large file is held once as base64 and once decoded, never as a JavaScript string.
 */
export async function parseUpload (payload: Readable, declaredLength: number | undefined, limit: number, maxFileBytes: number): Promise<ParsedUpload> {
  const raw = await readAll(payload, declaredLength, limit)
  // A DELETE or GET sent with a JSON content type and nothing else: no body, not bad JSON.
  if (raw.length === 0) return { body: undefined }
  const content = findContent(raw)
  if (content) {
    const body = parseJson(raw.toString('utf8', 0, content.start) + raw.toString('utf8', content.end)) as Record<string, unknown>
    return { body, bytes: decodeStrictBase64(raw.subarray(content.start, content.end), maxFileBytes) }
  }
  const body = parseJson(raw.toString('utf8'))
  const text = (body as { content?: unknown } | null)?.content
  return typeof text === 'string' ? { body, bytes: decodeStrictBase64(Buffer.from(text, 'utf8'), maxFileBytes) } : { body }
}
