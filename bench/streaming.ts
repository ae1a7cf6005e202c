// Files of any size: raw GET throughput against the store read directly, and the server's peak
// memory for raw transfers of 64 MiB and 1 GiB (DESIGN.md §9).
import { readFile, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { generatedFile, putStream } from '../test/helpers/streams.js'

const MIB = 1024 * 1024

export interface StreamingTarget {
  /** Where the service listens, and its process. */
  port: number
  pid: number
  headers: Record<string, string>
}

/** Bytes/s of one GET of `url`, the body drained as it comes. */
function download (url: string, headers: Record<string, string> = {}): Promise<{ bytes: number, seconds: number }> {
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
async function peakGrowth (pid: number, work: () => Promise<unknown>) {
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

/**
 * Seconds of a raw PUT and of a tus upload in 8 MiB pieces of the same `mib` MiB, best of two
 * rounds taken in turns, and the server's peak RSS growth during a tus upload. Both clients send
 * from memory, as a browser slices a File: tus-js-client's Node stream source concatenates its
 * buffer as it reads, a cost of that client (a third of the time here), not of the server.
 */
export async function tusAgainstRaw (target: StreamingTarget, mib: number) {
  const body = Buffer.concat([...generatedFile(mib)])
  const best = { raw: Infinity, tus: Infinity, tusGrowth: 0 }
  for (let round = 0; round < 2; round++) {
    let started = performance.now()
    const { status } = await putStream({ port: target.port, path: `/api/raw/bench/raw-${round}.bin`, headers: target.headers }, [body], body.length)
    if (status !== 200) throw new Error(`raw PUT of ${mib} MiB: ${status}`)
    best.raw = Math.min(best.raw, (performance.now() - started) / 1000)
    started = performance.now()
    const growth = await peakGrowth(target.pid, () => tusUpload(target, `bench/tus-${round}.bin`, body, 8))
    best.tus = Math.min(best.tus, (performance.now() - started) / 1000)
    best.tusGrowth = Math.max(best.tusGrowth, growth)
  }
  return best
}
