import t, { type Test } from 'tap'
import { spawn } from 'node:child_process'
import { createReadStream } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { startS3Server } from './helpers/s3.js'
import { startService } from './helpers/service.js'
import { generatedFile, getStream, sampleRss, sha256Of } from './helpers/streams.js'
import { tusUpload } from './helpers/tus.js'
import { NODE_ARGS } from './helpers/server.js'

// Real processes on real sockets: a client killed part way, as a crash would, and a new client that
// resumes from the stored URL; the server's memory sampled meanwhile.
const MIB = 1024 * 1024
const FILE_MIB = 256
const s3 = await startS3Server()
const work = await mkdtemp(join(tmpdir(), 'stowage-resume-'))
const file = join(work, 'big.bin')
await writeFile(file, generatedFile(FILE_MIB))
const expected = sha256Of(generatedFile(FILE_MIB))
t.teardown(async () => { await s3.close(); await rm(work, { recursive: true, force: true }) })

async function serveAll (t: Test, driver: 'fs' | 's3', instances: number) {
  return await startService(t, { driver, s3, instances })
}

/** Starts the upload in a client process and kills it once `fraction` of the file is sent; resolves with the upload URL. */
async function uploadUntilKilled (base: string, key: string, path: string, fraction: number): Promise<string> {
  const child = spawn(process.execPath, [...NODE_ARGS, 'test/fixtures/tus-upload.ts', `${base}/api/uploads`, key, file, path, String(8 * MIB)], {
    stdio: ['ignore', 'pipe', 'inherit']
  })
  let url: string | undefined
  const exited = new Promise((resolve) => child.once('exit', resolve))
  for await (const line of createInterface({ input: child.stdout })) {
    const said = JSON.parse(line) as { url?: string, sent?: number, total?: number, done?: boolean }
    url ??= said.url
    if (said.done) throw new Error('the upload finished before the client could be killed')
    if (said.sent !== undefined && said.sent >= fraction * said.total!) {
      child.kill('SIGKILL')
      break
    }
  }
  await exited
  if (!url) throw new Error('the client never created its upload')
  return url
}

/** A new client takes the upload up again from its URL; resolves with the offset it went on from. */
async function resume (url: string, key: string) {
  // tus-js-client asks the server (HEAD) where to go on from, then streams from there.
  const { startedAt } = await tusUpload(createReadStream(file), { uploadUrl: url, headers: { authorization: `Bearer ${key}` }, uploadSize: FILE_MIB * MIB })
  return startedAt
}

async function resumedOffset (url: string, key: string) {
  const head = await fetch(url, { method: 'HEAD', headers: { authorization: `Bearer ${key}`, 'tus-resumable': '1.0.0' } })
  return Number(head.headers.get('upload-offset'))
}

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: a 256 MiB upload whose client is killed at 40 % is resumed by a new client, byte-identical, in bounded memory`, async (t) => {
    const { servers: [server], key } = await serveAll(t, driver, 1)
    const rss = sampleRss(server.child.pid!)
    const url = await uploadUntilKilled(server.url, key, 'videos/resumed.bin', 0.4)
    const kept = await resumedOffset(url, key)
    t.ok(kept > 0 && kept < FILE_MIB * MIB, `the server kept ${(kept / MIB).toFixed(1)} MiB of what the first client sent`)
    t.equal(await resume(url, key), kept, 'the new client went on from where the server got to')
    const { growthBytes } = rss.stop()
    const port = Number(new URL(server.url).port)
    const got = await getStream({ port, path: '/api/raw/videos/resumed.bin', headers: { authorization: `Bearer ${key}` } })
    t.equal(got.bytes, FILE_MIB * MIB)
    t.equal(got.sha256, expected, 'byte-identical (SHA-256)')
    t.ok(growthBytes < 150 * MIB, `server RSS grew ${(growthBytes / MIB).toFixed(0)} MiB for a ${FILE_MIB} MiB upload`)
  })
}

t.test('two instances on one database: an upload begun on one is finished on the other', { skip: !process.env.TEST_DATABASE_URL && 'instances share their uploads through PostgreSQL (TEST_DATABASE_URL)' }, async (t) => {
  for (const driver of ['fs', 's3'] as const) {
    const { servers: [one, two], key } = await serveAll(t, driver, 2)
    const url = await uploadUntilKilled(one.url, key, 'videos/two-instances.bin', 0.4)
    const onTwo = url.replace(one.url, two.url)
    const kept = await resumedOffset(onTwo, key)
    t.ok(kept > 0, `${driver}: the second instance knows how far the first got`)
    t.equal(await resume(onTwo, key), kept, `${driver}: the client went on from there`)
    const got = await getStream({ port: Number(new URL(one.url).port), path: '/api/raw/videos/two-instances.bin', headers: { authorization: `Bearer ${key}` } })
    t.equal(got.sha256, expected, `${driver}: byte-identical`)
  }
})
