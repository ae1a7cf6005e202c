import t, { type Test } from 'tap'
import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import * as tus from 'tus-js-client'
import { bearer, buildTestApp } from './helpers/app.js'
import { openDatabase } from '../db/dialect.js'
import { createTestDatabase, DRIVERS } from './helpers/db.js'
import { createS3Store } from '../storage/s3-store.js'
import { startS3Server, TEST_S3_CREDENTIALS } from './helpers/s3.js'
import { openSocket } from './helpers/net.js'
import { tusUpload } from './helpers/tus.js'
import { waitFor } from './helpers/wait.js'

const s3 = await startS3Server()
// The bucket as Stowage's own driver sees it, to look for what uploads leave behind.
const bucket = createS3Store({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: TEST_S3_CREDENTIALS })
t.teardown(async () => { await bucket.close?.(); await s3.close() })
const MIB = 1024 * 1024

async function serve (t: Test, driver: 'fs' | 's3', env: Record<string, string> = {}, store = s3) {
  const test = await buildTestApp({ driver, s3: store, env })
  t.teardown(test.close)
  await test.app.listen({ port: 0, host: '127.0.0.1' })
  const address = test.app.server.address() as { port: number }
  const base = `http://127.0.0.1:${address.port}`
  const alice = (await test.app.stowageKeys.create({ userId: 'alice', orgId: null })).key
  const bob = (await test.app.stowageKeys.create({ userId: 'bob', orgId: null })).key
  return { ...test, base, alice, bob }
}

/** tus-js-client's upload of `body` to `base`. */
const upload = (base: string, key: string, body: Buffer, metadata: Record<string, string>, options: Partial<tus.UploadOptions> = {}) =>
  tusUpload(body, { endpoint: `${base}/api/uploads`, headers: bearer(key), metadata, ...options })

const md5Etag = (body: Buffer) => `"${createHash('md5').update(body).digest('hex')}"`

for (const driver of DRIVERS) {
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

/** A tus request by hand, for what a client library would not send. */
function tusRequest (url: string, method: string, headers: Record<string, string> = {}, body?: BodyInit) {
  return fetch(url, { method, headers: { 'tus-resumable': '1.0.0', ...headers }, body })
}

const metadata = (fields: Record<string, string>) => Object.entries(fields).map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`).join(',')

async function create (base: string, key: string, length: number, fields: Record<string, string>) {
  return tusRequest(`${base}/api/uploads`, 'POST', { ...bearer(key), 'upload-length': String(length), 'upload-metadata': metadata(fields) })
}

t.test('every tus request is authenticated, and an upload answers only the user who created it', async (t) => {
  const { base, alice, bob } = await serve(t, 'fs')
  t.equal((await tusRequest(`${base}/api/uploads`, 'POST', { 'upload-length': '5', 'upload-metadata': metadata({ path: 'a.txt' }) })).status, 401)
  t.equal((await tusRequest(`${base}/api/uploads`, 'OPTIONS')).status, 401, 'OPTIONS too')
  const created = await create(base, alice, 10, { path: 'mine.txt' })
  t.equal(created.status, 201)
  const location = created.headers.get('location')!
  t.match(location, /^\/api\/uploads\/[0-9a-f]{32}$/, 'a relative URL with an unguessable id')
  const url = base + location
  t.equal((await tusRequest(url, 'HEAD')).status, 401, 'HEAD without credentials')
  for (const method of ['HEAD', 'PATCH', 'DELETE']) {
    const headers = { ...bearer(bob), ...(method === 'PATCH' ? { 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' } : {}) }
    t.equal((await tusRequest(url, method, headers, method === 'PATCH' ? '12345' : undefined)).status, 404, `${method} by another user`)
  }
  const head = await tusRequest(url, 'HEAD', bearer(alice))
  t.equal(head.status, 200)
  t.equal(head.headers.get('upload-offset'), '0', 'untouched by the other user\'s PATCH')
  t.equal((await tusRequest(`${base}/api/uploads/not-an-id`, 'HEAD', bearer(alice))).status, 404)
})

t.test('creation refuses what cannot become a file: no path, a bad path, a bad type, too large, a destination already refused', async (t) => {
  const { base, alice } = await serve(t, 'fs', { MAX_UPLOAD_BYTES: String(10 * MIB) })
  t.equal((await create(base, alice, 5, { contentType: 'text/plain' })).status, 400, 'no path')
  const traversal = await create(base, alice, 5, { path: '../bob/x.txt' })
  t.equal(traversal.status, 400)
  t.match(await traversal.json(), { error: /path/ })
  t.equal((await create(base, alice, 5, { path: 'a.txt', contentType: 'not a type' })).status, 400)
  const tooLarge = await create(base, alice, 10 * MIB + 1, { path: 'big.bin' })
  t.equal(tooLarge.status, 413, 'Upload-Length over MAX_UPLOAD_BYTES')
  t.same(await tooLarge.json(), { error: `file is larger than ${10 * MIB} bytes` }, 'said as the raw route says it')
  await fetch(`${base}/api/raw/exists.txt`, { method: 'PUT', headers: bearer(alice), body: 'here' })
  t.equal((await create(base, alice, 5, { path: 'exists.txt', ifNoneMatch: '*' })).status, 412, 'If-None-Match: * on an existing file')
  t.equal((await create(base, alice, 5, { path: 'exists.txt', ifMatch: '"0123456789abcdef0123456789abcdef"' })).status, 412, 'a stale If-Match')
})

t.test('a PATCH past the upload\'s length is refused, and nothing is published', async (t) => {
  const { base, alice } = await serve(t, 'fs')
  const url = base + (await create(base, alice, 5, { path: 'five.txt' })).headers.get('location')
  const patch = await tusRequest(url, 'PATCH', { ...bearer(alice), 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, '123456789')
  t.equal(patch.status, 413)
  t.same(await patch.json(), { error: 'the piece goes past the upload\'s Upload-Length' })
  t.equal((await fetch(`${base}/api/raw/five.txt`, { headers: bearer(alice) })).status, 404)
})

for (const driver of DRIVERS) {
  t.test(`${driver}: the destination's precondition is checked when the upload completes: of two uploads to one version, exactly one wins`, async (t) => {
    const { base, alice } = await serve(t, driver)
    const first = await (await fetch(`${base}/api/raw/shared.txt`, { method: 'PUT', headers: bearer(alice), body: 'v1' })).json() as { etag: string }
    const outcomes = await Promise.allSettled(['a', 'b', 'c'].map((c) =>
      upload(base, alice, Buffer.alloc(6 * MIB, c), { path: 'shared.txt', ifMatch: first.etag }, { chunkSize: 2 * MIB })))
    t.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled').length, 1, 'one upload published')
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') t.match(String(outcome.reason), /412/, 'the others refused with 412')
    }
    const now = Buffer.from(await (await fetch(`${base}/api/raw/shared.txt`, { headers: bearer(alice) })).arrayBuffer())
    t.ok(['a', 'b', 'c'].some((c) => now.equals(Buffer.alloc(6 * MIB, c))), 'the winner, whole')
  })
}

t.test('termination drops an unfinished upload and what it stored', async (t) => {
  const { base, alice, config } = await serve(t, 'fs')
  const url = base + (await create(base, alice, 10, { path: 'dropped.txt' })).headers.get('location')
  await tusRequest(url, 'PATCH', { ...bearer(alice), 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, '12345')
  t.equal((await readdir(join(config.STORAGE_DIR, '.uploads'))).length, 1, 'staged')
  t.equal((await tusRequest(url, 'DELETE', bearer(alice))).status, 204)
  t.equal((await tusRequest(url, 'HEAD', bearer(alice))).status, 404)
  t.same(await readdir(join(config.STORAGE_DIR, '.uploads')), [], 'nothing staged')
})

for (const driver of DRIVERS) {
  t.test(`${driver}: an unfinished upload expires (410), and the sweep at start removes it with what it stored`, async (t) => {
    const database = await createTestDatabase({ shared: true })
    const storageDir = await mkdtemp(join(tmpdir(), 'stowage-expiry-'))
    t.teardown(async () => { await database.drop(); await rm(storageDir, { recursive: true, force: true }) })
    const env = { DATABASE_URL: database.url, STORAGE_DIR: storageDir }
    const first = await serve(t, driver, env)
    const url = first.base + (await create(first.base, first.alice, 10 * MIB, { path: 'abandoned.bin' })).headers.get('location')
    // A piece under S3's least part: on s3 it waits in a tail object.
    t.equal((await tusRequest(url, 'PATCH', { ...bearer(first.alice), 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, 'x'.repeat(MIB))).status, 204)
    const staged = () => driver === 'fs'
      ? readdir(join(storageDir, '.uploads')).then((names) => names.length)
      : bucket.list('stowage-uploads/', { limit: 10 }).then((page) => page.objects.length)
    t.equal(await staged(), 1, 'its bytes are staged')

    const db = openDatabase(database.url)
    t.teardown(() => db.destroy())
    const past = new Date(Date.now() - 2 * 86_400_000).toISOString()
    await db.updateTable('uploads').set({ expires_at: past }).execute()
    await sql`update uploads set created_at = ${past}`.execute(db)
    t.equal((await tusRequest(url, 'HEAD', bearer(first.alice))).status, 410, 'Gone, before the sweep')

    await first.close()
    const second = await serve(t, driver, env)
    await waitFor(async () => (await db.selectFrom('uploads').select('id').execute()).length === 0, { what: 'the sweep' })
    await waitFor(async () => (await staged()) === 0, { what: 'the staged bytes removed' })
    t.equal((await tusRequest(url.replace(first.base, second.base), 'HEAD', bearer(second.alice))).status, 404)
  })
}

t.test('s3: a store that does not answer makes a piece 503 with Retry-After, not a hang; once it is back, the upload goes on', async (t) => {
  const own = await startS3Server()
  t.teardown(() => own.close())
  const { base, alice } = await serve(t, 's3', { S3_TIMEOUT_MS: '1000' }, own)
  const body = randomBytes(6 * MIB)
  const url = base + (await create(base, alice, body.length, { path: 'paused.bin' })).headers.get('location')
  const piece = (offset: number) => tusRequest(url, 'PATCH', { ...bearer(alice), 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, body.subarray(offset))
  own.pause()
  const refused = await piece(0)
  own.resume()
  t.equal(refused.status, 503)
  t.equal(refused.headers.get('retry-after'), '5')
  t.match(await refused.json(), { error: /unavailable/ })
  const offset = Number((await tusRequest(url, 'HEAD', bearer(alice))).headers.get('upload-offset'))
  t.equal((await piece(offset)).status, 204)
  const read = await fetch(`${base}/api/raw/paused.bin`, { headers: bearer(alice) })
  t.ok(Buffer.from(await read.arrayBuffer()).equals(body), 'byte for byte')
})

t.test('s3: a piece that finds the upload memory budget full is 503 with Retry-After; with room again, it goes in', async (t) => {
  // The least budget S3 allows: room for one upload's three part buffers.
  const { base, alice } = await serve(t, 's3', { UPLOAD_MEMORY_BYTES: String(24 * MIB) })
  // A raw upload in progress holds all of it.
  const holder = await openSocket(Number(new URL(base).port))
  holder.on('error', () => {})
  holder.write(`PUT /api/raw/held.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${alice}\r\nContent-Length: ${64 * MIB}\r\n\r\n`)
  holder.write(Buffer.alloc(MIB))
  const piece = (url: string) => tusRequest(url, 'PATCH', { ...bearer(alice), 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, new TextEncoder().encode('12345'))
  let refused: Response | undefined
  // Until the holder's request reaches its route, a piece still fits: each try is a new upload.
  await waitFor(async () => {
    const url = base + (await create(base, alice, 5, { path: 'waits.txt' })).headers.get('location')
    refused = await piece(url)
    return refused.status === 503
  }, { what: 'a piece to be refused while the budget is held' })
  t.equal(refused!.headers.get('retry-after'), '5')
  t.same(await refused!.json(), { error: 'too many uploads in progress, try again shortly' })
  holder.destroy()
  const url = base + (await create(base, alice, 5, { path: 'fits.txt' })).headers.get('location')
  await waitFor(async () => (await piece(url)).status === 204, { what: 'the room to come back' })
  t.pass('a piece fits once the holder is gone')
})

t.test('a piece at the wrong offset is 409, one of another type or none 415, and OPTIONS names the extensions and the limit', async (t) => {
  const { base, alice } = await serve(t, 'fs')
  const url = base + (await create(base, alice, 10, { path: 'offsets.txt' })).headers.get('location')
  // The body as bytes: fetch gives a string body a Content-Type of its own.
  const piece = (offset: number, contentType: string | null = 'application/offset+octet-stream') =>
    tusRequest(url, 'PATCH', { ...bearer(alice), 'upload-offset': String(offset), ...(contentType ? { 'content-type': contentType } : {}) }, new TextEncoder().encode('12345'))
  t.equal((await piece(3)).status, 409)
  for (const contentType of ['text/plain', null]) {
    const refused = await piece(0, contentType)
    t.equal(refused.status, 415, `Content-Type: ${contentType ?? '(none)'}`)
    t.match(await refused.json(), { error: /application\/offset\+octet-stream/ })
  }
  t.equal((await piece(0)).status, 204)
  t.equal((await piece(0)).status, 409, 'a piece sent again after it was stored')
  const options = await tusRequest(`${base}/api/uploads`, 'OPTIONS', bearer(alice))
  t.equal(options.status, 204)
  t.same(options.headers.get('tus-extension')?.split(','), ['creation', 'creation-with-upload', 'termination', 'expiration'])
  t.equal(options.headers.get('tus-max-size'), String(5 * 1024 * 1024 * 1024))
})
