// Files of any size: raw GET throughput against the store read directly, and the server's peak
// memory for raw transfers of 64 MiB and 1 GiB (DESIGN.md §9).
import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { promisify } from 'node:util'
import { generatedFile, putStream } from '../test/helpers/streams.js'

const MIB = 1024 * 1024

export interface StreamingTarget {
  /** Where the service listens, and its process. */
  port: number
  pid: number
  headers: Record<string, string>
}

/** Bytes/s of one GET of `url`, the body drained as it comes. */
export function download (url: string, headers: Record<string, string> = {}): Promise<{ bytes: number, seconds: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    request(url, { headers }, (res) => {
      let bytes = 0
      res.on('data', (chunk: Buffer) => { bytes += chunk.length })
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`GET ${url}: ${res.statusCode}`))
        else resolve({ bytes, seconds: (performance.now() - started) / 1000 })
      })
      res.on('error', reject)
    }).on('error', reject).end()
  })
}

/** MB/s of each source, in turns, best of `rounds`: the machine's drift falls on all alike. */
export async function compareThroughput (sources: Array<{ url: string, headers?: Record<string, string> }>, rounds = 3) {
  const best = sources.map(() => 0)
  for (let round = 0; round < rounds; round++) {
    for (let step = 0; step < sources.length; step++) {
      const i = (round + step) % sources.length
      const { bytes, seconds } = await download(sources[i].url, sources[i].headers)
      best[i] = Math.max(best[i], bytes / MIB / seconds)
    }
  }
  return best
}

async function rss (pid: number, field: 'VmRSS' | 'VmHWM') {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) * 1024
}

/** Peak RSS growth of `pid` while `work` runs: its high-water mark is reset first (Linux, root). */
export async function peakGrowth (pid: number, work: () => Promise<unknown>) {
  await writeFile(`/proc/${pid}/clear_refs`, '5')
  const before = await rss(pid, 'VmRSS')
  await work()
  return (await rss(pid, 'VmHWM')) - before
}

/** The server's peak RSS growth for a raw PUT, then a raw GET, of `mib` MiB. */
export async function transferGrowth (target: StreamingTarget, path: string, mib: number) {
  const put = await peakGrowth(target.pid, async () => {
    const answer = await putStream({ port: target.port, path, headers: target.headers }, generatedFile(mib), mib * MIB)
    if (answer.status !== 200) throw new Error(`raw PUT of ${mib} MiB: ${answer.status} ${answer.body}`)
  })
  const get = await peakGrowth(target.pid, () => download(`http://127.0.0.1:${target.port}${path}`, target.headers))
  return { put, get }
}

/** One tus upload of `body` with tus-js-client, in pieces of `chunkMib` MiB. */
async function tusUpload (target: StreamingTarget, path: string, body: Buffer, chunkMib: number) {
  const tus = await import('tus-js-client')
  await new Promise<void>((resolve, reject) => {
    new tus.Upload(body, {
      endpoint: `http://127.0.0.1:${target.port}/api/uploads`,
      headers: target.headers,
      metadata: { path },
      chunkSize: chunkMib * MIB,
      retryDelays: [],
      onSuccess: () => resolve(),
      onError: reject
    }).start()
  })
}

/** Runs `work`, the page cache's dirty pages written out first and its file deleted after. */
async function measured (target: StreamingTarget, path: string, work: () => Promise<unknown>) {
  // Without this, a measure pays for writing out the one before it, and tus always came second.
  await promisify(execFile)('sync')
  const started = performance.now()
  await work()
  const seconds = (performance.now() - started) / 1000
  const removed = await fetch(`http://127.0.0.1:${target.port}/api/raw/${path}`, { method: 'DELETE', headers: target.headers })
  if (removed.status !== 204) throw new Error(`DELETE ${path}: ${removed.status}`)
  return seconds
}

/**
 * Seconds of a raw PUT and of a tus upload in 8 MiB pieces of the same `mib` MiB, best of three
 * rounds, in turns, which goes first changing each round, and the server's peak RSS growth during
 * a tus upload. Both clients send from memory, as a browser slices a File: tus-js-client's Node
 * stream source concatenates its buffer as it reads, a cost of that client (a third of the time
 * here), not of the server.
 */
export async function tusAgainstRaw (target: StreamingTarget, mib: number, pieceMib = 8) {
  const body = Buffer.concat([...generatedFile(mib)])
  const best = { raw: Infinity, tus: Infinity, tusGrowth: 0 }
  const raw = async () => {
    const seconds = await measured(target, 'bench/raw.bin', async () => {
      const { status } = await putStream({ port: target.port, path: '/api/raw/bench/raw.bin', headers: target.headers }, [body], body.length)
      if (status !== 200) throw new Error(`raw PUT of ${mib} MiB: ${status}`)
    })
    best.raw = Math.min(best.raw, seconds)
  }
  const tus = async () => {
    let growth = 0
    const seconds = await measured(target, 'bench/tus.bin', async () => {
      growth = await peakGrowth(target.pid, () => tusUpload(target, 'bench/tus.bin', body, pieceMib))
    })
    best.tus = Math.min(best.tus, seconds)
    best.tusGrowth = Math.max(best.tusGrowth, growth)
  }
  for (let round = 0; round < 3; round++) {
    for (const measure of round % 2 === 0 ? [raw, tus] : [tus, raw]) await measure()
  }
  return best
}
