import { createHash, type Hash } from 'node:crypto'
import { mkdir, open, rm, writeFile, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { checkStagedId, limitBytes, untilCut, type StagedObject, type StagedWrites } from './object-store.js'
import { DIR_MODE, ETAG_AT, etagBytes, FILE_MODE, header, HEADER_BYTES, md5Etag, READ_CHUNK_BYTES, writeHashed } from './fs-object-file.js'

// Hashes of staged uploads kept between their pieces, so that a resumed upload is not read again.
const STAGED_HASHES_KEPT = 1000

/**
 * Resumable uploads on fs: each is a file in `dir`, shared by the instances, its body written at its
 * place after the header's room, and renamed into place whole by `complete`. Its ETag is the MD5 of
 * the whole body, as for any other write: the hash runs in memory across pieces, and is computed
 * again from the file when a piece arrives at another instance or after a restart.
 */
export function createStagedWrites (
  dir: string,
  publishable: (path: string, key: string, staged: { etag: string, size: number, contentType: string }) => StagedObject
): StagedWrites {
  const hashes = new Map<string, { hash: Hash, offset: number }>()
  const pathOf = (id: string) => {
    checkStagedId(id)
    return join(dir, id)
  }

  /** The MD5 of the first `offset` bytes of the staged body, from memory or from the file. */
  async function hashUpTo (id: string, handle: FileHandle, offset: number): Promise<Hash> {
    const kept = hashes.get(id)
    hashes.delete(id)
    if (kept?.offset === offset) return kept.hash
    const { size } = await handle.stat()
    if (size < HEADER_BYTES + offset) throw new Error(`staged upload ${id} holds fewer bytes than recorded`)
    const hash = createHash('md5')
    if (offset === 0) return hash
    for await (const chunk of handle.createReadStream({ start: HEADER_BYTES, end: HEADER_BYTES + offset - 1, autoClose: false, highWaterMark: READ_CHUNK_BYTES })) {
      hash.update(chunk)
    }
    return hash
  }

  function keep (id: string, hash: Hash, offset: number) {
    if (hashes.size >= STAGED_HASHES_KEPT) hashes.delete(hashes.keys().next().value as string)
    hashes.set(id, { hash, offset })
  }

  return {
    async begin (id, _key, contentType) {
      const room = header(contentType)
      await mkdir(dir, { recursive: true, mode: DIR_MODE })
      await writeFile(pathOf(id), room, { flag: 'wx', mode: FILE_MODE })
      return {}
    },

    async append (id, _key, state, body, { offset, length }) {
      const handle = await open(pathOf(id), 'r+')
      try {
        const hash = await hashUpTo(id, handle, offset)
        const position = await writeHashed(handle, limitBytes(untilCut(body, {}), length - offset), HEADER_BYTES + offset, hash) - HEADER_BYTES
        await handle.truncate(HEADER_BYTES + position)
        keep(id, hash, position)
        return { state, offset: position }
      } finally {
        await handle.close()
      }
    },

    async finish (id, key, _state, contentType) {
      const path = pathOf(id)
      const handle = await open(path, 'r+')
      let staged
      try {
        const size = (await handle.stat()).size - HEADER_BYTES
        const etag = md5Etag(await hashUpTo(id, handle, size))
        const headerBytes = header(contentType)
        etagBytes(etag).copy(headerBytes, ETAG_AT)
        await handle.write(headerBytes, 0, HEADER_BYTES, 0)
        staged = { etag, size, contentType }
      } finally {
        await handle.close()
      }
      return publishable(path, key, staged)
    },

    async discard (id) {
      hashes.delete(id)
      await rm(pathOf(id), { force: true })
    }
  }
}
