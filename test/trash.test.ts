import { HeadObjectCommand } from '@aws-sdk/client-s3'
import { randomBytes, randomUUID } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { bearer, buildTestApp } from './helpers/app.js'
import { startS3Server } from './helpers/s3.js'
import { waitFor } from './helpers/wait.js'
import { createS3Client } from '../storage/s3-store.js'
import { DRIVERS } from './helpers/db.js'

const s3 = await startS3Server()
t.teardown(() => s3.close())
const s3Client = createS3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } })
t.teardown(() => s3Client.destroy())

interface TrashItem { id: string, key: string, size: number, etag: string, deletedAt: string, expiresAt: string }

async function userOf (t: Test, driver: 'fs' | 's3', env: Record<string, string> = {}) {
  const built = await buildTestApp({ driver, s3, env })
  t.teardown(built.close)
  const { app, config } = built
  const userId = `user-${randomUUID()}`
  const { key } = await app.stowageKeys.create({ userId, orgId: null })
  const headers = bearer(key)
  return {
    app,
    headers,
    /** Whether the store still holds a trash item's object (outside the user's prefix). */
    async stored (id: string) {
      const objectKey = `stowage-trash/${userId}/${id}`
      if (driver === 'fs') return (await stat(join(config.STORAGE_DIR, 'stowage-trash.d', `${userId}.d`, `${id}.o`)).catch(() => undefined)) !== undefined
      return s3Client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: objectKey })).then(() => true, () => false)
    },
    put: async (path: string, body: Buffer | string) => {
      const res = await app.inject({ method: 'PUT', url: `/api/raw/${path}`, headers: { ...headers, 'content-type': 'application/octet-stream' }, payload: body })
      if (res.statusCode !== 200) throw new Error(`PUT ${path}: ${res.statusCode} ${res.payload}`)
      return res.json().etag as string
    },
    read: (path: string) => app.inject({ url: `/api/raw/${path}`, headers }),
    trash: async () => {
      const res = await app.inject({ url: '/api/trash', headers })
      if (res.statusCode !== 200) throw new Error(`GET /api/trash: ${res.statusCode} ${res.payload}`)
      return res.json() as { items: TrashItem[], isTruncated: boolean }
    },
    restore: (id: string, body?: object) => app.inject({ method: 'POST', url: `/api/trash/${id}/restore`, headers, ...body ? { payload: body } : {} }),
    purge: (id: string) => app.inject({ method: 'DELETE', url: `/api/trash/${id}`, headers })
  }
}

const DAY_MS = 86_400_000

for (const driver of DRIVERS) {
  t.test(`${driver}: delete → trash → restore byte-identical → delete again → purge → gone from the store`, async (t) => {
    const user = await userOf(t, driver)
    const content = randomBytes(100_000)
    const etag = await user.put('photos/cat.jpg', content)

    const deleted = await user.app.inject({ method: 'DELETE', url: '/api/files/photos/cat.jpg', headers: user.headers })
    t.equal(deleted.statusCode, 204)
    t.equal((await user.read('photos/cat.jpg')).statusCode, 404, 'gone from its place')
    const listing = await user.app.inject({ url: '/api/files', headers: user.headers })
    t.same(listing.json().files, [], 'and from the listing')
    const [item] = (await user.trash()).items
    t.match(item, { key: 'photos/cat.jpg', size: content.length, etag })
    t.match(item.id, /^[0-9a-f]{32}$/)
    t.equal(deleted.headers['stowage-trash-id'], item.id, 'the delete names its trash item, for an Undo')
    const kept = Date.parse(item.expiresAt) - Date.parse(item.deletedAt)
    t.equal(kept, 30 * DAY_MS, 'kept 30 days by default')
    t.ok(await user.stored(item.id), 'the store holds it outside the user\'s prefix')

    const restored = await user.restore(item.id)
    t.equal(restored.statusCode, 200, restored.payload)
    t.match(restored.json(), { key: 'photos/cat.jpg', size: content.length, etag })
    const back = await user.read('photos/cat.jpg')
    t.ok(back.rawPayload.equals(content), 'byte-identical')
    t.equal(back.headers.etag, etag, 'with the same ETag')
    t.same((await user.trash()).items, [])
    t.equal((await user.restore(item.id)).statusCode, 404, 'restored once')

    t.equal((await user.app.inject({ method: 'DELETE', url: '/api/raw/photos/cat.jpg', headers: user.headers })).statusCode, 204, 'the raw route deletes to the trash too')
    const [again] = (await user.trash()).items
    t.equal(again.key, 'photos/cat.jpg')
    t.equal((await user.purge(again.id)).statusCode, 204)
    t.same((await user.trash()).items, [])
    t.notOk(await user.stored(again.id), 'purged from the store')
    t.equal((await user.purge(again.id)).statusCode, 404)
  })

  t.test(`${driver}: a restore onto a taken path is 412; to another path it is 200; refusals`, async (t) => {
    const user = await userOf(t, driver)
    await user.put('a.txt', 'first')
    await user.app.inject({ method: 'DELETE', url: '/api/files/a.txt', headers: user.headers })
    await user.put('a.txt', 'second')
    const [item] = (await user.trash()).items
    const taken = await user.restore(item.id)
    t.equal(taken.statusCode, 412)
    t.match(taken.json().error, /a file now stands at a\.txt/)
    t.equal((await user.read('a.txt')).payload, 'second', 'the file standing there is left as it is')
    t.equal((await user.trash()).items.length, 1, 'and the item stays in the trash')
    t.equal((await user.restore(item.id, { to: '../x' })).statusCode, 400)
    const elsewhere = await user.restore(item.id, { to: 'a (restored).txt' })
    t.equal(elsewhere.statusCode, 200, elsewhere.payload)
    t.equal((await user.read('a%20(restored).txt')).payload, 'first')

    t.equal((await user.restore('0'.repeat(32))).statusCode, 404, 'no such item')
    t.equal((await user.restore('not-an-id')).statusCode, 400)
    t.equal((await user.app.inject({ url: '/api/trash?continuationToken=bad', headers: user.headers })).statusCode, 400)
    t.equal((await user.app.inject({ url: '/api/trash' })).statusCode, 401)
  })

  t.test(`${driver}: another user's trash is 404; emptying purges only one's own`, async (t) => {
    const alice = await userOf(t, driver)
    await alice.put('secret.txt', 'alice')
    await alice.app.inject({ method: 'DELETE', url: '/api/files/secret.txt', headers: alice.headers })
    const [item] = (await alice.trash()).items
    const { key } = await alice.app.stowageKeys.create({ userId: `bob-${randomUUID()}`, orgId: null })
    const bob = bearer(key)
    t.same((await alice.app.inject({ url: '/api/trash', headers: bob })).json().items, [])
    t.equal((await alice.app.inject({ method: 'POST', url: `/api/trash/${item.id}/restore`, headers: bob })).statusCode, 404)
    t.equal((await alice.app.inject({ method: 'DELETE', url: `/api/trash/${item.id}`, headers: bob })).statusCode, 404)
    t.equal((await alice.app.inject({ method: 'DELETE', url: '/api/trash', headers: bob })).statusCode, 204)
    t.equal((await alice.trash()).items.length, 1, 'bob emptied his own')
    t.equal((await alice.app.inject({ method: 'DELETE', url: '/api/trash', headers: alice.headers })).statusCode, 204)
    t.same((await alice.trash()).items, [])
    t.notOk(await alice.stored(item.id))
  })

  t.test(`${driver}: pages of 100, newest first`, async (t) => {
    const user = await userOf(t, driver)
    const paths = Array.from({ length: 130 }, (_, i) => `f${String(i).padStart(3, '0')}`)
    for (let i = 0; i < paths.length; i += 8) await Promise.all(paths.slice(i, i + 8).map((path) => user.put(path, path)))
    for (const path of paths) await user.app.inject({ method: 'DELETE', url: `/api/files/${path}`, headers: user.headers })
    const first = await user.trash() as { items: TrashItem[], isTruncated: boolean, continuationToken: string }
    t.equal(first.items.length, 100)
    t.ok(first.isTruncated)
    const second = (await user.app.inject({ url: `/api/trash?continuationToken=${first.continuationToken}`, headers: user.headers })).json()
    t.equal(second.items.length, 30)
    t.equal(second.isTruncated, false)
    const all: TrashItem[] = [...first.items, ...second.items]
    t.same(new Set(all.map((item) => item.key)), new Set(paths), 'each once')
    t.ok(all.every((item, i) => i === 0 || item.deletedAt <= all[i - 1].deletedAt), 'the newest first')
    t.ok(all[0].deletedAt > all.at(-1)!.deletedAt)
  })

  t.test(`${driver}: expired items are swept; a retention of 0 deletes at once`, async (t) => {
    // About 0.9 s: the sweep runs every second.
    const user = await userOf(t, driver, { TRASH_RETENTION_DAYS: '0.00001' })
    await user.put('old.txt', 'old')
    await user.app.inject({ method: 'DELETE', url: '/api/files/old.txt', headers: user.headers })
    const [item] = (await user.trash()).items
    t.ok(item)
    await waitFor(async () => (await user.trash()).items.length === 0, { what: 'the expired item to be swept' })
    t.notOk(await user.stored(item.id), 'its object purged')

    const atOnce = await userOf(t, driver, { TRASH_RETENTION_DAYS: '0' })
    await atOnce.put('gone.txt', 'gone')
    const gone = await atOnce.app.inject({ method: 'DELETE', url: '/api/files/gone.txt', headers: atOnce.headers })
    t.equal(gone.statusCode, 204)
    t.notOk(gone.headers['stowage-trash-id'])
    t.same((await atOnce.trash()).items, [])
    t.equal((await atOnce.restore('0'.repeat(32))).statusCode, 404)
    t.equal((await atOnce.app.inject({ method: 'DELETE', url: '/api/files/gone.txt', headers: atOnce.headers })).statusCode, 404)
  })
}
