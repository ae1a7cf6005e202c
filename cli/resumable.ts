import { createHash } from 'node:crypto'
import { mkdir, open, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { causeOf } from './io.js'

// Pieces of the size the deploy guide's proxy takes (16 MiB cap) with room to spare.
const PIECE_BYTES = 8 * 1024 * 1024

export interface ResumableTarget {
  /** The service's URL, without a trailing slash. */
  base: string
  /** Fresh credentials for each request (an aws-sso signature is good for one). */
  headers: () => Promise<Record<string, string>>
  /** Where the URL of each unfinished upload is kept, to resume it. */
  stateDir: string
  /** The error to throw when the connection drops. */
  failure: (message: string) => Error
  /** The error to throw for a refusal, of this status and message. */
  refused: (status: number, message: string) => Error
}

/** A refusal's message: Stowage's own errors are JSON, tus' plain text. */
async function messageOf (answer: Response): Promise<string> {
  const text = (await answer.text()).trim()
  try {
    return (JSON.parse(text) as { error?: string }).error ?? text
  } catch {
    return text || answer.statusText
  }
}

const metadata = (fields: Record<string, string | undefined>) => Object.entries(fields)
  .filter((entry): entry is [string, string] => entry[1] !== undefined)
  .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`).join(',')

/**
 * A file uploaded in pieces with the tus protocol (`/api/uploads`): an upload cut off (a dropped
 * connection, a closed laptop) goes on from where the server got to when the same command runs
 * again, as long as the file has not changed. `conditions` are the destination's If-Match /
 * If-None-Match, checked when the upload completes.
 */
export async function uploadResumable (target: ResumableTarget, path: string, local: string, contentType: string,
  conditions: Record<string, string>, onBytes: (n: number) => void) {
  const { size, mtimeMs } = await stat(local)
  const recordPath = join(target.stateDir, createHash('sha256').update([target.base, path, resolve(local), size, mtimeMs].join('\n')).digest('hex').slice(0, 32))
  const send = async (url: string, init: RequestInit) => {
    try {
      return await fetch(url, { ...init, headers: { ...await target.headers(), 'tus-resumable': '1.0.0', ...init.headers } })
    } catch (error) {
      throw target.failure(`the upload stopped (${causeOf(error)}); run the same command again to continue`)
    }
  }

  let url = (await readFile(recordPath, 'utf8').catch(() => '')).trim()
  let offset = 0
  if (url) {
    const head = await send(url, { method: 'HEAD' })
    if (head.ok) offset = Number(head.headers.get('upload-offset'))
    else url = ''
  }
  if (!url) {
    const created = await send(`${target.base}/api/uploads`, {
      method: 'POST',
      headers: {
        'upload-length': String(size),
        'upload-metadata': metadata({ path, contentType, ifMatch: conditions['if-match'], ifNoneMatch: conditions['if-none-match'] })
      }
    })
    if (created.status !== 201) throw target.refused(created.status, await messageOf(created))
    // Only the id: a proxy that serves Stowage under a path prefix keeps it in `base`, not in Location.
    url = `${target.base}/api/uploads/${created.headers.get('location')!.split('/').pop()}`
    await mkdir(target.stateDir, { recursive: true, mode: 0o700 })
    await writeFile(recordPath, url, { mode: 0o600 })
  }
  onBytes(offset)

  const file = await open(local, 'r')
  const piece = Buffer.allocUnsafe(Math.min(PIECE_BYTES, Math.max(size, 1)))
  let etag: string | null = null
  try {
    do {
      const { bytesRead } = await file.read(piece, 0, Math.min(piece.length, size - offset), offset)
      const answer = await send(url, {
        method: 'PATCH',
        headers: { 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
        body: piece.subarray(0, bytesRead)
      })
      if (answer.status !== 204) throw target.refused(answer.status, await messageOf(answer))
      offset = Number(answer.headers.get('upload-offset'))
      etag = answer.headers.get('etag')
      onBytes(bytesRead)
    } while (offset < size)
  } finally {
    await file.close()
  }
  await rm(recordPath, { force: true })
  return { key: path, size, contentType, etag }
}
