import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type * as tus from 'tus-js-client'
import { runCli } from '../cli/index.js'
import { createUsageRepository } from '../db/usage.js'
import { createStore } from '../storage/store.js'
import { stowageOptions } from '../stowage-options.js'
import { createNameRepository } from '../db/names.js'
import { recountUsage } from '../storage/quotas.js'
import { bearer, buildTestApp, type TestApp } from './helpers/app.js'
import { createTestDatabase } from './helpers/db.js'
import { startS3Server } from './helpers/s3.js'
import { startService } from './helpers/service.js'
import { tusUpload } from './helpers/tus.js'
import { waitFor } from './helpers/wait.js'

const MIB = 1024 * 1024
const onPostgres = Boolean(process.env.TEST_DATABASE_URL)
const s3 = await startS3Server()
t.teardown(() => s3.close())

interface Usage { usedBytes: number, quotaBytes: number | null, fileBytes: number, trashBytes: number, versionBytes: number, uploadBytes: number, fileCount: number }

async function admin (argv: string[], env: Record<string, string>) {
  let stdout = ''
  let stderr = ''
  const code = await runCli(['admin', ...argv], {
    stdout: { write: (text: string) => { stdout += text } },
    stderr: { write: (text: string) => { stderr += text } },
    env
  })
  return { code, stdout, stderr, json: () => JSON.parse(stdout) }
}

/** `PUT /api/raw/{path}` over a real connection, its body sent chunked (no Content-Length). */
function putChunked (url: string, headers: Record<string, string>, chunks: Buffer[]): Promise<{ status: number, body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'PUT', headers: { ...headers, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' } }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (text: string) => { body += text }).on('end', () => resolve({ status: res.statusCode!, body }))
    })
    req.on('error', reject)
    // The answer may come before the rest is sent: the refusal does not wait for it.
    void (async () => {
      for (const chunk of chunks) {
        if (req.destroyed) return
        if (!req.write(chunk)) await new Promise((resolve) => req.once('drain', resolve))
      }
      req.end()
    })()
  })
}

t.test(`quota 3 MiB, ${onPostgres ? 'two instances on PostgreSQL' : 'one instance on SQLite'}: 24 overwrites of one path, 4 at once, keep versions, make room by removing the oldest, and usage stays exact`, async (t) => {
  const { servers, auth, databaseUrl, storageDir } = await startService(t, { instances: onPostgres ? 2 : 1, env: { QUOTA_BYTES: String(3 * MIB), LOG_LEVEL: 'warn' } })
  const bodies = Array.from({ length: 24 }, (_, i) => randomBytes(256 * 1024 + i))
  const overwrite = async (body: Buffer, i: number) => {
    const res = await fetch(`${servers[i % servers.length].url}/api/raw/doc.bin`, { method: 'PUT', headers: auth, body: new Uint8Array(body) })
    await res.arrayBuffer()
    return res.status
  }
  // Four at once hold 1 MiB of reservations: the rest of the quota fills with versions, which must make room.
  const statuses: number[] = []
  for (let i = 0; i < bodies.length; i += 4) statuses.push(...await Promise.all(bodies.slice(i, i + 4).map((body, j) => overwrite(body, i + j))))
  t.ok(statuses.every((status) => status === 200), `each overwrite landed, room made from versions: ${statuses.join(' ')}`)
  const usage = await (await fetch(`${servers[0].url}/api/usage`, { headers: auth })).json() as Usage
  const { versions } = await (await fetch(`${servers[0].url}/api/versions?path=doc.bin`, { headers: auth })).json() as { versions: Array<{ size: number }> }
  const current = Buffer.from(await (await fetch(`${servers[0].url}/api/raw/doc.bin`, { headers: auth })).arrayBuffer())
  t.ok(bodies.some((body) => body.equals(current)), 'one of them stands, whole')
  t.match(usage, { fileBytes: current.length, fileCount: 1, versionBytes: versions.reduce((bytes, version) => bytes + version.size, 0), uploadBytes: 0 }, 'files and versions counted exactly')
  t.ok(usage.usedBytes <= 3 * MIB, `never over the quota: ${usage.usedBytes}`)
  const recounted = await admin(['usage', '--recount'], { DATABASE_URL: databaseUrl, STORAGE_DIR: storageDir, QUOTA_BYTES: String(3 * MIB) })
  t.equal(recounted.code, 0, recounted.stderr)
  t.match(recounted.json().users, [{ userId: 'alice', fileBytes: usage.fileBytes, versionBytes: usage.versionBytes, reservedBytes: 0 }], 'a recount agrees')
  const reindexed = await admin(['reindex'], { DATABASE_URL: databaseUrl, STORAGE_DIR: storageDir })
  t.match(reindexed.json().users, [{ userId: 'alice', added: 0, removed: 0, changed: 0 }], 'the index names what stands, as the store has it')
  const { changes } = await (await fetch(`${servers[0].url}/api/changes?cursor=${encodeURIComponent(Buffer.from('c0').toString('base64url'))}`, { headers: auth })).json() as { changes: Array<{ etag: string }> }
  t.equal(changes.at(-1)?.etag, `"${createHash('md5').update(current).digest('hex')}"`, 'the journal ends with what stands')
})

t.test(`quota 10 MiB, ${onPostgres ? 'two instances on PostgreSQL' : 'one instance on SQLite'}: of 20 concurrent 1 MiB uploads (raw, JSON, tus) exactly 10 land, the others 507, and nothing is half-written`, async (t) => {
  const { servers, auth, storageDir, databaseUrl } = await startService(t, { instances: onPostgres ? 2 : 1, env: { QUOTA_BYTES: String(10 * MIB), LOG_LEVEL: 'warn' } })
  const bodies = Array.from({ length: 20 }, () => randomBytes(MIB))
  const base = (i: number) => servers[i % servers.length].url
  async function upload (i: number): Promise<number> {
    const path = `photos/${i}.jpg`
    if (i % 3 === 0) {
      const res = await fetch(`${base(i)}/api/raw/${path}`, { method: 'PUT', headers: { ...auth, 'content-type': 'image/jpeg' }, body: bodies[i] })
      await res.arrayBuffer()
      return res.status
    }
    if (i % 3 === 1) {
      const res = await fetch(`${base(i)}/api/files/${path}`, {
        method: 'PUT', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ content: bodies[i].toString('base64'), contentType: 'image/jpeg' })
      })
      await res.arrayBuffer()
      return res.status
    }
    try {
      await tusUpload(bodies[i], { endpoint: `${base(i)}/api/uploads`, headers: auth, metadata: { path }, uploadSize: MIB })
      return 200
    } catch (error) {
      return (error as tus.DetailedError).originalResponse?.getStatus() ?? 0
    }
  }
  const statuses = await Promise.all(bodies.map((_, i) => upload(i)))
  t.equal(statuses.filter((status) => status === 200).length, 10, `exactly 10 landed: ${statuses.join(' ')}`)
  t.equal(statuses.filter((status) => status === 507).length, 10, 'the others were 507')

  const usage = await (await fetch(`${servers[0].url}/api/usage`, { headers: auth })).json() as Usage
  t.same(usage, { usedBytes: 10 * MIB, quotaBytes: 10 * MIB, fileBytes: 10 * MIB, trashBytes: 0, versionBytes: 0, uploadBytes: 0, fileCount: 10 })
  const listed = await (await fetch(`${servers[0].url}/api/files?prefix=photos/`, { headers: auth })).json() as { files: Array<{ key: string, size: number }> }
  t.equal(listed.files.length, 10, 'ten files stored')
  for (const file of listed.files) {
    const i = Number(/(\d+)\.jpg$/.exec(file.key)![1])
    t.equal(statuses[i], 200, `${file.key} was answered 200`)
    const stored = Buffer.from(await (await fetch(`${servers[0].url}/api/raw/${file.key}`, { headers: auth })).arrayBuffer())
    t.ok(stored.equals(bodies[i]), `${file.key} is whole`)
  }
  t.same(await readdir(join(storageDir, '.tmp')), [], 'no temporary file is left')
  t.same(await readdir(join(storageDir, '.uploads')).catch(() => []), [], 'no staged upload is left')

  const env = { DATABASE_URL: databaseUrl, STORAGE_DIR: storageDir, QUOTA_BYTES: String(10 * MIB) }
  const shown = await admin(['usage'], env)
  t.equal(shown.code, 0, shown.stderr)
  t.match(shown.json().users, [{ userId: 'alice', fileBytes: 10 * MIB, fileCount: 10, reservedBytes: 0 }], 'no reservation is left')
  const recounted = await admin(['usage', '--recount'], env)
  t.match(recounted.json().users, [{ userId: 'alice', fileBytes: 10 * MIB, fileCount: 10, trashBytes: 0, uploadBytes: 0 }], 'a recount finds the same')

  // A quota of alice's own, raised: there is room again, on every instance at once.
  t.same((await admin(['set-quota', '--user', 'alice', '--bytes', String(11 * MIB)], env)).json(), { subject: 'user:alice', quotaBytes: 11 * MIB })
  const more = await fetch(`${base(1)}/api/raw/photos/more.jpg`, { method: 'PUT', headers: auth, body: bodies[0] })
  t.equal(more.status, 200, 'her own quota overrides QUOTA_BYTES')
  const refused = await fetch(`${base(0)}/api/raw/photos/one-more.jpg`, { method: 'PUT', headers: auth, body: Buffer.alloc(1) })
  t.equal(refused.status, 507)
  t.match(await refused.json(), { error: /11534336 of 11534336 bytes in use.*1 more/ }, 'the answer says the usage and the quota')
})

t.test('admin set-quota refuses what it cannot mean', async (t) => {
  const database = await createTestDatabase({ shared: true })
  t.teardown(database.drop)
  const env = { DATABASE_URL: database.url }
  await admin(['create-key', '--user', 'alice', '--init'], { ...env, API_KEY_BCRYPT_COST: '4' })
  for (const [argv, message] of [
    [['--bytes', '10'], /--user U or --org O/],
    [['--user', 'a', '--org', 'b', '--bytes', '10'], /--user U or --org O/],
    [['--user', 'a'], /--bytes N, or --none/],
    [['--user', 'a', '--bytes', '10GB'], /whole number of bytes/],
    [['--user', 'a', '--bytes=-1'], /whole number of bytes/]
  ] as const) {
    const refused = await admin(['set-quota', ...argv], env)
    t.not(refused.code, 0, argv.join(' '))
    t.match(refused.stderr, message)
  }
  t.same((await admin(['set-quota', '--org', 'acme', '--none'], env)).json(), { subject: 'org:acme', quotaBytes: null })
})

async function quotaApp (t: Test, driver: 'fs' | 's3', env: Record<string, string> = {}) {
  const built: TestApp = await buildTestApp({ driver, s3, env: { QUOTA_BYTES: '1000', ...env } })
  t.teardown(built.close)
  const userId = `user-${randomUUID()}`
  const orgId = `org-${randomUUID()}`
  const { key } = await built.app.stowageKeys.create({ userId, orgId })
  const headers = bearer(key)
  const { app } = built
  return {
    ...built,
    userId,
    orgId,
    headers,
    put: (path: string, body: Buffer | string, more: Record<string, string> = {}) =>
      app.inject({ method: 'PUT', url: `/api/raw/${path}`, headers: { ...headers, 'content-type': 'application/octet-stream', ...more }, payload: body }),
    read: (path: string) => app.inject({ url: `/api/raw/${path}`, headers }),
    usage: async () => (await app.inject({ url: '/api/usage', headers })).json() as Usage
  }
}

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: an overwrite settles the difference and keeps the old as a version, the trash keeps its bytes until purged, versions make room, a copy over the quota is 507, and a recount agrees`, async (t) => {
    const user = await quotaApp(t, driver)
    t.same(await user.usage(), { usedBytes: 0, quotaBytes: 1000, fileBytes: 0, trashBytes: 0, versionBytes: 0, uploadBytes: 0, fileCount: 0 }, 'nothing stored yet')
    t.equal((await user.put('a.txt', Buffer.alloc(400))).statusCode, 200)
    t.equal((await user.put('a.txt', Buffer.alloc(300))).statusCode, 200)
    t.match(await user.usage(), { usedBytes: 700, fileBytes: 300, versionBytes: 400, fileCount: 1 }, 'an overwrite counts new minus old, and the old as a version')

    const tooLarge = await user.put('b.txt', Buffer.alloc(701))
    t.equal(tooLarge.statusCode, 507, 'past the quota even without the version')
    t.match(tooLarge.json(), { error: /700 of 1000 bytes in use.*701 more/ })
    t.match(await user.usage(), { versionBytes: 400 }, 'a version that would not make room enough is kept')
    t.equal((await user.read('b.txt')).statusCode, 404, 'nothing of it stored')
    const json = await user.app.inject({ method: 'PUT', url: '/api/files/b.txt', headers: user.headers, payload: { content: Buffer.alloc(701).toString('base64') } })
    t.equal(json.statusCode, 507, 'the JSON form too')

    t.equal((await user.put('docs/b.txt', Buffer.alloc(500))).statusCode, 200, 'room made by the oldest version')
    t.match(await user.usage(), { usedBytes: 800, fileBytes: 800, versionBytes: 0 })
    const copy = await user.app.inject({ method: 'POST', url: '/api/copies', headers: user.headers, payload: { from: 'docs/b.txt', to: 'c.txt' } })
    t.equal(copy.statusCode, 507, 'a copy needs room for the source\'s size')
    t.equal((await user.read('c.txt')).statusCode, 404)
    const folderCopy = await user.app.inject({ method: 'POST', url: '/api/copies', headers: user.headers, payload: { from: 'docs/', to: 'backup/' } })
    t.equal(folderCopy.statusCode, 507, 'a folder copy stops at the first file without room')
    t.equal((await user.read('backup/b.txt')).statusCode, 404)
    const moved = await user.app.inject({ method: 'POST', url: '/api/moves', headers: user.headers, payload: { from: 'docs/b.txt', to: 'a.txt' } })
    t.equal(moved.statusCode, 200, 'a move needs no room')
    t.match(await user.usage(), { usedBytes: 800, fileBytes: 500, versionBytes: 300, fileCount: 1 }, 'the file a move replaced counts as a version')

    const deleted = await user.app.inject({ method: 'DELETE', url: '/api/raw/a.txt', headers: user.headers })
    t.equal(deleted.statusCode, 204)
    t.match(await user.usage(), { usedBytes: 800, fileBytes: 0, trashBytes: 500, versionBytes: 300, fileCount: 0 }, 'a deleted file still counts, in the trash')
    t.equal((await user.put('d.txt', Buffer.alloc(600))).statusCode, 507, 'the trash takes room')
    const trashId = deleted.headers['stowage-trash-id'] as string
    t.equal((await user.app.inject({ method: 'POST', url: `/api/trash/${trashId}/restore`, headers: user.headers })).statusCode, 200)
    t.match(await user.usage(), { usedBytes: 800, fileBytes: 500, trashBytes: 0, fileCount: 1 }, 'a restore moves it back')
    await user.app.inject({ method: 'DELETE', url: '/api/raw/a.txt', headers: user.headers })
    t.equal((await user.app.inject({ method: 'DELETE', url: '/api/trash', headers: user.headers })).statusCode, 204)
    t.match(await user.usage(), { usedBytes: 300, trashBytes: 0, versionBytes: 300 }, 'purged: the room is back')
    t.equal((await user.put('d.txt', Buffer.alloc(600))).statusCode, 200)
    t.equal((await user.put('e.txt', Buffer.alloc(0))).statusCode, 200, 'an empty file fits anywhere')

    const tracked = await user.usage()
    const { storage } = stowageOptions(user.config)
    const store = await createStore({ driver, ...storage }, user.config.MAX_UPLOAD_BYTES)
    // Every user's names are indexed: the recount reads the index, never the store's listing.
    const unlisted = { ...store, list: async () => { throw new Error('the recount listed the store') } }
    const counted = await recountUsage(unlisted, user.config.STORAGE_ROOT, createUsageRepository(user.app.stowageDb, 1000), createNameRepository(user.app.stowageDb))
    t.match(counted.find((entry) => entry.userId === user.userId), { fileBytes: tracked.fileBytes, fileCount: tracked.fileCount, trashBytes: tracked.trashBytes, versionBytes: tracked.versionBytes, uploadBytes: tracked.uploadBytes })
    t.same(await user.usage(), tracked, 'the recount equals the tracked usage')
  })

  t.test(`${driver}: unconditional writers of one path, raw, JSON and tus, with If-Match writers among them: each answers its own ETag, one file stands whole, and usage counts it once`, async (t) => {
    const user = await quotaApp(t, driver, { QUOTA_BYTES: String(MIB) })
    const etag = (await user.put('one.txt', 'start')).headers.etag as string
    const bodies = Array.from({ length: 24 }, (_, i) => randomBytes(1000 + 37 * i))
    const md5 = (body: Buffer) => `"${createHash('md5').update(body).digest('hex')}"`
    const url = await user.app.listen({ port: 0, host: '127.0.0.1' })
    const write = async (i: number) => {
      const body = bodies[i]
      if (i % 4 === 3) {
        const answer = await user.put('one.txt', body, { 'if-match': etag })
        return { status: answer.statusCode, etag: answer.headers.etag }
      }
      if (i % 4 === 2) {
        const answer = await user.app.inject({ method: 'PUT', url: '/api/files/one.txt', headers: user.headers, payload: { content: body.toString('base64') } })
        return { status: answer.statusCode, etag: answer.json().etag }
      }
      if (i % 4 === 1) {
        await tusUpload(body, { endpoint: `${url}/api/uploads`, headers: user.headers, metadata: { path: 'one.txt' }, uploadSize: body.length })
        return { status: 200, etag: md5(body) }
      }
      const answer = await user.put('one.txt', body)
      return { status: answer.statusCode, etag: answer.headers.etag }
    }
    const answers = await Promise.all(bodies.map((_, i) => write(i)))
    answers.forEach((answer, i) => {
      if (i % 4 !== 3) t.same(answer, { status: 200, etag: md5(bodies[i]) }, `unconditional writer ${i}`)
    })
    const conditional = answers.filter((_, i) => i % 4 === 3).map((answer) => answer.status)
    t.ok(conditional.every((status) => status === 200 || status === 412) && conditional.filter((status) => status === 200).length <= 1,
      `at most one If-Match writer won: ${conditional.join(' ')}`)
    const stored = Buffer.from((await user.read('one.txt')).rawPayload)
    const standing = bodies.findIndex((body) => body.equals(stored))
    t.ok(standing >= 0 && answers[standing].status === 200, `one answered writer's body stands, whole (${standing}, ${stored.length} bytes: ${stored.subarray(0, 20).toString('hex')})`)
    t.match(await user.usage(), { fileBytes: stored.length, fileCount: 1, uploadBytes: 0 }, 'counted once')
    const versions = (await user.app.inject({ url: '/api/versions?path=one.txt', headers: user.headers })).json() as { versions: Array<{ size: number }> }
    t.equal((await user.usage()).versionBytes, versions.versions.reduce((bytes, version) => bytes + version.size, 0), 'each version kept counted once')
    const { reservedBytes } = (await createUsageRepository(user.app.stowageDb, null).read({ userId: user.userId, orgId: null })).usage
    t.equal(reservedBytes, 0, 'no reservation is left')
  })

  t.test(`${driver}: a chunked upload that crosses the quota part way is 507, and the old file stays`, async (t) => {
    const user = await quotaApp(t, driver, { QUOTA_BYTES: String(3 * 1024 * 1024) })
    const old = randomBytes(1000)
    t.equal((await user.put('report.pdf', old)).statusCode, 200)
    await user.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = user.app.server.address() as { port: number }
    const chunks = Array.from({ length: 64 }, () => randomBytes(64 * 1024))
    const crossing = await putChunked(`http://127.0.0.1:${port}/api/raw/report.pdf`, user.headers, chunks)
    t.equal(crossing.status, 507, crossing.body)
    t.match(JSON.parse(crossing.body), { error: /over your storage quota/ })
    const kept = await user.read('report.pdf')
    t.ok(kept.rawPayload.equals(old), 'the old file is whole')
    t.match(await user.usage(), { usedBytes: 1000, fileBytes: 1000, fileCount: 1 }, 'its room was given back')
    const fits = await putChunked(`http://127.0.0.1:${port}/api/raw/report.pdf`, user.headers, chunks.slice(0, 16))
    t.equal(fits.status, 200, 'a chunked upload that fits lands')
    t.match(await user.usage(), { usedBytes: MIB + 1000, fileBytes: MIB, versionBytes: 1000, fileCount: 1 }, 'the old file a version')
  })

  t.test(`${driver}: a resumable upload holds its declared length until it is published; one over the quota is 507 at creation`, async (t) => {
    const user = await quotaApp(t, driver, { QUOTA_BYTES: String(2 * MIB) })
    await user.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = user.app.server.address() as { port: number }
    const endpoint = `http://127.0.0.1:${port}/api/uploads`
    const create = (length: number, path: string) => fetch(endpoint, {
      method: 'POST', headers: { ...user.headers, 'tus-resumable': '1.0.0', 'upload-length': String(length), 'upload-metadata': `path ${Buffer.from(path).toString('base64')}` }
    })
    const started = await create(MIB + 1, 'video.mp4')
    t.equal(started.status, 201)
    t.match(await user.usage(), { usedBytes: MIB + 1, uploadBytes: MIB + 1, fileBytes: 0 }, 'its declared length counts at once')
    const refused = await create(MIB, 'other.mp4')
    t.equal(refused.status, 507, 'no room for a second one')
    t.match(await refused.json(), { error: /1048577 of 2097152 bytes in use/ })
    const body = randomBytes(MIB + 1)
    await tusUpload(body, { uploadUrl: new URL(started.headers.get('location')!, endpoint).toString(), headers: user.headers, uploadSize: body.length })
    t.match(await user.usage(), { usedBytes: MIB + 1, uploadBytes: 0, fileBytes: MIB + 1, fileCount: 1 }, 'published: it counts as a file')
    const dropped = await create(1000, 'dropped.bin')
    t.equal((await fetch(new URL(dropped.headers.get('location')!, endpoint), { method: 'DELETE', headers: { ...user.headers, 'tus-resumable': '1.0.0' } })).status, 204)
    t.match(await user.usage(), { uploadBytes: 0 }, 'a dropped upload gives its room back')
  })
}

t.test('an unfinished upload\'s reservation ends with its expiry', async (t) => {
  const database = await createTestDatabase({ shared: true })
  t.teardown(database.drop)
  const env = { DATABASE_URL: database.url }
  const first = await quotaApp(t, 'fs', env)
  const created = await first.app.inject({
    method: 'POST', url: '/api/uploads', headers: { ...first.headers, 'tus-resumable': '1.0.0', 'upload-length': '800', 'upload-metadata': `path ${Buffer.from('late.bin').toString('base64')}` }
  })
  t.equal(created.statusCode, 201)
  t.match(await first.usage(), { uploadBytes: 800 })
  await first.app.stowageDb.updateTable('uploads').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).execute()
  await first.close()
  // The sweep runs when an instance starts.
  const second = await buildTestApp({ env: { ...env, QUOTA_BYTES: '1000' } })
  t.teardown(second.close)
  const { key } = await second.app.stowageKeys.create({ userId: first.userId, orgId: first.orgId })
  const usage = async () => (await second.app.inject({ url: '/api/usage', headers: bearer(key) })).json() as Usage
  for (let i = 0; i < 100 && (await usage()).uploadBytes !== 0; i++) await new Promise((resolve) => setTimeout(resolve, 100))
  t.match(await usage(), { usedBytes: 0, uploadBytes: 0 })
})

t.test('the reservation of a write whose instance died expires; a write in flight holds its room', async (t) => {
  const user = await quotaApp(t, 'fs')
  const repository = createUsageRepository(user.app.stowageDb, 1000)
  const owner = { userId: user.userId, orgId: user.orgId }
  t.ok(await repository.reserve(owner, 'dead-instance', 900, new Date(Date.now() + 60_000)), 'a reservation of a write that never ended')
  t.equal((await user.put('a.txt', Buffer.alloc(200))).statusCode, 507, 'its room is held')
  t.equal(await repository.expire(new Date(Date.now() + 61_000)), 1, 'once its time is up, the sweep gives it back')
  t.equal((await user.put('a.txt', Buffer.alloc(200))).statusCode, 200, 'expired: the room is back')
  t.match(await repository.read(owner), { usage: { reservedBytes: 0, fileBytes: 200 } })
})

t.test('a write holds room while its body arrives only when a quota bounds its writer: without one its record is one transaction', async (t) => {
  for (const quota of [null, 1_000_000] as const) {
    const user = await quotaApp(t, 'fs', { QUOTA_BYTES: '' })
    if (quota !== null) await createUsageRepository(user.app.stowageDb, null).setQuota(`org:${user.orgId}`, quota)
    const { port } = new URL(await user.app.listen({ port: 0, host: '127.0.0.1' }))
    const staging = join(user.config.STORAGE_DIR, '.tmp')
    const answered = new Promise<number>((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port, method: 'PUT', path: '/api/raw/slow.bin', headers: { ...user.headers, 'content-length': '300000' } }, (response) => {
        response.resume()
        resolve(response.statusCode!)
      }).on('error', reject)
      // More than the fs driver reads before it makes the file (SMALL_BODY_BYTES).
      request.write(Buffer.alloc(200_000))
      // Once its body is being staged, its room is whatever it will hold until it is published.
      void waitFor(async () => (await readdir(staging).catch(() => [])).length > 0, { what: 'the body staged' }).then(async () => {
        const held = await user.app.stowageDb.selectFrom('quota_reservations').select('bytes').where('user_id', '=', user.userId).execute()
        t.same(held.map((row) => Number(row.bytes)), quota === null ? [] : [300_000], quota === null ? 'no quota: no room held' : 'a quota: its declared length held')
        request.end(Buffer.alloc(100_000))
      }, reject)
    })
    t.equal(await answered, 200)
    t.match(await user.usage(), { fileBytes: 300_000, fileCount: 1, quotaBytes: quota }, 'counted once published')
    t.equal((await user.app.stowageDb.selectFrom('quota_reservations').select('id').execute()).length, 0, 'no reservation left')
  }
})

t.test('an organization\'s quota applies to its members without their own; a user\'s own overrides it', async (t) => {
  const user = await quotaApp(t, 'fs', { QUOTA_BYTES: '' })
  t.equal((await user.usage()).quotaBytes, null, 'no quota by default')
  const repository = createUsageRepository(user.app.stowageDb, null)
  await repository.setQuota(`org:${user.orgId}`, 100)
  t.equal((await user.put('a.txt', Buffer.alloc(101))).statusCode, 507)
  await repository.setQuota(`user:${user.userId}`, 200)
  t.equal((await user.put('a.txt', Buffer.alloc(101))).statusCode, 200)
  t.equal((await user.usage()).quotaBytes, 200)
})

t.test('s3: with a quota, upload links are served by Stowage and counted', async (t) => {
  const user = await quotaApp(t, 's3')
  const link = async () => (await user.app.inject({ method: 'POST', url: '/api/links', headers: user.headers, payload: { path: 'in.bin', method: 'upload', size: 1001 } })).json().url as string
  const url = await link()
  t.match(url, /\/links\//, 'served by Stowage, which counts it')
  const refused = await user.app.inject({ method: 'PUT', url: new URL(url).pathname, headers: { 'content-type': 'application/octet-stream' }, payload: Buffer.alloc(1001) })
  t.equal(refused.statusCode, 507, 'over the quota before a byte is stored')
})

t.test('s3: an upload link made before a quota is set is counted against it when used', async (t) => {
  const user = await quotaApp(t, 's3', { QUOTA_BYTES: '' })
  const url = (await user.app.inject({ method: 'POST', url: '/api/links', headers: user.headers, payload: { path: 'in.bin', method: 'upload', size: 2000 } })).json().url as string
  t.match(url, /\/links\//, 'served by Stowage even with no quota: one may be set while the link lives')
  await createUsageRepository(user.app.stowageDb, null).setQuota(`user:${user.userId}`, 1000)
  const refused = await user.app.inject({ method: 'PUT', url: new URL(url).pathname, headers: { 'content-type': 'application/octet-stream' }, payload: Buffer.alloc(2000) })
  t.equal(refused.statusCode, 507, 'the quota set afterwards holds')
})

t.test('s3: 100 concurrent 1 KiB raw uploads with the default memory budget are all 200', async (t) => {
  const user = await quotaApp(t, 's3', { QUOTA_BYTES: '' })
  const statuses = await Promise.all(Array.from({ length: 100 }, (_, i) => user.put(`small/${i}.txt`, randomBytes(1024)).then((res) => res.statusCode)))
  t.same([...new Set(statuses)], [200], `statuses: ${statuses.join(' ')}`)
  t.match(await user.usage(), { fileBytes: 100 * 1024, fileCount: 100 })
})
