// WebDAV (issue 36): GETs of 1 MiB and PUTs of 64 KiB through /dav/ against the raw routes (node:http
// loops, alternating rounds), and a PROPFIND Depth 1 of a folder of 10,000 files: the server's memory
// growth, and its time against listing the folder through every page of GET /api/files.
import { request } from 'node:http'
import { alternating, loop } from './http-loop.js'
import { fillFolder } from './console.js'
import { peakGrowth, type StreamingTarget } from './streaming.js'

const MIB = 1024 * 1024

/** An API key of the bench's user: a Bearer for the raw routes, a Basic password for WebDAV. */
export async function apiKeyOf (target: Pick<StreamingTarget, 'port' | 'headers'>) {
  const made = await fetch(`http://127.0.0.1:${target.port}/api/keys`, { method: 'POST', headers: { ...target.headers, 'content-type': 'application/json' }, body: '{}' })
  if (made.status !== 201) throw new Error(`POST /api/keys: ${made.status}`)
  const { key } = await made.json() as { key: string }
  return { bearer: { authorization: `Bearer ${key}` }, basic: { authorization: `Basic ${Buffer.from(`bench:${key}`).toString('base64')}` } }
}

export async function davAgainstRaw (target: StreamingTarget) {
  const { bearer, basic } = await apiKeyOf(target)
  const base = `http://127.0.0.1:${target.port}`
  const stored = await fetch(`${base}/api/raw/bench/dav-get.bin`, { method: 'PUT', headers: bearer, body: Buffer.alloc(MIB, 'g') })
  if (stored.status !== 200) throw new Error(`raw PUT: ${stored.status}`)
  const body = Buffer.alloc(64 * 1024, 'p')
  const [rawGet, davGet] = await alternating([
    () => (seconds) => loop(`${base}/api/raw/bench/dav-get.bin`, { headers: bearer }, seconds),
    () => (seconds) => loop(`${base}/dav/bench/dav-get.bin`, { headers: basic }, seconds)
  ])
  // A replaced file answers 204 through WebDAV: the loop takes 2xx.
  const [rawPut, davPut] = await alternating([
    () => (seconds) => loop(`${base}/api/raw/bench/raw-put.bin`, { method: 'PUT', headers: { ...bearer, 'content-type': 'application/octet-stream' }, body }, seconds),
    () => (seconds) => loop(`${base}/dav/bench/dav-put.bin`, { method: 'PUT', headers: { ...basic, 'content-type': 'application/octet-stream' }, body }, seconds)
  ])
  return { rawGet, davGet, rawPut, davPut }
}

/** Milliseconds to read a whole answer. */
function timed (url: string, options: { method?: string, headers: Record<string, string> }) {
  return new Promise<number>((resolve, reject) => {
    const started = performance.now()
    request(url, options, (response) => {
      response.resume().on('end', () => response.statusCode! < 300 ? resolve(performance.now() - started) : reject(new Error(`${options.method ?? 'GET'} ${url}: ${response.statusCode}`)))
    }).on('error', reject).end()
  })
}

/** A folder of `count` files: PROPFIND Depth 1's memory growth and milliseconds, and every page of GET /api/files's. */
export async function propfindOfFolder (target: StreamingTarget, count: number) {
  const { bearer, basic } = await apiKeyOf(target)
  const base = `http://127.0.0.1:${target.port}`
  await fillFolder(base, bearer, 'big/', count)
  const listAll = async () => {
    const started = performance.now()
    let token: string | undefined
    do {
      const page = await fetch(`${base}/api/files?prefix=big/&delimiter=/${token ? `&continuationToken=${token}` : ''}`, { headers: bearer })
      token = (await page.json() as { continuationToken?: string }).continuationToken
    } while (token)
    return performance.now() - started
  }
  const propfind = () => timed(`${base}/dav/big/`, { method: 'PROPFIND', headers: { ...basic, depth: '1' } })
  // Warm both, then the median of 5 each.
  await listAll()
  await propfind()
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]
  const listings: number[] = []
  const propfinds: number[] = []
  for (let round = 0; round < 5; round++) {
    listings.push(await listAll())
    propfinds.push(await propfind())
  }
  const growth = await peakGrowth(target.pid, propfind)
  return { listMs: median(listings), propfindMs: median(propfinds), growth }
}

/**
 * PUTs of 64 KiB to new paths, raw and through WebDAV, on `now` against `baseline` (an older build
 * of Stowage, on its own database and folder), and raw ones to `fileWriter` (bench/file-writer.ts,
 * the least a server can do), in alternating rounds: what issue 46 compares.
 */
export async function newPathsAgainst (baseline: Pick<StreamingTarget, 'port' | 'headers'>, now: Pick<StreamingTarget, 'port' | 'headers'>, fileWriter: { port: number }) {
  const body = Buffer.alloc(64 * 1024, 'n')
  let count = 0
  const loops = []
  for (const target of [baseline, now]) {
    const { bearer, basic } = await apiKeyOf(target)
    const base = `http://127.0.0.1:${target.port}`
    const made = await fetch(`${base}/dav/new-paths/`, { method: 'MKCOL', headers: basic })
    if (made.status !== 201) throw new Error(`MKCOL: ${made.status}`)
    loops.push(
      () => (seconds: number) => loop(() => `${base}/api/raw/new-paths/raw-${count++}.bin`, { method: 'PUT', headers: { ...bearer, 'content-type': 'application/octet-stream' }, body }, seconds),
      () => (seconds: number) => loop(() => `${base}/dav/new-paths/dav-${count++}.bin`, { method: 'PUT', headers: { ...basic, 'content-type': 'application/octet-stream' }, body }, seconds))
  }
  loops.push(() => (seconds: number) => loop(() => `http://127.0.0.1:${fileWriter.port}/raw-${count++}.bin`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body }, seconds))
  const [baselineRaw, baselineDav, raw, dav, floor] = await alternating(loops)
  return { baselineRaw, baselineDav, raw, dav, floor }
}
