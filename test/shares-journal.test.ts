import t, { type Test } from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bearer, buildTestApp } from './helpers/app.js'
import { createTestDatabase } from './helpers/db.js'
import { startIdp } from './helpers/idp.js'
import { startS3Server } from './helpers/s3.js'
import { startReceiver } from './helpers/webhook-receiver.js'
import { waitFor } from './helpers/wait.js'
import { stowageOf } from '../http/decorators.js'

// Changes reach grantees (DESIGN §13): the owner's changes under what is shared are in the
// grantee's journal at the mount's paths, wake their long-polls (on every instance, on
// PostgreSQL) and reach their webhooks; mounts coming and going are `share` and `unshare` entries.
// Ending is immediate on every instance.
const idp = await startIdp()
const s3 = await startS3Server()
const receiver = await startReceiver()
t.teardown(async () => { await idp.close(); await s3.close(); await receiver.close() })

type Headers = Record<string, string>
interface Change { op: string, key: string, from?: string, size?: number }

async function instance (t: Test, driver: 'fs' | 's3', env: Record<string, string> = {}) {
  const { app, close } = await buildTestApp({ idp, driver, s3, env: { WEBHOOK_ALLOW_PRIVATE: 'true', ...env } })
  t.teardown(close)
  const as = (sub: string) => bearer(idp.token({ sub, org_id: 'acme', email: `${sub}@acme.example`, name: sub }))
  const call = async (headers: Headers, method: string, url: string, payload?: object | string) => {
    const answer = await app.inject({ method: method as 'GET', url, headers: typeof payload === 'string' ? { ...headers, 'content-type': 'application/octet-stream' } : headers, payload })
    return { status: answer.statusCode, body: String(answer.headers['content-type']).startsWith('application/json') ? answer.json() : answer.payload }
  }
  const latest = async (headers: Headers) => (await call(headers, 'GET', '/api/changes/latest')).body.cursor as string
  const changes = async (headers: Headers, cursor: string, query = '') => {
    const { status, body } = await call(headers, 'GET', `/api/changes?cursor=${cursor}${query}`)
    t.equal(status, 200)
    return { changes: (body.changes as Array<Change & { at: string }>).map(({ at: _, etag: _etag, contentType: _type, ...rest }: Change & { at: string, etag?: string, contentType?: string }) => rest), cursor: body.cursor as string }
  }
  return { app, as, call, latest, changes }
}

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: the owner's changes under a share are in the grantee's journal at the mount's paths; share and unshare entries; nobody else sees them`, async (t) => {
    const { as, call, latest, changes } = await instance(t, driver)
    const [ada, bea, cai] = [as(`ada-${driver}`), as(`bea-${driver}`), as(`cai-${driver}`)]
    for (const who of [ada, bea, cai]) t.equal((await call(who, 'GET', '/api/me')).status, 200)
    await call(ada, 'PUT', '/api/raw/docs/early.txt', 'before the share')
    const [adaFrom, beaFrom, caiFrom] = [await latest(ada), await latest(bea), await latest(cai)]

    const { body: { id } } = await call(ada, 'POST', '/api/shares', { path: 'docs', with: { userId: `bea-${driver}` }, role: 'editor' })
    await call(ada, 'PUT', '/api/raw/docs/a.txt', 'alpha')
    await call(ada, 'PUT', '/api/raw/other/x.txt', 'not shared')
    await call(ada, 'POST', '/api/moves', { from: 'docs/a.txt', to: 'docs/b.txt' })
    await call(ada, 'POST', '/api/moves', { from: 'docs/b.txt', to: 'out.txt' })
    await call(ada, 'POST', '/api/moves', { from: 'other/x.txt', to: 'docs/x.txt' })
    t.equal((await call(bea, 'PUT', '/api/raw/docs/by-bea.txt', 'beta')).status, 200, 'the editor writes through her mount')
    await call(ada, 'DELETE', '/api/raw/docs/x.txt')

    const seen = await changes(bea, beaFrom)
    t.same(seen.changes, [
      { op: 'share', key: 'docs' },
      { op: 'put', key: 'docs/a.txt', size: 5 },
      { op: 'move', key: 'docs/b.txt', from: 'docs/a.txt', size: 5 },
      { op: 'delete', key: 'docs/b.txt' },
      { op: 'put', key: 'docs/x.txt', size: 10 },
      { op: 'put', key: 'docs/by-bea.txt', size: 4 },
      { op: 'delete', key: 'docs/x.txt' }
    ], 'in order, at the mount\'s paths: a move out is a delete, one in a put; nothing from before the share, nothing outside it')
    const own = await changes(ada, adaFrom)
    t.same(own.changes.map(({ op, key }) => `${op} ${key}`), ['folder docs/', 'put docs/a.txt', 'put other/x.txt', 'move docs/b.txt', 'move out.txt', 'move docs/x.txt', 'put docs/by-bea.txt', 'delete docs/x.txt'],
      'the owner reads each once, at her paths (sharing made docs/ a folder of its own), the editor\'s write among them, and no share entry')
    t.same((await changes(cai, caiFrom)).changes, [], 'a stranger reads nothing of it')
    t.same((await changes(bea, beaFrom, '&prefix=docs/b.')).changes, [{ op: 'share', key: 'docs' }, { op: 'move', key: 'docs/b.txt', from: 'docs/a.txt', size: 5 }, { op: 'delete', key: 'docs/b.txt' }], 'a prefix inside the mount: the mount\'s coming, and what is under the prefix')
    t.same((await changes(bea, beaFrom, '&prefix=elsewhere/')).changes, [], 'a prefix beside it')
    t.equal((await changes(bea, seen.cursor)).changes.length, 0, 'the cursor is past them')
    t.equal(await latest(bea), seen.cursor, 'latest is where the grantee\'s list ended: it moves with what she sees')

    t.equal((await call(bea, 'PATCH', `/api/shared/${id}`, { name: 'Ada docs' })).status, 200)
    t.equal((await call(ada, 'PATCH', `/api/shares/${id}`, { role: 'viewer' })).status, 200)
    await call(ada, 'PUT', '/api/raw/docs/c.txt', 'gamma')
    const mid = await changes(bea, seen.cursor)
    t.same(mid.changes, [
      { op: 'unshare', key: 'docs' }, { op: 'share', key: 'Ada docs' },
      { op: 'share', key: 'Ada docs' },
      { op: 'put', key: 'Ada docs/c.txt', size: 5 }
    ], 'renamed: gone at the old name, there at the new; a role changed is a share again')
    t.equal((await call(ada, 'DELETE', `/api/shares/${id}`)).status, 204)
    await call(ada, 'PUT', '/api/raw/docs/after.txt', 'after the end')
    t.same((await changes(bea, mid.cursor)).changes, [{ op: 'unshare', key: 'Ada docs' }], 'ended: unshare, and nothing after')
    t.same((await changes(ada, own.cursor)).changes.map(({ op, key }) => `${op} ${key}`), ['put docs/c.txt', 'put docs/after.txt'], 'the owner\'s journal has none of the grantee\'s mount entries')
  })
}

t.test('leaving, the owner deleting the shared folder and expiry are unshare entries; a long-poll of the grantee wakes on the owner\'s change; her webhook hears it at the mount\'s path', async (t) => {
  const { app, as, call, latest, changes } = await instance(t, 'fs')
  const [ada, bea, cai] = [as('ada'), as('bea'), as('cai')]
  for (const who of [ada, bea, cai]) t.equal((await call(who, 'GET', '/api/me')).status, 200)
  await call(ada, 'PUT', '/api/raw/team/plan.md', 'plan')
  await call(ada, 'PUT', '/api/raw/gone/a.txt', 'a')
  await call(ada, 'PUT', '/api/raw/brief/b.txt', 'b')
  const hook = await call(bea, 'POST', '/api/webhooks', { url: `${receiver.url}/bea`, prefix: 'team/' })
  t.equal(hook.status, 201)
  const [beaFrom, caiFrom] = [await latest(bea), await latest(cai)]
  const team = (await call(ada, 'POST', '/api/shares', { path: 'team', with: { userId: 'bea' }, role: 'viewer' })).body.id as string
  await call(ada, 'POST', '/api/shares', { path: 'gone', with: { userId: 'bea' }, role: 'viewer' })
  const brief = (await call(ada, 'POST', '/api/shares', { path: 'brief', with: { org: true }, role: 'viewer' })).body.id as string

  const shared = await changes(bea, beaFrom)
  t.same(shared.changes, [{ op: 'share', key: 'team' }, { op: 'share', key: 'gone' }, { op: 'share', key: 'brief' }])
  const waiting = call(bea, 'GET', `/api/changes?cursor=${shared.cursor}&prefix=team/&wait=30`)
  // The wait is listening once the grantee's journal has been looked at: a change after that wakes it.
  await new Promise((resolve) => setImmediate(resolve))
  await call(ada, 'PUT', '/api/raw/team/notes.md', 'notes')
  const woken = await waiting
  t.equal(woken.status, 200)
  t.match(woken.body.changes, [{ op: 'put', key: 'team/notes.md', size: 5 }], 'the owner\'s write woke the grantee\'s wait, at her path')

  await receiver.waitFor(1, '/bea')
  t.match(receiver.verified('/bea', hook.body.secret), [{ type: 'file.put', data: { key: 'team/notes.md', size: 5 } }], 'signed for her webhook, at her path (Standard Webhooks\' verifier)')

  t.equal((await call(ada, 'DELETE', '/api/raw/gone/a.txt')).status, 204)
  t.equal((await call(ada, 'DELETE', '/api/folders/gone')).status, 204, 'the owner deletes a shared folder')
  t.equal((await call(bea, 'DELETE', `/api/shared/${team}`)).status, 204, 'the grantee leaves another')
  t.equal((await call(cai, 'DELETE', '/api/folders/brief')).status, 204, 'one of the organization hides the organization\'s share by deleting its mount')
  const ended = await changes(bea, woken.body.cursor)
  t.same(ended.changes, [{ op: 'unshare', key: 'gone' }, { op: 'unshare', key: 'team' }], 'the mount deleted with its folder, the one she left: a share ended takes its unread entries with it')

  // Expired: out of reach at once, and the sweep journals it for those who still had it mounted.
  t.equal((await call(ada, 'PATCH', `/api/shares/${brief}`, { expiresAt: new Date(Date.now() + 1500).toISOString() })).status, 200)
  await waitFor(async () => (await call(bea, 'GET', '/api/raw/brief/b.txt')).status === 404, { what: 'the share to expire' })
  t.equal(await stowageOf(app).stowageShares.sweepExpired(), 1, 'the sweep ends its one shown mount (cai had hidden hers)')
  t.same((await changes(bea, ended.cursor)).changes, [{ op: 'share', key: 'brief' }, { op: 'unshare', key: 'brief' }], 'its expiry set (a change: share again), then its end')
  t.notOk((await call(ada, 'GET', '/api/shares')).body.shares.some(({ id }: { id: string }) => id === brief), 'an expired share has ended for its owner too')
  t.same((await changes(cai, caiFrom)).changes, [{ op: 'share', key: 'brief' }, { op: 'unshare', key: 'brief' }], 'cai: the organization\'s share came, and went when she hid it')
})

t.test('on PostgreSQL, across two instances: the owner\'s change wakes the grantee\'s long-poll on the other; a revoke is immediate on both', { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL' }, async (t) => {
  const database = await createTestDatabase()
  const storageDir = await mkdtemp(join(tmpdir(), 'stowage-shares-'))
  t.teardown(async () => { await database.drop(); await rm(storageDir, { recursive: true, force: true }) })
  const env = { DATABASE_URL: database.url, STORAGE_DIR: storageDir }
  const one = await instance(t, 'fs', env)
  const two = await instance(t, 'fs', env)
  const [ada, bea] = [one.as('ada'), one.as('bea')]
  for (const who of [ada, bea]) t.equal((await one.call(who, 'GET', '/api/me')).status, 200)
  await one.call(ada, 'PUT', '/api/raw/work/a.txt', 'a')
  const { body: { id } } = await one.call(ada, 'POST', '/api/shares', { path: 'work', with: { userId: 'bea' }, role: 'editor' })
  let cursor = await two.latest(bea)
  for (let round = 0; round < 3; round++) {
    const waiting = two.call(bea, 'GET', `/api/changes?cursor=${cursor}&wait=30`)
    // (Written before the wait listens, it is found at once: the answer is the same either way.)
    await new Promise((resolve) => setTimeout(resolve, 200))
    await one.call(ada, 'PUT', `/api/raw/work/round-${round}.txt`, 'r')
    const { body } = await waiting
    t.same(body.changes.map(({ op, key }: { op: string, key: string }) => `${op} ${key}`), [`put work/round-${round}.txt`], 'woken on the other instance, at her path')
    cursor = body.cursor
  }

  // The grantee writes on both instances while the owner revokes on one: once the revoke is
  // answered, no write of hers that starts after reaches the owner's files, on either.
  let writing = true
  const writes: Array<{ name: string, started: number }> = []
  const writer = async (on: typeof one, side: string) => {
    for (let n = 0; writing; n++) {
      const write = { name: `work/${side}-${n}.txt`, started: Date.now() }
      writes.push(write)
      await on.call(bea, 'PUT', `/api/raw/${write.name}`, 'w')
    }
  }
  const writers = [writer(one, 'one'), writer(two, 'two')]
  await waitFor(() => writes.length >= 6, { what: 'her writes through the share' })
  t.equal((await one.call(ada, 'DELETE', `/api/shares/${id}`)).status, 204)
  const revoked = Date.now()
  for (const on of [one, two]) t.equal((await on.call(bea, 'GET', '/api/raw/work/a.txt')).status, 404, 'the owner\'s file is out of her reach at once, on both instances')
  await waitFor(() => writes.filter(({ started }) => started > revoked).length >= 6, { what: 'her writes after the revoke' })
  writing = false
  await Promise.all(writers)
  const owners = new Set((await one.call(ada, 'GET', '/api/files?prefix=work/')).body.files.map(({ key }: { key: string }) => key) as string[])
  t.ok(writes.some(({ name, started }) => started < revoked && owners.has(name)), 'she was writing the owner\'s files before')
  t.same(writes.filter(({ name, started }) => started > revoked && owners.has(name)), [], 'no write that began after the revoke was answered reached them')
  const hers = new Set((await two.call(bea, 'GET', '/api/files?prefix=work/')).body.files.map(({ key }: { key: string }) => key) as string[])
  t.ok(writes.filter(({ started }) => started > revoked).every(({ name }) => hers.has(name)), 'they are files of her own: work/ is her own name again')
})
