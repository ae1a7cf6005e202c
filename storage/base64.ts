import { BadRequestError, PayloadTooLargeError } from '../errors.js'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const PAD = 0x3d
// Value of each base64 byte, -1 for any other byte.
const VALUE = new Int8Array(256).fill(-1)
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i
// Decoding goes through strings this long, so that no string as large as the file is made.
const CHUNK = 64 * 1024

const notBase64 = () => new BadRequestError('content must be standard base64 with padding')

/**
 * Decodes standard, padded, canonical base64 (RFC 4648 §4: no whitespace, zero pad bits) held as
 * ASCII bytes, into `source`'s own memory: the file is never held twice. The source is checked
 * whole first, then overwritten from its start: each step's output ends before the next step's
 * input begins (3 bytes out for 4 in).
 */
export function decodeStrictBase64 (source: Buffer, maxBytes: number): Buffer {
  const length = source.length
  if (length % 4 !== 0) throw notBase64()
  const padding = length === 0 || source[length - 1] !== PAD ? 0 : source[length - 2] === PAD ? 2 : 1
  const size = (length / 4) * 3 - padding
  if (size > maxBytes) throw new PayloadTooLargeError(`file is larger than ${maxBytes} bytes`)
  const dataEnd = length - padding
  for (let i = 0; i < dataEnd; i++) if (VALUE[source[i]] < 0) throw notBase64()
  if (padding > 0 && (VALUE[source[dataEnd - 1]] & (padding === 1 ? 0b11 : 0b1111)) !== 0) throw notBase64()
  let written = 0
  for (let at = 0; at < length; at += CHUNK) {
    written += source.write(source.toString('latin1', at, Math.min(at + CHUNK, length)), written, 'base64')
  }
  return source.subarray(0, size)
}
