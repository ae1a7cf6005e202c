import t from 'tap'
import { execFileSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFsStore } from '../storage/fs-store.js'
import { createKeyLocks } from '../db/key-locks.js'
import { openDatabase } from '../db/dialect.js'
import type { ObjectRead, ObjectStore } from '../storage/object-store.js'
import { createPublisher } from '../storage/publisher.js'
import { createS3Store } from '../storage/s3-store.js'
import { createMemoryStore } from './helpers/memory-store.js'
import { startS3Server, TEST_S3_CREDENTIALS } from './helpers/s3.js'
import { getBytes, putBytes } from './helpers/store.js'
import { startCuttingProxy } from './helpers/net.js'

const s3 = await startS3Server()
const fsDir = await mkdtemp(join(tmpdir(), 'stowage-contract-'))
t.teardown(async () => { await s3.close(); await rm(fsDir, { recursive: true, force: true }) })

const MIB = 1024 * 1024
const drivers: Record<string, () => ObjectStore> = {
  fs: () => createFsStore(fsDir),
  // Parts of 5 MiB, S3's least, so that a few MiB take the multipart path.
  s3: () => createS3Store({
    bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: TEST_S3_CREDENTIALS,
    partBytes: 5 * MIB
  }),
  // A host's own store: no lock, precondition or usage code of its own.
  memory: createMemoryStore
}

/** A store as Stowage uses it: read directly, and changed only through the one publisher. */
function published (driver: ObjectStore, locks?: Parameters<typeof createPublisher>[0]['locks'], hooks?: Parameters<typeof createPublisher>[0]['hooks']) {
  return { list: driver.list, head: driver.head, read: driver.read, ...createPublisher({ store: driver, locks, hooks }) }
}

async function * failingAfter (chunks: Buffer[]): AsyncGenerator<Buffer> {
  yield * chunks
  throw new Error('the client went away')
}

/** Matches a Stowage error of this status (and fields). */
const refused = (statusCode: number, fields: object = {}) => ({ statusCode, ...fields }) as unknown as Error

const text = async (read: ObjectRead | undefined) => {
  const chunks: Buffer[] = []
  for await (const chunk of read!.body) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString()
}

// One contract: both drivers, and a host's store.
for (const [name, create] of Object.entries(drivers)) {
  t.test(`ObjectStore contract: ${name}`, async (t) => {
    const driver = create()
    t.teardown(() => driver.close?.())
    const store = published(driver)
    const base = `contract/${name}/`

    t.test('put returns the stored size and time; get returns body and content type', async (t) => {
      const before = Date.now() - 2000
      const info = await putBytes(store, base + 'a.txt', Buffer.from('hello'), 'text/plain')
      t.equal(info.size, 5)
      t.ok(info.lastModified.getTime() >= before)
      const object = await getBytes(store, base + 'a.txt')
      t.equal(object?.body.toString(), 'hello')
      t.equal(object?.contentType, 'text/plain')
      t.equal(object?.size, 5)
    })

    t.test('a copy keeps its source\'s content type, or takes the one it is given; the source keeps its own', async (t) => {
      const source = await putBytes(store, base + 'typed/a.txt', Buffer.from('typed'), 'text/plain')
      await store.copy(source, base + 'typed/kept.txt')
      await store.copy(source, base + 'typed/b.md', { contentType: 'text/markdown' })
      t.match(await getBytes(store, base + 'typed/kept.txt'), { contentType: 'text/plain', etag: source.etag })
      const retyped = await getBytes(store, base + 'typed/b.md')
      t.match(retyped, { contentType: 'text/markdown', etag: source.etag, size: 5 })
      t.equal(retyped?.body.toString(), 'typed')
      t.equal((await store.head(base + 'typed/a.txt'))?.contentType, 'text/plain')
    })

    t.test('binary content is kept byte for byte', async (t) => {
      const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i))
      await putBytes(store, base + 'bytes.bin', bytes, 'application/octet-stream')
      t.same((await getBytes(store, base + 'bytes.bin'))?.body, bytes)
    })

    t.test('head and get of a missing key are undefined', async (t) => {
      t.equal(await store.head(base + 'missing'), undefined)
      t.equal(await getBytes(store, base + 'missing'), undefined)
    })

    t.test('delete reports whether there was an object', async (t) => {
      await putBytes(store, base + 'gone.txt', Buffer.from('x'), 'text/plain')
      t.equal((await store.delete(base + 'gone.txt'))?.size, 1)
      t.equal(await store.head(base + 'gone.txt'), undefined)
      t.equal(await store.delete(base + 'gone.txt'), undefined)
    })

    t.test('list pages in UTF-8 byte order, after startAfter, within the prefix', async (t) => {
      const prefix = base + 'list/'
      const names = ['b', 'a0', 'a/b', 'é', 'z', '📄', 'ÿ']
      for (const key of names) await putBytes(store, prefix + key, Buffer.from(key), 'text/plain')
      await putBytes(store, base + 'listing-outside', Buffer.from('x'), 'text/plain')
      const expected = [...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)))

      const first = await store.list(prefix, { limit: 3 })
      t.same(first.objects.map((o) => o.key.slice(prefix.length)), expected.slice(0, 3))
      t.equal(first.isTruncated, true)
      const rest = await store.list(prefix, { limit: 100, startAfter: first.objects.at(-1)!.key })
      t.same(rest.objects.map((o) => o.key.slice(prefix.length)), expected.slice(3))
      t.equal(rest.isTruncated, false)
      t.equal(rest.objects.find((o) => o.key.endsWith('📄'))?.size, Buffer.byteLength('📄'))

      const partial = await store.list(prefix + 'a', { limit: 100 })
      t.same(partial.objects.map((o) => o.key.slice(prefix.length)), ['a/b', 'a0'], 'a prefix may end inside a name')
      t.same((await store.list(base + 'nothing-here/', { limit: 10 })).objects, [])
    })

    t.test('every object has a strong, quoted ETag: the same from head, list and read, changed by new content', async (t) => {
      const written = await putBytes(store, base + 'etag.txt', Buffer.from('one'), 'text/plain')
      t.match(written.etag, /^"[^"]+"$/)
      t.equal((await store.head(base + 'etag.txt'))?.etag, written.etag)
      t.equal((await store.list(base + 'etag', { limit: 10 })).objects[0].etag, written.etag)
      t.equal((await getBytes(store, base + 'etag.txt'))?.etag, written.etag)
      t.equal((await store.head(base + 'etag.txt'))?.contentType, 'text/plain')
      const changed = await putBytes(store, base + 'etag.txt', Buffer.from('two'), 'text/plain')
      t.not(changed.etag, written.etag)
    })

    t.test('a range reads only its bytes: first and last, open-ended, suffix, clamped; past the end is 416', async (t) => {
      await putBytes(store, base + 'range.txt', Buffer.from('0123456789'), 'text/plain')
      const cases: Array<[Parameters<ObjectStore['read']>[1], string, [number, number]]> = [
        [{ start: 0, end: 0 }, '0', [0, 0]], [{ start: 9, end: 9 }, '9', [9, 9]], [{ start: 7 }, '789', [7, 9]],
        [{ suffix: 3 }, '789', [7, 9]], [{ suffix: 50 }, '0123456789', [0, 9]], [{ start: 8, end: 100 }, '89', [8, 9]]
      ]
      for (const [range, expected, [start, end]] of cases) {
        const read = await store.read(base + 'range.txt', range)
        t.same(read?.range, { start, end }, JSON.stringify(range))
        t.equal(read?.size, 10)
        t.equal(await text(read), expected, JSON.stringify(range))
      }
      for (const range of [{ start: 10 }, { suffix: 0 }]) {
        await t.rejects(store.read(base + 'range.txt', range), refused(416, { size: 10 }), JSON.stringify(range))
      }
      t.equal(await store.read(base + 'no-such-range', { start: 0 }), undefined)
    })

    t.test('preconditions are checked when the object is published; failing, they change nothing', async (t) => {
      const key = base + 'guarded.txt'
      const { etag } = await putBytes(store, key, Buffer.from('kept'), 'text/plain')
      const write = (preconditions: object, body = 'changed') =>
        store.write(key, [Buffer.from(body)], { contentType: 'text/plain', maxBytes: 100, preconditions })
      await t.rejects(write({ ifMatch: ['"stale"'] }), refused(412))
      await t.rejects(write({ ifNoneMatch: ['*'] }), refused(412))
      await t.rejects(store.delete(key, { ifMatch: ['"stale"'] }), refused(412))
      t.equal((await getBytes(store, key))?.body.toString(), 'kept')
      const next = await write({ ifMatch: [etag] }, 'next')
      t.equal((await getBytes(store, key))?.body.toString(), 'next')
      t.equal((await store.delete(key, { ifMatch: [next.etag] }))?.etag, next.etag)
      await t.rejects(write({ ifMatch: ['*'] }), refused(412), 'If-Match: * needs an object')
      t.equal((await write({ ifNoneMatch: ['*'] }, 'created')).size, 7)
    })

    t.test('with a key lock, of concurrent writers holding one ETag exactly one publishes', async (t) => {
      const db = openDatabase('sqlite::memory:')
      t.teardown(() => db.destroy())
      const locked = published(driver, createKeyLocks(db))
      const key = base + 'locked.txt'
      const { etag } = await putBytes(store, key, Buffer.from('start'), 'text/plain')
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, (_, i) =>
        locked.write(key, [Buffer.alloc(64 * 1024, String(i))], { contentType: 'text/plain', maxBytes: MIB, preconditions: { ifMatch: [etag] } })))
      t.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled').length, 1)
      t.ok(outcomes.every((outcome) => outcome.status === 'fulfilled' || (outcome.reason as { statusCode: number }).statusCode === 412))
    })

    t.test('with key locks, unconditional writers share a turn: each answers its own object, and one of them stands whole', async (t) => {
      const db = openDatabase('sqlite::memory:')
      t.teardown(() => db.destroy())
      const locked = published(driver, createKeyLocks(db))
      const key = base + 'shared.txt'
      await putBytes(store, key, Buffer.from('start'), 'text/plain')
      const bodies = Array.from({ length: 8 }, (_, i) => Buffer.alloc(1000 + i, String(i)))
      const written = await Promise.all(bodies.map((body) => locked.write(key, [body], { contentType: 'text/plain', maxBytes: MIB })))
      t.same(written.map((file) => file.size), bodies.map((body) => body.length), 'each answers the size it stored')
      t.same(written.map((file) => file.etag), bodies.map((body) => `"${createHash('md5').update(body).digest('hex')}"`), 'and its own ETag')
      const stored = (await getBytes(store, key))!.body
      t.ok(bodies.some((body) => body.equals(stored)), 'one of them stands, whole')
    })

    t.test('the publisher hands what a publish replaces to `keep`, and each change to `published`', async (t) => {
      const seen: string[] = []
      const short = (key: string) => key.slice(base.length)
      const hooked = published(driver, undefined, {
        keep: async (current) => {
          seen.push(`replacing ${short(current.key)} (${current.size})`)
          return undefined
        },
        published: async ({ key, before, after, from }) => {
          seen.push(`${short(key)}: ${before?.size ?? 'none'} -> ${after?.size ?? 'none'}${from ? ` from ${short(from.key)}` : ''}`)
        }
      })
      const write = (key: string, text: string) => hooked.write(base + key, [Buffer.from(text)], { contentType: 'text/plain', maxBytes: 100 })
      await write('hooked/a', '1')
      const a = await write('hooked/a', '22')
      await hooked.copy(a, base + 'hooked/b')
      await hooked.move(base + 'hooked/b', base + 'hooked/a')
      await hooked.delete(base + 'hooked/a')
      t.same(seen, [
        'hooked/a: none -> 1', 'replacing hooked/a (1)', 'hooked/a: 1 -> 2', 'hooked/b: none -> 2', 'replacing hooked/a (2)', 'hooked/a: 2 -> 2 from hooked/b', 'hooked/a: 2 -> none'
      ])
    })

    t.test('over maxBytes the write fails with 413 and the old object stays', async (t) => {
      const key = base + 'bounded.bin'
      await putBytes(store, key, Buffer.from('old'), 'application/octet-stream')
      await t.rejects(store.write(key, [Buffer.alloc(600), Buffer.alloc(600)], { contentType: 'application/octet-stream', maxBytes: 1000 }), refused(413))
      t.equal((await getBytes(store, key))?.body.toString(), 'old')
    })

    t.test('a body that fails part way, in one part or in several, leaves the old object whole', async (t) => {
      const key = base + 'interrupted.bin'
      await putBytes(store, key, Buffer.from('old'), 'application/octet-stream')
      for (const chunks of [[Buffer.alloc(1000)], Array.from({ length: 12 }, () => Buffer.alloc(MIB, 'y'))]) {
        await t.rejects(store.write(key, failingAfter(chunks), { contentType: 'application/octet-stream', maxBytes: 100 * MIB }), /went away/)
        t.equal((await getBytes(store, key))?.body.toString(), 'old')
      }
      if (name === 's3') {
        const aborted = (await s3.requests()).filter((request) => request.method === 'DELETE' && request.url.includes('interrupted.bin?uploadId='))
        t.equal(aborted.length, 1, 'the store\'s multipart upload of the cut body is aborted')
      }
    })

    t.test('a body read to its end leaves its connection to be reused', { skip: (name !== 's3' || !existsSync('/usr/bin/ss')) && 'S3 only, with ss(8)' }, async (t) => {
      await putBytes(store, base + 'reused.txt', Buffer.alloc(4096, 'r'), 'text/plain')
      const port = new URL(s3.endpoint).port
      // Connections to s3rver that this test ends: each GET on a new connection leaves one in TIME-WAIT.
      const closedToStore = () => execFileSync('ss', ['-tan', 'state', 'time-wait', `dport = :${port}`]).toString().trim().split('\n').length - 1
      const before = closedToStore()
      for (let i = 0; i < 20; i++) t.equal(await text(await store.read(base + 'reused.txt')), 'r'.repeat(4096))
      t.ok(closedToStore() - before < 5, `${closedToStore() - before} connections closed for 20 reads`)
    })

    t.test('a body of several parts round-trips byte for byte', async (t) => {
      const chunks = Array.from({ length: 23 }, (_, i) => Buffer.alloc(512 * 1024, i))
      const written = await store.write(base + 'parts.bin', chunks, { contentType: 'application/octet-stream', maxBytes: 100 * MIB })
      t.equal(written.size, 23 * 512 * 1024)
      t.same((await getBytes(store, base + 'parts.bin'))?.body, Buffer.concat(chunks))
    })

    const newId = () => randomBytes(16).toString('hex')
    const octets = 'application/octet-stream'

    /**
     * Appends `pieces` one by one, as requests would, each announcing its length as tus does, the state
     * kept between them as the database keeps it.
     */
    async function stagedUpload (key: string, pieces: Buffer[], contentType = octets) {
      const id = newId()
      const length = pieces.reduce((bytes, piece) => bytes + piece.length, 0)
      let state = JSON.parse(JSON.stringify(await store.staged!.begin(id, key, contentType)))
      let offset = 0
      for (const piece of pieces) {
        const appended = await store.staged!.append(id, key, state, [piece], { offset, length, announced: piece.length })
        state = JSON.parse(JSON.stringify(appended.state))
        offset = appended.offset
      }
      return { id, state, offset, length }
    }

    t.test('a staged upload in pieces of any size is invisible until completed, then whole, with the MD5 ETag a PUT gives', { skip: !driver.staged && 'a store without resumable uploads' }, async (t) => {
      const key = base + 'staged.bin'
      const body = randomBytes(13 * MIB + 12345)
      // Pieces below S3's 5 MiB part, across a part, and a last one of a few bytes.
      const cuts = [0, 1 * MIB, 3 * MIB + 7, 9 * MIB, 13 * MIB, body.length - 3, body.length]
      const pieces = cuts.slice(1).map((end, i) => body.subarray(cuts[i], end))
      const upload = await stagedUpload(key, pieces, 'video/mp4')
      t.equal(upload.offset, body.length)
      t.equal(await store.head(key), undefined, 'nothing at the key before completion')
      const meta = await store.staged!.complete(upload.id, key, upload.state, { contentType: 'video/mp4' })
      t.equal(meta.size, body.length)
      const read = await getBytes(store, key)
      t.ok(read?.body.equals(body), 'byte for byte')
      t.equal(read?.contentType, 'video/mp4')
      t.equal(meta.etag, `"${createHash('md5').update(body).digest('hex')}"`, 'the MD5 of the body (AWS S3 would add -<parts>)')
    })

    t.test('a piece cut short keeps what arrived; the next piece goes on from there, and a retried piece overwrites', { skip: !driver.staged && 'a store without resumable uploads' }, async (t) => {
      const key = base + 'staged-cut.bin'
      const body = randomBytes(7 * MIB)
      const id = newId()
      const length = body.length
      let state = await store.staged!.begin(id, key, octets)
      // It announced the whole body: on S3 its part went to the store as it arrived, and is dropped.
      const cut = await store.staged!.append(id, key, state, failingAfter([body.subarray(0, 2 * MIB), body.subarray(2 * MIB, 3 * MIB)]), { offset: 0, length, announced: length })
      t.equal(cut.offset, 3 * MIB, 'the bytes before the cut are kept')
      state = cut.state
      // A piece sent, stored, then lost before its state was recorded: sent again from the recorded offset.
      await store.staged!.append(id, key, state, [Buffer.alloc(MIB, 'x')], { offset: 3 * MIB, length })
      const resumed = await store.staged!.append(id, key, state, [body.subarray(3 * MIB)], { offset: 3 * MIB, length, announced: length - 3 * MIB })
      t.equal(resumed.offset, length)
      await store.staged!.complete(id, key, resumed.state, { contentType: octets })
      t.ok((await getBytes(store, key))?.body.equals(body))
    })

    t.test('a staged upload never goes past its length, and a failing precondition at completion leaves the old file', { skip: !driver.staged && 'a store without resumable uploads' }, async (t) => {
      const key = base + 'staged-guarded.bin'
      const { etag } = await putBytes(store, key, Buffer.from('old'), 'text/plain')
      const id = newId()
      const state = await store.staged!.begin(id, key, octets)
      await t.rejects(store.staged!.append(id, key, state, [Buffer.alloc(20)], { offset: 0, length: 10 }), refused(413))
      await store.staged!.discard(id, key, state)
      const upload = await stagedUpload(key, [Buffer.from('new body')])
      await t.rejects(store.staged!.complete(upload.id, key, upload.state, { contentType: octets, preconditions: { ifNoneMatch: ['*'] } }), refused(412))
      await t.rejects(store.staged!.complete(upload.id, key, upload.state, { contentType: octets, preconditions: { ifMatch: ['"0123456789abcdef0123456789abcdef"'] } }), refused(412))
      t.equal((await getBytes(store, key))?.body.toString(), 'old')
      await store.staged!.complete(upload.id, key, upload.state, { contentType: octets, preconditions: { ifMatch: [etag] } })
      t.equal((await getBytes(store, key))?.body.toString(), 'new body', 'still completes once the precondition holds')
    })

    t.test('an empty staged upload completes as an empty file; a discarded one leaves nothing', { skip: !driver.staged && 'a store without resumable uploads' }, async (t) => {
      const empty = await stagedUpload(base + 'staged-empty.bin', [])
      t.equal((await store.staged!.complete(empty.id, base + 'staged-empty.bin', empty.state, { contentType: octets })).size, 0)
      const dropped = await stagedUpload(base + 'staged-dropped.bin', [Buffer.alloc(MIB)])
      await store.staged!.discard(dropped.id, base + 'staged-dropped.bin', dropped.state)
      t.equal(await store.head(base + 'staged-dropped.bin'), undefined)
      if (name === 'fs') t.same(await readdir(join(fsDir, '.uploads')), [], 'no staged file left')
      else t.equal((await store.list('stowage-uploads/', { limit: 10 })).objects.length, 0, 'no tail object left')
    })

    // s3rver writes an object straight into its final file, so concurrent PUTs of one key can mix
    // (seen under load); S3 itself keeps one whole version, and so must the fs driver.
    t.test('concurrent writes of one key leave one whole version', { skip: name === 's3' && 's3rver writes objects in place' }, async (t) => {
      const versions = ['a', 'b', 'c', 'd'].map((c) => Buffer.alloc(64 * 1024, c))
      await Promise.all(versions.map((body) => putBytes(store, base + 'race.bin', body, 'application/octet-stream')))
      const body = (await getBytes(store, base + 'race.bin'))!.body
      t.ok(versions.some((version) => version.equals(body)))
    })
  })
}

t.test('s3: a part sent as it arrives is sent again whole when its connection drops; a piece cut short of its part keeps what came', async (t) => {
  const proxy = await startCuttingProxy(new URL(s3.endpoint), 2 * MIB)
  t.teardown(proxy.close)
  const store = createS3Store({
    bucket: s3.bucket, region: 'us-east-1', endpoint: proxy.url, forcePathStyle: true, credentials: TEST_S3_CREDENTIALS, partBytes: 8 * MIB
  })
  t.teardown(() => store.close?.())
  const key = 'contract/s3-streamed/film.bin'
  const body = randomBytes(24 * MIB)
  const length = body.length
  const id = randomBytes(16).toString('hex')
  const octets = 'application/octet-stream'
  const begun = await store.staged!.begin(id, key, octets)
  // Its first part is sent as it arrives; its connection is dropped 2 MiB in, and the part is sent again whole.
  const first = await store.staged!.append(id, key, begun, [body.subarray(0, 16 * MIB)], { offset: 0, length, announced: 16 * MIB })
  t.equal(first.offset, 16 * MIB)
  t.notOk(proxy.cut.armed, 'the proxy dropped the connection')
  // Announced whole, cut 6 MiB in: its part, short but over S3's least, is sent whole.
  const cut = await store.staged!.append(id, key, first.state, failingAfter([body.subarray(16 * MIB, 22 * MIB)]), { offset: 16 * MIB, length, announced: 8 * MIB })
  t.equal(cut.offset, 22 * MIB)
  const last = await store.staged!.append(id, key, cut.state, [body.subarray(22 * MIB)], { offset: 22 * MIB, length, announced: 2 * MIB })
  t.equal(last.offset, length)
  const meta = await (await store.staged!.finish(id, key, last.state, octets)).publish()
  t.equal(meta.etag, `"${createHash('md5').update(body).digest('hex')}"`)
  t.ok((await getBytes(store, key))?.body.equals(body), 'byte for byte')
})

t.test('fs driver: a reader never sees half a file, and deletes leave no empty folders', async (t) => {
  const store = published(createFsStore(fsDir))
  const piece = Buffer.alloc(256 * 1024, 'x')
  const pieces = 16
  const small = Buffer.from('small')
  await putBytes(store, 'atomic/file', small, 'text/plain')
  const seen: number[] = []
  // Each read runs between two pieces of the write, while it is in progress for certain.
  const body = async function * () {
    for (let i = 0; i < pieces; i++) {
      yield piece
      seen.push((await getBytes(store, 'atomic/file'))!.body.length)
    }
  }
  await store.write('atomic/file', body(), { contentType: 'text/plain', maxBytes: Infinity })
  t.equal(seen.length, pieces, 'every read overlapped the write')
  t.same(seen.filter((size) => size !== small.length), [], 'each saw the old version whole, never part of the new')
  t.equal((await getBytes(store, 'atomic/file'))!.body.length, piece.length * pieces, 'then the new one, whole')

  // s3rver orders `a/b` before `a-c`; S3 and the fs driver order by bytes, and '-' comes before '/'.
  await putBytes(store, 'order/a/b', small, 'text/plain')
  await putBytes(store, 'order/a-c', small, 'text/plain')
  t.same((await store.list('order/', { limit: 10 })).objects.map((o) => o.key), ['order/a-c', 'order/a/b'])

  await putBytes(store, 'deep/er/still/file', small, 'text/plain')
  await store.delete('deep/er/still/file')
  t.notOk((await readdir(fsDir)).includes('deep.d'), 'empty parent folders are removed')
  t.same(await readdir(join(fsDir, '.tmp')), [], 'no temporary file is left')
})

t.test('fs driver: open() upgrades version-1 objects and sweeps stale temporary files', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-legacy-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  // Version 1: the body in `<name>.f`, its content type beside it in `<name>.m`.
  await mkdir(join(dir, 'users.d', 'alice.d', 'files.d'), { recursive: true })
  await writeFile(join(dir, 'users.d', 'alice.d', 'files.d', 'old.md.f'), '# kept')
  await writeFile(join(dir, 'users.d', 'alice.d', 'files.d', 'old.md.m'), JSON.stringify({ contentType: 'text/markdown' }))
  await writeFile(join(dir, 'users.d', 'alice.d', 'files.d', 'bare.bin.f'), 'no metadata')
  await mkdir(join(dir, '.tmp'))
  const stale = join(dir, '.tmp', 'left-by-a-crash')
  const fresh = join(dir, '.tmp', 'another-instance-writing')
  await writeFile(stale, 'x')
  await writeFile(fresh, 'x')
  const hourAgo = new Date(Date.now() - 3600_000)
  await utimes(stale, hourAgo, hourAgo)

  const store = createFsStore(dir)
  await store.open!()
  const old = await getBytes(store, 'users/alice/files/old.md')
  t.equal(old?.body.toString(), '# kept')
  t.equal(old?.contentType, 'text/markdown')
  t.equal((await getBytes(store, 'users/alice/files/bare.bin'))?.contentType, 'application/octet-stream')
  t.same((await store.list('users/alice/files/', { limit: 10 })).objects.map((o) => [o.key, o.size]), [
    ['users/alice/files/bare.bin', 11], ['users/alice/files/old.md', 6]
  ])
  t.same((await readdir(join(dir, 'users.d', 'alice.d', 'files.d'))).sort(), ['bare.bin.o', 'old.md.o'], 'no version-1 file is left')
  t.same(await readdir(join(dir, '.tmp')), ['another-instance-writing'], 'only the stale temporary file is swept')
})

t.test('fs driver: an object written before ETags gets one on first need, kept in its header without changing its time', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-etag-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const store = createFsStore(dir)
  await store.open!()
  await mkdir(join(dir, 'users.d', 'alice.d', 'files.d'), { recursive: true })
  // The layout of the previous release: the content type, then spaces to 256 bytes, then the body.
  const file = join(dir, 'users.d', 'alice.d', 'files.d', 'old.md.o')
  await writeFile(file, Buffer.concat([Buffer.from('text/markdown\n'.padEnd(256, ' ')), Buffer.from('hello')]))
  const dayAgo = new Date(Date.now() - 86_400_000)
  await utimes(file, dayAgo, dayAgo)
  const head = await store.head('users/alice/files/old.md')
  t.equal(head?.etag, '"5d41402abc4b2a76b9719d911017c592"', 'the MD5 of the body, as S3 gives')
  t.equal(head?.contentType, 'text/markdown')
  t.equal((await readFile(file)).toString('latin1', 221, 256), '"5d41402abc4b2a76b9719d911017c592"\n', 'kept in the header')
  t.equal((await stat(file)).mtime.getTime(), dayAgo.getTime(), 'last-modified unchanged')
  t.equal((await getBytes(store, 'users/alice/files/old.md'))?.body.toString(), 'hello')
})

t.test('fs driver: objects are 0600 and folders 0700, whatever the umask', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-modes-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const umask = process.umask(0o000)
  t.teardown(() => { process.umask(umask) })
  const driver = createFsStore(dir)
  await driver.open!()
  await putBytes(published(driver), 'users/alice/files/private.md', Buffer.from('secret'), 'text/plain')
  t.equal((await stat(join(dir, 'users.d', 'alice.d', 'files.d', 'private.md.o'))).mode & 0o777, 0o600)
  t.equal((await stat(join(dir, 'users.d', 'alice.d', 'files.d'))).mode & 0o777, 0o700)
  t.equal((await stat(join(dir, '.tmp'))).mode & 0o777, 0o700)
})

t.test('fs driver: two stores on one folder putting, deleting and reading one key never fail', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-race-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const drivers = [createFsStore(dir), createFsStore(dir)]
  await drivers[0].open!()
  const [a, b] = drivers.map((driver) => published(driver))
  const key = 'users/alice/files/shared/deep/note.md'
  const failures: string[] = []
  const running = new Set<Promise<unknown>>()
  for (let i = 0; i < 3000; i++) {
    const store = i % 2 ? a : b
    const op = [() => putBytes(store, key, Buffer.from(`v${i}`), 'text/plain'), () => store.delete(key), () => getBytes(store, key)][i % 3]
    const done: Promise<unknown> = op().catch((error: Error) => { failures.push(error.message) }).finally(() => running.delete(done))
    running.add(done)
    // Deletes empty the folders that puts are creating: the races of mkdir, rename and rmdir.
    if (running.size >= 32) await Promise.race(running)
  }
  await Promise.all(running)
  t.same(failures, [])
})

t.test('key locks: shared holders publish together in one turn; an exclusive holder queued behind a turn waits for it and ends it', async (t) => {
  const db = openDatabase('sqlite::memory:')
  t.teardown(() => db.destroy())
  const locks = createKeyLocks(db)
  const events: string[] = []
  let open!: () => void
  const opened = new Promise<void>((resolve) => { open = resolve })
  const turn = (name: string, opening = async () => {}) => ({
    opening: async () => { events.push(`${name} opening`); await opening() },
    closing: async () => { events.push(`${name} closing`) },
    closed: async () => { events.push(`${name} closed`) }
  })
  let running = 0
  let together = 0
  const publish = (name: string) => async () => {
    together = Math.max(together, ++running)
    await new Promise((resolve) => setImmediate(resolve))
    events.push(name)
    running--
    return name
  }
  // The first turn is held at its opening, so that the others queue while it waits.
  const first = [locks.shared('k', publish('a'), turn('one', () => opened)), locks.shared('k', publish('b'), turn('unused'))]
  const exclusive = locks('k', publish('exclusive'))
  const second = [locks.shared('k', publish('c'), turn('two')), locks.shared('k', publish('d'), turn('unused'))]
  open()
  t.same(await Promise.all([...first, exclusive, ...second]), ['a', 'b', 'exclusive', 'c', 'd'], 'each answers its own publish')
  t.same(events, ['one opening', 'a', 'b', 'one closing', 'one closed', 'exclusive', 'two opening', 'c', 'd', 'two closing', 'two closed'],
    'a turn opens once for its members, which publish together, and closes once the last has published')
  t.equal(together, 2, 'two members published at once')

  const failing = turn('failing', async () => { throw new Error('the store is down') })
  const refused = await Promise.allSettled([1, 2].map(() => locks.shared('k', async () => { events.push('published anyway') }, failing)))
  t.same(refused.map((outcome) => outcome.status === 'rejected' && String(outcome.reason)), ['Error: the store is down', 'Error: the store is down'], 'a failed opening refuses every member')
  t.notOk(events.includes('published anyway'))
  t.equal(await locks('k', async () => 'next'), 'next', 'and the key is free again')
})
