import t, { type Test } from 'tap'
import { createHash, randomBytes } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import * as tus from 'tus-js-client'
import { bearer, buildTestApp } from './helpers/app.js'
import { startS3Server } from './helpers/s3.js'

const s3 = await startS3Server()
t.teardown(() => s3.close())
const MIB = 1024 * 1024

async function serve (t: Test, driver: 'fs' | 's3', env: Record<string, string> = {}) {
  const test = await buildTestApp({ driver, s3, env })
  t.teardown(test.close)
  await test.app.listen({ port: 0, host: '127.0.0.1' })
  const address = test.app.server.address() as { port: number }
  const base = `http://127.0.0.1:${address.port}`
  const alice = (await test.app.stowageKeys.create({ userId: 'alice', orgId: null })).key
  const bob = (await test.app.stowageKeys.create({ userId: 'bob', orgId: null })).key
  return { ...test, base, alice, bob }
}

/** tus-js-client's upload of `body`, resolved with the last answer. */
function upload (base: string, key: string, body: Buffer, metadata: Record<string, string>, options: Partial<tus.UploadOptions> = {}) {
  return new Promise<{ url: string, response: tus.HttpResponse }>((resolve, reject) => {
    const upload: tus.Upload = new tus.Upload(body, {
      endpoint: `${base}/api/uploads`,
      headers: bearer(key),
      metadata,
      chunkSize: 8 * MIB,
      retryDelays: [],
      onSuccess: ({ lastResponse }) => resolve({ url: upload.url!, response: lastResponse }),
      onError: reject,
      ...options
    })
    upload.start()
  })
}

const md5Etag = (body: Buffer) => `"${createHash('md5').update(body).digest('hex')}"`

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: tus-js-client uploads in pieces of any size; the file is published whole with its ETag`, async (t) => {
    const { base, alice } = await serve(t, driver)
    const body = randomBytes(21 * MIB + 17)
    for (const chunkSize of [8 * MIB, 3 * MIB]) {
      const path = `videos/tus-${chunkSize}.bin`
      const { response } = await upload(base, alice, body, { path, contentType: 'video/mp4' }, { chunkSize })
      const read = await fetch(`${base}/api/raw/${path}`, { headers: bearer(alice) })
      t.equal(read.status, 200)
      t.equal(read.headers.get('content-type'), 'video/mp4')
      t.ok(Buffer.from(await read.arrayBuffer()).equals(body), `byte for byte, pieces of ${chunkSize / MIB} MiB`)
      t.equal(response.getHeader('etag'), read.headers.get('etag'), 'the last answer carries the file\'s ETag')
      t.equal(read.headers.get('etag'), md5Etag(body))
    }
  })
}
