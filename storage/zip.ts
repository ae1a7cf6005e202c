import { crc32 } from 'node:zlib'

/** One file of a zip: its name (UTF-8, `/` between folders), its time, and its bytes as they come. */
export interface ZipEntry {
  name: string
  date: Date
  /** Its length: ZIP64 fields are written for it at 4 GiB and past (a length read from the store,
   *  which the bytes must match). */
  size: number
  body: AsyncIterable<Uint8Array>
}

export interface ZipOptions {
  /** Lengths and offsets from which ZIP64 fields are written: 0xffffffff, as the format says; lower in tests. */
  zip64From?: number
}

const MADE_BY_UNIX = 3 << 8
const FILE_MODE = 0o100644
const DIRECTORY_MODE = 0o40755
// MS-DOS's directory attribute, in the low byte of the external attributes.
const MSDOS_DIRECTORY = 0x10
// bit 3: the CRC and sizes follow the bytes (a data descriptor); bit 11: the name is UTF-8.
const FLAGS = 0x0808
const STORED = 0
const MAX_16 = 0xffff
const MAX_32 = 0xffffffff

function dosTime (date: Date) {
  const time = (date.getHours() << 11) | (date.getMinutes() << 5) | Math.floor(date.getSeconds() / 2)
  const day = date.getFullYear() < 1980 ? (1 << 5) | 1 : ((date.getFullYear() - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate()
  return { time, day }
}

/** A little-endian record, field by field. */
function record (fields: Array<[bytes: 2 | 4 | 8, value: number]>, tail: Buffer[] = []) {
  const head = Buffer.alloc(fields.reduce((sum, [bytes]) => sum + bytes, 0))
  let at = 0
  for (const [bytes, value] of fields) {
    if (bytes === 2) head.writeUInt16LE(value, at)
    else if (bytes === 4) head.writeUInt32LE(value, at)
    else head.writeBigUInt64LE(BigInt(value), at)
    at += bytes
  }
  return Buffer.concat([head, ...tail])
}

/** A name ending in `/` is a folder's entry (of no bytes), any other a file's. */
const externalAttributes = (name: string) => name.endsWith('/') ? ((DIRECTORY_MODE << 16) | MSDOS_DIRECTORY) >>> 0 : (FILE_MODE << 16) >>> 0

/**
 * A zip of `entries`, stored (no compression: most of what people keep is compressed already, and
 * the zip then runs at the store's speed), made by Unix with mode 0644 (Info-ZIP's unzip reads the
 * names of MS-DOS entries as code page 437 whatever their UTF-8 flag), the CRC summed by Node's
 * native zlib.crc32 as the bytes pass, ZIP64 where a length or an offset needs it. Memory holds one
 * chunk and each entry's central record, whatever the sizes.
 */
export async function * zipOf (entries: AsyncIterable<ZipEntry>, { zip64From = MAX_32 }: ZipOptions = {}): AsyncGenerator<Buffer> {
  const central: Buffer[] = []
  let offset = 0
  for await (const { name, date, size, body } of entries) {
    const fileName = Buffer.from(name, 'utf8')
    const { time, day } = dosTime(date)
    const zip64 = size >= zip64From
    const version = zip64 ? 45 : 20
    // A ZIP64 entry says so in its local header, with sizes that its data descriptor gives.
    const localExtra = zip64 ? [record([[2, 0x0001], [2, 16], [8, 0], [8, 0]])] : []
    const local = record([[4, 0x04034b50], [2, version], [2, FLAGS], [2, STORED], [2, time], [2, day], [4, 0], [4, zip64 ? MAX_32 : 0], [4, zip64 ? MAX_32 : 0],
      [2, fileName.length], [2, localExtra.reduce((sum, extra) => sum + extra.length, 0)]], [fileName, ...localExtra])
    const start = offset
    yield local
    offset += local.length
    let crc = 0
    let length = 0
    for await (const chunk of body) {
      crc = crc32(chunk, crc)
      length += chunk.length
      yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    }
    if (length !== size) throw new Error(`${name} changed while it was zipped: ${length} bytes, not ${size}`)
    const descriptor = record([[4, 0x08074b50], [4, crc], ...(zip64 ? [[8, length], [8, length]] as Array<[8, number]> : [[4, length], [4, length]] as Array<[4, number]>)])
    yield descriptor
    offset += length + descriptor.length

    const farOffset = start >= zip64From
    const centralExtra: Array<[8, number]> = [...(zip64 ? [[8, length], [8, length]] as Array<[8, number]> : []), ...(farOffset ? [[8, start]] as Array<[8, number]> : [])]
    const extra = centralExtra.length > 0 ? [record([[2, 0x0001], [2, centralExtra.length * 8], ...centralExtra])] : []
    central.push(record([[4, 0x02014b50], [2, MADE_BY_UNIX | version], [2, farOffset ? 45 : version], [2, FLAGS], [2, STORED], [2, time], [2, day], [4, crc],
      [4, zip64 ? MAX_32 : length], [4, zip64 ? MAX_32 : length], [2, fileName.length], [2, extra.reduce((sum, part) => sum + part.length, 0)], [2, 0],
      [2, 0], [2, 0], [4, externalAttributes(name)], [4, farOffset ? MAX_32 : start]], [fileName, ...extra]))
  }

  const directoryStart = offset
  let directoryLength = 0
  for (const entry of central) {
    yield entry
    directoryLength += entry.length
  }
  const count = central.length
  if (count >= MAX_16 || directoryStart >= zip64From || directoryLength >= zip64From) {
    const directoryEnd = directoryStart + directoryLength
    yield record([[4, 0x06064b50], [8, 44], [2, MADE_BY_UNIX | 45], [2, 45], [4, 0], [4, 0], [8, count], [8, count], [8, directoryLength], [8, directoryStart]])
    yield record([[4, 0x07064b50], [4, 0], [8, directoryEnd], [4, 1]])
    yield record([[4, 0x06054b50], [2, 0], [2, 0], [2, MAX_16], [2, MAX_16], [4, MAX_32], [4, MAX_32], [2, 0]])
  } else {
    yield record([[4, 0x06054b50], [2, 0], [2, 0], [2, count], [2, count], [4, directoryLength], [4, directoryStart], [2, 0]])
  }
}
