// Copy, move and zip (issue 22): what passes through the service, its memory, and the zip's speed.
import { readFile } from 'node:fs/promises'
import { generatedFile, putStream } from '../test/helpers/streams.js'
import { compareThroughput, download, peakGrowth, type StreamingTarget } from './streaming.js'

const MIB = 1024 * 1024

/** Bytes the process read and wrote through system calls, sockets included (Linux). */
async function bytesThrough (pid: number) {
  const io = await readFile(`/proc/${pid}/io`, 'utf8')
  const field = (name: string) => Number(new RegExp(`${name}: (\\d+)`).exec(io)?.[1] ?? NaN)
  return field('rchar') + field('wchar')
}

async function upload (target: StreamingTarget, path: string, mib: number) {
  const answer = await putStream({ port: target.port, path: `/api/raw/${path}`, headers: target.headers }, generatedFile(mib), mib * MIB)
  if (answer.status !== 200) throw new Error(`raw PUT of ${path}: ${answer.status} ${answer.body}`)
}

/** A copy and a move of a `mib` MiB file: the bytes through the service and its peak RSS growth during each. */
export async function copyAndMove (target: StreamingTarget, mib: number) {
  await upload(target, 'bench/ops/original.bin', mib)
  const operate = async (route: string, from: string, to: string) => {
    const before = await bytesThrough(target.pid)
    let status = 0
    const growth = await peakGrowth(target.pid, async () => {
      status = (await fetch(`http://127.0.0.1:${target.port}/api/${route}`, {
        method: 'POST', headers: { ...target.headers, 'content-type': 'application/json' }, body: JSON.stringify({ from, to })
      })).status
    })
    if (status !== 200) throw new Error(`POST /api/${route}: ${status}`)
    return { bytes: (await bytesThrough(target.pid)) - before, growth }
  }
  const copy = await operate('copies', 'bench/ops/original.bin', 'bench/ops/copy.bin')
  const move = await operate('moves', 'bench/ops/copy.bin', 'bench/ops/moved.bin')
  return { copy, move }
}

/** Bytes in and out of the service while a file of `mib` MiB is overwritten by one byte, with versions
 *  on: keeping the replaced file as a version must not pass its bytes through the service. */
export async function keepingAVersion (target: StreamingTarget, mib: number) {
  await upload(target, 'bench/versions/large.bin', mib)
  const before = await bytesThrough(target.pid)
  const answer = await fetch(`http://127.0.0.1:${target.port}/api/raw/bench/versions/large.bin`, { method: 'PUT', headers: target.headers, body: 'x' })
  if (answer.status !== 200) throw new Error(`overwrite: ${answer.status}`)
  return (await bytesThrough(target.pid)) - before
}

/** MB/s of a zip of `files` files of `mibEach` MiB, and of one raw GET of a file of all their bytes. */
export async function zipAgainstRaw (target: StreamingTarget, files: number, mibEach: number) {
  for (let i = 0; i < files; i++) await upload(target, `bench/zip/${String(i).padStart(3, '0')}.bin`, mibEach)
  await upload(target, 'bench/zip-whole.bin', files * mibEach)
  const base = `http://127.0.0.1:${target.port}`
  const zipped = await download(`${base}/api/archive?prefix=bench/zip/`, target.headers)
  if (zipped.bytes < files * mibEach * MIB) throw new Error(`the zip has ${zipped.bytes} bytes`)
  const [zip, raw] = await compareThroughput([
    { url: `${base}/api/archive?prefix=bench/zip/`, headers: target.headers },
    { url: `${base}/api/raw/bench/zip-whole.bin`, headers: target.headers }
  ], 3)
  return { zip, raw }
}
