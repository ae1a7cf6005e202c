import { randomInt } from 'node:crypto'
import { crc32 } from 'node:zlib'

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export const KEY_ID_LENGTH = 10
export const KEY_SECRET_LENGTH = 32
export const KEY_CHECKSUM_LENGTH = 6

function randomBase62 (length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)]
  return out
}

export function toBase62 (value: number, width: number): string {
  let out = ''
  for (let rest = value; rest > 0; rest = Math.floor(rest / 62)) out = BASE62[rest % 62] + out
  return out.padStart(width, '0')
}

/** CRC32 of `<prefix>_<id><secret>`, unsigned, in base62, left-padded to 6 characters. */
export function keyChecksum (prefix: string, id: string, secret: string): string {
  return toBase62(crc32(`${prefix}_${id}${secret}`) >>> 0, KEY_CHECKSUM_LENGTH)
}

export function generateApiKey (prefix: string) {
  const id = randomBase62(KEY_ID_LENGTH)
  const secret = randomBase62(KEY_SECRET_LENGTH)
  return { id, key: `${prefix}_${id}${secret}${keyChecksum(prefix, id, secret)}`, start: `${prefix}_${id}` }
}

/** The key id of a well-formed key with a valid checksum; undefined otherwise. Does no I/O. */
export function parseApiKey (prefix: string, token: string): { id: string } | undefined {
  const body = token.startsWith(prefix + '_') ? token.slice(prefix.length + 1) : undefined
  if (body?.length !== KEY_ID_LENGTH + KEY_SECRET_LENGTH + KEY_CHECKSUM_LENGTH || !/^[0-9A-Za-z]+$/.test(body)) return undefined
  const id = body.slice(0, KEY_ID_LENGTH)
  const secret = body.slice(KEY_ID_LENGTH, KEY_ID_LENGTH + KEY_SECRET_LENGTH)
  return body.slice(-KEY_CHECKSUM_LENGTH) === keyChecksum(prefix, id, secret) ? { id } : undefined
}
