import type { Readable } from 'node:stream'
import { BadRequestError, PayloadTooLargeError, RequestTimeoutError } from '../errors.js'
import type { ByteBudget } from '../limits.js'
import { decodeStrictBase64 } from './base64.js'

export interface UploadOptions {
  /** Upload bytes held across the process: past it, the upload is refused with 503. */
  memory?: ByteBudget
  /** The whole body must arrive within this; a body trickling in is cut off. */
  timeoutMs?: number
}

export interface ParsedUpload {
  /** The JSON object, with `content` emptied when it was decoded straight from the body. */
  body: unknown
  /** The decoded file, when `content` was a string. */
  bytes?: Buffer
  /** Bytes taken from the memory budget: the caller gives them back once the request is done. */
  held: number
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const isSpace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d

async function readAll (payload: Readable, declaredLength: number | undefined, limit: number, maxFileBytes: number, { memory, timeoutMs }: UploadOptions) {
  // A body over the limit holds a file over the maximum: the caller hears about the file.
  const tooLarge = () => new PayloadTooLargeError(`file is larger than ${maxFileBytes} bytes`)
  if (declaredLength !== undefined && declaredLength > limit) throw tooLarge()
  let held = 0
  const hold = (bytes: number) => {
    memory?.take(bytes)
    held += bytes
  }
  const timer = timeoutMs === undefined
    ? undefined
    : setTimeout(() => payload.destroy(new RequestTimeoutError('the request body took too long to arrive')), timeoutMs)
  try {
    // With a declared length, one buffer is filled in place: no second copy of the body.
    if (declaredLength !== undefined) hold(declaredLength)
    const chunks: Buffer[] = []
    let total = 0
    const whole = declaredLength === undefined ? undefined : Buffer.allocUnsafe(declaredLength)
    // Not destroyed on a refusal: the answer still has to go out on its connection, and the error
    // handler drains the rest (plugins/errors.ts, closeAfterLinger).
    for await (const chunk of payload.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      if (total + chunk.length > (whole?.length ?? limit)) throw tooLarge()
      if (whole) chunk.copy(whole, total)
      else { hold(chunk.length); chunks.push(chunk) }
      total += chunk.length
    }
    return { raw: whole ? whole.subarray(0, total) : Buffer.concat(chunks, total), held }
  } catch (error) {
    memory?.give(held)
    throw error
  } finally {
    clearTimeout(timer)
  }
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

const FIELDS = new Set(['content', 'contentType'])

/**
 * Where the top-level "content" string lies in the body, when it is plain (no escapes) and the
 * only one; undefined sends the body to JSON.parse whole. An upload has two string fields and
 * nothing else: any other field, or a value that is not a string, is refused here, before a deeply
 * nested decoy could keep JSON.parse busy.
 */
function findContent (raw: Buffer): { start: number, end: number } | undefined {
  let at = skipSpace(raw, 0)
  if (raw[at] !== 0x7b) throw new BadRequestError('body must be a JSON object')
  let found: { start: number, end: number } | undefined
  let plain = true
  for (at = skipSpace(raw, at + 1); raw[at] !== 0x7d;) {
    if (raw[at] !== QUOTE) return undefined
    const keyEnd = skipString(raw, at)
    if (keyEnd < 0) return undefined
    const key = parseJson(raw.toString('utf8', at, keyEnd)) as string
    if (!FIELDS.has(key)) throw new BadRequestError(`body must have only content and contentType, not ${JSON.stringify(key.slice(0, 40))}`)
    at = skipSpace(raw, keyEnd)
    if (raw[at] !== 0x3a) return undefined
    at = skipSpace(raw, at + 1)
    if (raw[at] !== QUOTE) throw new BadRequestError(`${key} (in the body) must be a string`)
    const valueEnd = skipString(raw, at)
    if (valueEnd < 0) return undefined
    if (key === 'content') {
      // An escaped or repeated content is left to JSON.parse, which gives it its JSON meaning.
      if (found || raw.subarray(at + 1, valueEnd - 1).includes(BACKSLASH)) plain = false
      found = { start: at + 1, end: valueEnd - 1 }
    }
    at = skipSpace(raw, valueEnd)
    if (raw[at] === 0x2c) at = skipSpace(raw, at + 1)
    else if (raw[at] !== 0x7d) return undefined
  }
  return plain && skipSpace(raw, at + 1) === raw.length ? found : undefined
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
export async function parseUpload (
  payload: Readable, declaredLength: number | undefined, limit: number, maxFileBytes: number, options: UploadOptions = {}
): Promise<ParsedUpload> {
  const { raw, held } = await readAll(payload, declaredLength, limit, maxFileBytes, options)
  try {
    return { ...decodeUpload(raw, maxFileBytes), held }
  } catch (error) {
    options.memory?.give(held)
    throw error
  }
}

function decodeUpload (raw: Buffer, maxFileBytes: number): { body: unknown, bytes?: Buffer } {
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
