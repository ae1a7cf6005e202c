// The S3 endpoint (issue 35): presigned GETs of 1 MiB and PUTs of 64 KiB against the raw routes,
// each a node:http loop on the same connections, in alternating rounds; and the server's peak memory
// for a 1 GiB multipart upload through @aws-sdk/lib-storage.
import { Agent, request } from 'node:http'
import { Readable } from 'node:stream'
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { generatedFile } from '../test/helpers/streams.js'
import { peakGrowth, type StreamingTarget } from './streaming.js'

const CONNECTIONS = 10
const MIB = 1024 * 1024

/** Requests/s of `method url` on CONNECTIONS kept-alive connections for `seconds`; any answer but 200 fails it. */
async function loop (url: string, { method = 'GET', headers = {}, body }: { method?: string, headers?: Record<string, string>, body?: Buffer }, seconds: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const until = performance.now() + seconds * 1000
  let done = 0
  const once = () => new Promise<void>((resolve, reject) => {
    request(url, { method, agent, headers }, (response) => {
      response.resume().on('end', () => response.statusCode === 200 ? resolve() : reject(new Error(`${method} ${url}: ${response.statusCode}`)))
    }).on('error', reject).end(body)
  })
  const started = performance.now()
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    for (; performance.now() < until; done++) await once()
  }))
  agent.destroy()
  return done / ((performance.now() - started) / 1000)
}

/** Requests/s of each of `loops`, in `rounds` alternating rounds after a warm-up of each. */
async function alternating (loops: Array<() => (seconds: number) => Promise<number>>, rounds = 4, seconds = 3) {
  const runs = loops.map((make) => make())
  for (const run of runs) await run(1)
  const totals = runs.map(() => 0)
  for (let round = 0; round < rounds; round++) {
    for (let step = 0; step < runs.length; step++) {
      const i = (round + step) % runs.length
      totals[i] += await runs[i](seconds)
    }
  }
  return totals.map((total) => total / rounds)
}

export interface S3Target extends StreamingTarget { s3Port: number }

async function clientOf (target: S3Target) {
  const made = await fetch(`http://127.0.0.1:${target.port}/api/s3-credentials`, { method: 'POST', headers: { ...target.headers, 'content-type': 'application/json' }, body: '{}' })
  if (made.status !== 201) throw new Error(`POST /api/s3-credentials: ${made.status}`)
  const credentials = await made.json() as { accessKeyId: string, secretAccessKey: string }
  return new S3Client({ endpoint: `http://127.0.0.1:${target.s3Port}`, region: 'us-east-1', forcePathStyle: true, credentials, requestChecksumCalculation: 'WHEN_REQUIRED' })
}

/** GET 1 MiB and PUT 64 KiB: presigned through the S3 endpoint, and through the raw routes with the same caller. */
export async function presignedAgainstRaw (target: S3Target) {
  const client = await clientOf(target)
  const raw = `http://127.0.0.1:${target.port}/api/raw`
  const file = Buffer.alloc(MIB, 'g')
  const body = Buffer.alloc(64 * 1024, 'p')
  const stored = await fetch(`${raw}/bench/s3-get.bin`, { method: 'PUT', headers: target.headers, body: file })
  if (stored.status !== 200) throw new Error(`raw PUT: ${stored.status}`)
  const getUrl = await getSignedUrl(client, new GetObjectCommand({ Bucket: 'bench', Key: 's3-get.bin' }), { expiresIn: 3600 })
  const putUrl = await getSignedUrl(client, new PutObjectCommand({ Bucket: 'bench', Key: 's3-put.bin' }), { expiresIn: 3600 })
  const [rawGet, s3Get] = await alternating([
    () => (seconds) => loop(`${raw}/bench/s3-get.bin`, { headers: target.headers }, seconds),
    () => (seconds) => loop(getUrl, {}, seconds)
  ])
  const [rawPut, s3Put] = await alternating([
    () => (seconds) => loop(`${raw}/bench/raw-put.bin`, { method: 'PUT', headers: { ...target.headers, 'content-type': 'application/octet-stream' }, body }, seconds),
    () => (seconds) => loop(putUrl, { method: 'PUT', body }, seconds)
  ])
  client.destroy()
  return { rawGet, s3Get, rawPut, s3Put }
}

/** The server's peak RSS growth while lib-storage uploads `mib` MiB in parts of 16 MiB, 4 at once. */
export async function multipartGrowth (target: S3Target, mib: number) {
  const client = await clientOf(target)
  try {
    return await peakGrowth(target.pid, async () => {
      await new Upload({ client, params: { Bucket: 'bench', Key: 'multipart.bin', Body: Readable.from(generatedFile(mib)) }, partSize: 16 * MIB, queueSize: 4 }).done()
    })
  } finally {
    client.destroy()
  }
}

