// Pictures (issue 47): a 256 px WebP of a 12-megapixel JPEG made cold, and served warm from the
// cache against a raw GET of a file of the same size, in alternating node:http loops.
import sharp from 'sharp'
import { randomBytes } from 'node:crypto'
import { alternating, loop } from './http-loop.js'
import type { StreamingTarget } from './streaming.js'

const COLD_RUNS = 5

/** A 12-megapixel JPEG with a phone photo's detail: about 4 MiB, and a thumbnail of some kilobytes. */
async function photo (): Promise<Buffer> {
  // Coarse blotches (noise made small, then enlarged) under fine grain.
  const blotches = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#6a8caf', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer()
  const large = await sharp(blotches).resize(4000, 3000, { kernel: 'cubic' }).raw().toBuffer()
  const grain = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 0, sigma: 18 } } }).png().toBuffer()
  return await sharp(large, { raw: { width: 4000, height: 3000, channels: 3 } }).composite([{ input: grain, blend: 'add' }]).jpeg({ quality: 90 }).toBuffer()
}

export async function imagesAgainstRaw (target: StreamingTarget) {
  const base = `http://127.0.0.1:${target.port}`
  const source = await photo()
  const stored = await fetch(`${base}/api/raw/bench/photo.jpg`, { method: 'PUT', headers: { ...target.headers, 'content-type': 'image/jpeg' }, body: source as BodyInit })
  if (stored.status !== 200) throw new Error(`raw PUT of the photo: ${stored.status}`)
  // Cold: a transform no one asked for before (another quality each time), made from the source.
  const coldMs: number[] = []
  for (let run = 0; run < COLD_RUNS; run++) {
    const started = performance.now()
    const answer = await fetch(`${base}/api/images/bench/photo.jpg?width=256&format=webp&quality=${80 + run}`, { headers: target.headers })
    await answer.arrayBuffer()
    if (answer.status !== 200) throw new Error(`cold transform: ${answer.status}`)
    coldMs.push(performance.now() - started)
  }
  coldMs.sort((a, b) => a - b)
  const warmUrl = `${base}/api/images/bench/photo.jpg?width=256&format=webp`
  const made = await fetch(warmUrl, { headers: target.headers })
  const size = (await made.arrayBuffer()).byteLength
  const same = await fetch(`${base}/api/raw/bench/thumb-sized.bin`, { method: 'PUT', headers: target.headers, body: randomBytes(size) })
  if (same.status !== 200) throw new Error(`raw PUT: ${same.status}`)
  const [warm, raw] = await alternating([
    () => (seconds) => loop(warmUrl, { headers: target.headers }, seconds),
    () => (seconds) => loop(`${base}/api/raw/bench/thumb-sized.bin`, { headers: target.headers }, seconds)
  ])
  return { sourceBytes: source.length, imageBytes: size, coldMedianMs: coldMs[Math.floor(COLD_RUNS / 2)], warm, raw }
}
