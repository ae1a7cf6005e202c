import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join, relative, resolve, sep } from 'node:path'
import type { CliIo } from './io.js'
import { createProgress } from './progress.js'

/** What the last sync of a folder saw of each file, by its path relative to the folder. */
interface Recorded { size: number, mtimeMs: number, etag: string }
interface LocalFile { size: number, mtimeMs: number }
interface RemoteFile { size: number, etag: string }

export interface SyncTransport {
  /** Every file under `prefix`, by its key. */
  list (prefix: string): Promise<Map<string, RemoteFile>>
  upload (key: string, local: string, conditions: Record<string, string>): Promise<{ etag: string }>
  download (key: string, local: string): Promise<void>
  remove (key: string, conditions: Record<string, string>): Promise<void>
}

export interface SyncOptions {
  delete: boolean
  dryRun: boolean
  concurrency: number
  /** Where the record of each synced folder is kept. */
  stateDir: string
  /** The service, part of a record's identity: one folder may be synced with two services. */
  serviceUrl: string
  /** Local files changed after this time (ms) are still being written: left for a later pass. */
  settledBefore?: number
  /** A file on both sides that both changed: left alone and reported (the default), or settled:
   *  `here` sends this side's, `server` fetches the server's, `both` keeps both (the server's fetched
   *  beside this one as `name (server).ext`, this one sent; the server keeps what it replaced as a version). */
  resolve?: 'here' | 'server' | 'both'
}

/** `up` and `down` make one side like the other; `both` (sync --watch) sends each side's changes
 *  since the last sync to the other, and never deletes what is new there. */
export type SyncDirection = 'up' | 'down' | 'both'

export interface SyncSummary {
  direction: SyncDirection
  uploaded: string[]
  downloaded: string[]
  deleted: string[]
  unchanged: number
  conflicts: Array<{ path: string, reason: string }>
  /** Local files left for a later pass: still being written (with `settledBefore`). */
  unsettled: string[]
  dryRun: boolean
}

const isPreconditionFailure = (error: unknown) => /^412\b/.test((error as Error).message)

async function walk (root: string, into = new Map<string, LocalFile>(), dir = root): Promise<Map<string, LocalFile>> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) await walk(root, into, path)
    else if (entry.isFile() && !entry.name.endsWith('.part') && !entry.name.endsWith('.part.etag')) {
      const { size, mtimeMs } = await stat(path)
      into.set(relative(root, path).split(sep).join('/'), { size, mtimeMs })
    }
  }
  return into
}

async function md5Etag (path: string) {
  const hash = createHash('md5')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return `"${hash.digest('hex')}"`
}

/** `work` on each item, `concurrency` at a time. */
async function eachLimited<T> (items: T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) await work(items[next++])
  }))
}

/**
 * Makes a remote prefix like a local folder (`up`) or the reverse (`down`), copying only what is new
 * or changed, decided without downloading: sizes and times on the local side, ETags on the remote
 * one, and what the last sync of this folder recorded of both. A file changed on both sides since
 * then is a conflict, reported and left alone: an upload sends If-Match with the ETag last seen, a
 * delete too, and a download never replaces a local file changed since.
 */
export async function syncFolder (direction: SyncDirection, localDir: string, prefix: string, transport: SyncTransport, io: CliIo, options: SyncOptions): Promise<SyncSummary> {
  const statePath = join(options.stateDir, createHash('sha256').update([options.serviceUrl, prefix, resolve(localDir)].join('\n')).digest('hex').slice(0, 32) + '.json')
  const recorded: Record<string, Recorded> = JSON.parse(await readFile(statePath, 'utf8').catch(() => '{}'))
  if (direction !== 'up') await mkdir(localDir, { recursive: true })
  const [local, remote] = await Promise.all([walk(localDir), transport.list(prefix)])
  const remoteOf = (path: string) => remote.get(prefix + path)
  const summary: SyncSummary = { direction, uploaded: [], downloaded: [], deleted: [], unchanged: 0, conflicts: [], unsettled: [], dryRun: options.dryRun }
  const conflict = (path: string, reason: string) => { summary.conflicts.push({ path, reason }) }
  const unchangedLocally = (path: string, file: LocalFile | undefined) =>
    file !== undefined && recorded[path]?.size === file.size && recorded[path]?.mtimeMs === file.mtimeMs
  /** A file found on both sides with no record: the same when its MD5 is the remote ETag (fs, single-part S3). */
  const sameContent = async (path: string, file: RemoteFile) => (await md5Etag(join(localDir, path))) === file.etag

  const plan: Array<{ path: string, kind: 'uploaded' | 'downloaded' | 'deleted', act: () => Promise<void>, bytes: number }> = []
  /** What was synced of `path`: as it was before an upload (a change while it went up is sent next time), or after a download. */
  const remember = async (path: string, etag: string, as?: LocalFile) => {
    const { size, mtimeMs } = as ?? await stat(join(localDir, path))
    recorded[path] = { size, mtimeMs, etag }
  }

  /** Sends the local file at `path` over the version last seen there (or only where nothing is). */
  const upload = (path: string, file: LocalFile, conditions: Record<string, string>) => plan.push({
    path, kind: 'uploaded', bytes: file.size,
    act: async () => {
      try {
        const { etag } = await transport.upload(prefix + path, join(localDir, path), conditions)
        await remember(path, etag, file)
        summary.uploaded.push(path)
      } catch (error) {
        if (!isPreconditionFailure(error)) throw error
        conflict(path, 'changed on the server while it was being sent; not uploaded')
      }
    }
  })
  /** Fetches the remote file at `path` over the local one. */
  const download = (path: string, file: RemoteFile) => plan.push({
    path, kind: 'downloaded', bytes: file.size,
    act: async () => {
      const target = join(localDir, path)
      await mkdir(dirname(target), { recursive: true })
      await transport.download(prefix + path, target)
      await remember(path, file.etag)
      summary.downloaded.push(path)
    }
  })
  /** Deletes the remote file at `path`, only as it was seen (If-Match). */
  const removeRemote = (path: string, file: RemoteFile) => plan.push({
    path, kind: 'deleted', bytes: 0,
    act: async () => {
      try {
        await transport.remove(prefix + path, { 'if-match': file.etag })
        delete recorded[path]
        summary.deleted.push(path)
      } catch (error) {
        if (!isPreconditionFailure(error)) throw error
        conflict(path, 'changed on the server during the sync; not deleted')
      }
    }
  })
  const removeLocal = (path: string) => plan.push({
    path, kind: 'deleted', bytes: 0,
    act: async () => {
      await rm(join(localDir, path))
      delete recorded[path]
      summary.deleted.push(path)
    }
  })

  /** Two versions of `path`, one each side, both changed: as `options.resolve` says, else a conflict. */
  const settle = (path: string, here: LocalFile, there: RemoteFile, reason: string) => {
    if (options.resolve === 'here') upload(path, here, { 'if-match': there.etag })
    else if (options.resolve === 'server') download(path, there)
    else if (options.resolve === 'both') {
      const dot = path.lastIndexOf('.') > path.lastIndexOf('/') + 1 ? path.lastIndexOf('.') : path.length
      const beside = `${path.slice(0, dot)} (server)${path.slice(dot)}`
      plan.push({
        path: beside, kind: 'downloaded', bytes: there.size,
        act: async () => {
          await transport.download(prefix + path, join(localDir, beside))
          summary.downloaded.push(beside)
        }
      })
      upload(path, here, { 'if-match': there.etag })
    } else conflict(path, reason)
  }

  if (direction === 'both') {
    const paths = new Set([...local.keys(), ...[...remote.keys()].map((key) => key.slice(prefix.length)), ...Object.keys(recorded)])
    for (const path of paths) {
      const here = local.get(path)
      const there = remoteOf(path)
      const last = recorded[path]
      if (here && options.settledBefore !== undefined && here.mtimeMs > options.settledBefore) { summary.unsettled.push(path); continue }
      const changedHere = here !== undefined && !unchangedLocally(path, here)
      const changedThere = there !== undefined && there.etag !== last?.etag
      if (!here && !there) { delete recorded[path]; continue }
      if (here && there) {
        if (!changedHere && !changedThere) summary.unchanged++
        else if (!last && await sameContent(path, there)) { await remember(path, there.etag, here); summary.unchanged++ }
        else if (!last) settle(path, here, there, 'exists here and on the server with other content, and was never synced; both kept as they are (--resolve here|server|both settles it)')
        else if (changedHere && changedThere) settle(path, here, there, 'changed here and on the server since the last sync; both kept as they are (--resolve here|server|both settles it)')
        else if (changedHere) upload(path, here, { 'if-match': last.etag })
        else download(path, there)
      } else if (here) {
        // Not on the server: deleted there since the last sync (a record), or new here.
        if (!last) upload(path, here, { 'if-none-match': '*' })
        else if (changedHere) conflict(path, 'deleted on the server and changed here since the last sync; kept here')
        else if (options.delete) removeLocal(path)
        else upload(path, here, { 'if-none-match': '*' })
      } else if (there) {
        // Not here: deleted here since the last sync (a record), or new on the server.
        if (!last) download(path, there)
        else if (changedThere) conflict(path, 'deleted here and changed on the server since the last sync; kept on the server')
        else if (options.delete) removeRemote(path, there)
        else download(path, there)
      }
    }
  } else if (direction === 'up') {
    for (const [path, file] of local) {
      if (options.settledBefore !== undefined && file.mtimeMs > options.settledBefore) { summary.unsettled.push(path); continue }
      const there = remoteOf(path)
      const last = recorded[path]
      if (there && unchangedLocally(path, file) && last.etag === there.etag) { summary.unchanged++; continue }
      if (there && unchangedLocally(path, file)) { settle(path, file, there, 'changed on the server since the last sync; not uploaded (sync down to get it, or --resolve here|server|both)'); continue }
      if (there && !last && await sameContent(path, there)) { await remember(path, there.etag, file); summary.unchanged++; continue }
      if (there && !last) { settle(path, file, there, 'exists on the server with other content, and was never synced from here (--resolve here|server|both settles it)'); continue }
      if (there && last && last.etag !== there.etag) { settle(path, file, there, 'changed here and on the server since the last sync; not uploaded (--resolve here|server|both settles it)'); continue }
      // Only over the version last seen, or only where nothing is: never blindly.
      upload(path, file, last && there ? { 'if-match': last.etag } : { 'if-none-match': '*' })
    }
    if (options.delete) {
      for (const [key, file] of remote) {
        const path = key.slice(prefix.length)
        if (!local.has(path)) removeRemote(path, file)
      }
    }
  } else {
    for (const [key, file] of remote) {
      const path = key.slice(prefix.length)
      const here = local.get(path)
      const last = recorded[path]
      if (here && unchangedLocally(path, here) && last.etag === file.etag) { summary.unchanged++; continue }
      if (here && last && !unchangedLocally(path, here) && last.etag !== file.etag) { settle(path, here, file, 'changed here and on the server since the last sync; kept as it is here (--resolve here|server|both settles it)'); continue }
      if (here && last && !unchangedLocally(path, here)) { conflict(path, 'changed here since the last sync; not replaced (sync up to send it)'); continue }
      if (here && !last && await sameContent(path, file)) { await remember(path, file.etag); summary.unchanged++; continue }
      if (here && !last) { settle(path, here, file, 'exists here with other content, and was never synced from the server (--resolve here|server|both settles it)'); continue }
      download(path, file)
    }
    if (options.delete) {
      for (const [path, here] of local) {
        if (remoteOf(path)) continue
        if (!unchangedLocally(path, here)) { conflict(path, 'not on the server, and changed here since the last sync (or never synced); not deleted'); continue }
        removeLocal(path)
      }
    }
  }

  if (options.dryRun) {
    for (const { path, kind } of plan) summary[kind].push(path)
    return summary
  }
  const progress = createProgress(io, `sync ${plan.length} files`, plan.reduce((total, step) => total + step.bytes, 0))
  try {
    await eachLimited(plan, options.concurrency, async (step) => {
      await step.act()
      progress.advance(step.bytes)
    })
  } finally {
    progress.finish()
    await mkdir(options.stateDir, { recursive: true, mode: 0o700 })
    await writeFile(statePath + '.tmp', JSON.stringify(recorded))
    await rename(statePath + '.tmp', statePath)
  }
  return summary
}
