// The S3 endpoint (issue 35): presigned GETs of 1 MiB and PUTs of 64 KiB against the raw routes,
// each a node:http loop on the same connections, in alternating rounds; and the server's peak memory
// for a 1 GiB multipart upload through @aws-sdk/lib-storage.
import { Readable } from 'node:stream'
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { generatedFile } from '../test/helpers/streams.js'
import { alternating, loop } from './http-loop.js'
import { peakGrowth, type StreamingTarget } from './streaming.js'

const MIB = 1024 * 1024

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

/** GetObject of 1 MiB, presigned, on `now` against `baseline` (an older build, each on the S3
 *  driver with its own database), in alternating rounds: what issue 46 compares. */
export async function getObjectAgainst (baseline: S3Target, now: S3Target, store: { endpoint: string, bucket: string }) {
  const file = Buffer.alloc(MIB, 'o')
  // The same bytes straight from the store (s3rver takes any request): what neither build can pass.
  const urls = [`${store.endpoint}/${store.bucket}/users/bench-user/files/bench/get-object.bin`]
  for (const target of [baseline, now]) {
    const client = await clientOf(target)
    const stored = await fetch(`http://127.0.0.1:${target.port}/api/raw/bench/get-object.bin`, { method: 'PUT', headers: target.headers, body: file })
    if (stored.status !== 200) throw new Error(`raw PUT: ${stored.status}`)
    urls.push(await getSignedUrl(client, new GetObjectCommand({ Bucket: 'bench', Key: 'get-object.bin' }), { expiresIn: 3600 }))
    client.destroy()
  }
  const [direct, baselineGet, get] = await alternating(urls.map((url) => () => (seconds: number) => loop(url, {}, seconds)))
  return { direct, baselineGet, get }
}

/** The server's peak RSS growth while lib-storage uploads `mib` MiB in parts of 16 MiB, 4 at once, and the seconds it took. */
export async function multipartUpload (target: S3Target, mib: number, key = 'multipart.bin') {
  const client = await clientOf(target)
  // Into a bucket that exists (a PUT makes none).
  await fetch(`http://127.0.0.1:${target.port}/api/folders`, { method: 'POST', headers: { ...target.headers, 'content-type': 'application/json' }, body: JSON.stringify({ path: 'bench' }) })
  try {
    const started = performance.now()
    const growth = await peakGrowth(target.pid, async () => {
      await new Upload({ client, params: { Bucket: 'bench', Key: key, Body: Readable.from(generatedFile(mib)) }, partSize: 16 * MIB, queueSize: 4 }).done()
    })
    return { growth, seconds: (performance.now() - started) / 1000 }
  } finally {
    client.destroy()
  }
}

