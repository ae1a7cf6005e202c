import t from 'tap'
import { bearer, buildTestApp } from './helpers/app.js'
import { startIdp } from './helpers/idp.js'
import { startS3Server } from './helpers/s3.js'
import { startService } from './helpers/service.js'
import { tusUpload } from './helpers/tus.js'
import { createLocalBell } from '../storage/change-bell.js'
import { DRIVERS } from './helpers/db.js'

const idp = await startIdp()
const s3 = await startS3Server()
t.teardown(async () => { await idp.close(); await s3.close() })

interface Change { op: string, key: string, from?: string, size?: number, etag?: string }
interface Changes { changes: Change[], cursor: string, hasMore: boolean }

for (const driver of DRIVERS) {
  t.test(`${driver}: every route that changes a file journals it before answering; a prefix filters; a cursor goes on`, async (t) => {
    const { app, close } = await buildTestApp({ driver, s3, idp })
    t.teardown(close)
    await app.listen({ port: 0, host: '127.0.0.1' })
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
    const alice = bearer(idp.token({ sub: `journal-${driver}` }))
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const answer = await fetch(`${base}${path}`, {
        method, headers: { ...alice, ...body === undefined ? {} : { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' }, ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
      })
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`)
      return answer
    }
    const changes = async (cursor: string, query: Record<string, string> = {}) =>
      await (await call('GET', `/api/changes?${new URLSearchParams({ cursor, ...query })}`)).json() as Changes
    const { cursor: start } = await (await call('GET', '/api/changes/latest')).json() as { cursor: string }
    t.same(await changes(start), { changes: [], cursor: start, hasMore: false }, 'nothing yet')

    await call('PUT', '/api/raw/a.txt', 'raw')
    await call('PUT', '/api/files/b.txt', { content: Buffer.from('json').toString('base64'), contentType: 'text/plain' })
    await tusUpload(Buffer.from('resumable'), { endpoint: `${base}/api/uploads`, headers: alice, metadata: { path: 'c.txt', contentType: 'text/plain' } })
    const { url: link } = await (await call('POST', '/api/links', { path: 'd.txt', method: 'upload', contentType: 'text/plain' })).json() as { url: string }
    t.equal((await fetch(link, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'linked' })).status, 200)
    await call('POST', '/api/copies', { from: 'a.txt', to: 'docs/a.txt' })
    await call('PUT', '/api/raw/docs/e.txt', 'e')
    await call('POST', '/api/moves', { from: 'docs/', to: 'moved/' })
    const deleted = await call('DELETE', '/api/raw/b.txt')
    await call('POST', `/api/trash/${deleted.headers.get('stowage-trash-id')}/restore`, {})
    await call('PUT', '/api/raw/a.txt', 'raw, again')
    const { versions } = await (await call('GET', '/api/versions?path=a.txt')).json() as { versions: Array<{ id: string }> }
    await call('POST', `/api/versions/${versions[0].id}/restore`, {})
    await call('POST', '/api/folders', { path: 'empty' })
    await call('DELETE', '/api/folders/empty')

    const all = await changes(start)
    const described = all.changes.map(({ op, key, from }) => from ? `${op} ${from} -> ${key}` : `${op} ${key}`)
    // A folder's files are moved a few at a time: in any order.
    t.same([...described.slice(0, 6), ...described.slice(6, 8).sort(), ...described.slice(8)], [
      'put a.txt', 'put b.txt', 'put c.txt', 'put d.txt', 'put docs/a.txt', 'put docs/e.txt',
      'move docs/a.txt -> moved/a.txt', 'move docs/e.txt -> moved/e.txt',
      'delete b.txt', 'put b.txt', 'put a.txt', 'put a.txt', 'folder empty/', 'folder-delete empty/'
    ], 'every route, in order; a folder move one entry per file')
    t.match(all.changes[0], { size: 3, etag: /^"/, contentType: 'text/plain', at: /Z$/ })
    t.equal(all.hasMore, false)

    t.same((await changes(start, { prefix: 'moved/' })).changes.map((change) => change.key).sort(), ['moved/a.txt', 'moved/e.txt'], 'a prefix')
    t.same((await changes(start, { prefix: 'docs/' })).changes.map((change) => change.op), ['put', 'put', 'move', 'move'], 'a move counts for its source too')
    t.same((await changes(all.cursor)).changes, [], 'from the last cursor: nothing new')
    await call('PUT', '/api/raw/later.txt', 'later')
    t.same((await changes(all.cursor)).changes.map((change) => change.key), ['later.txt'], 'then what came after')
    t.equal((await fetch(`${base}/api/changes?${new URLSearchParams({ cursor: start, prefix: '../' })}`, { headers: alice })).status, 400, 'a prefix the file API refuses')

    const bob = bearer(idp.token({ sub: `other-${driver}` }))
    const theirs = await (await fetch(`${base}/api/changes?cursor=${start}`, { headers: bob })).json() as Changes
    t.same(theirs.changes, [], 'another user sees none of them')
  })
}

t.test('a long-poll answers as soon as a change exists, or with nothing when its wait ends; bad and swept cursors are refused', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  const alice = bearer(idp.token({ sub: 'poller' }))
  const { cursor } = (await app.inject({ url: '/api/changes/latest', headers: alice })).json() as { cursor: string }
  const started = Date.now()
  const waiting = app.inject({ url: `/api/changes?cursor=${cursor}&wait=60`, headers: alice })
  // The wait is registered before its first look: the write cannot slip between them.
  await new Promise((resolve) => setTimeout(resolve, 100))
  await app.inject({ method: 'PUT', url: '/api/raw/woken.txt', headers: { ...alice, 'content-type': 'text/plain' }, payload: 'x' })
  const woken = (await waiting).json() as Changes
  t.same(woken.changes.map((change) => change.key), ['woken.txt'])
  t.ok(Date.now() - started < 30_000, 'answered by the change, not by the end of its wait')

  const quiet = await app.inject({ url: `/api/changes?cursor=${woken.cursor}&wait=1`, headers: alice })
  t.same(quiet.json(), { changes: [], cursor: woken.cursor, hasMore: false }, 'nothing within the wait: the same cursor')

  t.equal((await app.inject({ url: '/api/changes?cursor=not-a-cursor', headers: alice })).statusCode, 400)
  t.equal((await app.inject({ url: `/api/changes?cursor=${cursor}&wait=301`, headers: alice })).statusCode, 400)
  t.equal((await app.inject({ url: `/api/changes?cursor=${cursor}` })).statusCode, 401)
  await app.stowageChanges.sweep(-1000)
  const reset = await app.inject({ url: `/api/changes?cursor=${cursor}`, headers: alice })
  t.equal(reset.statusCode, 410, 'a cursor older than the journal keeps')
  t.match(reset.json(), { error: /list your files again/, code: 'reset' })
  const fresh = (await app.inject({ url: '/api/changes/latest', headers: alice })).json() as { cursor: string }
  t.equal((await app.inject({ url: `/api/changes?cursor=${fresh.cursor}`, headers: alice })).statusCode, 200, 'the latest cursor works again')
})

t.test('on PostgreSQL, a change on one instance wakes a long-poll on another within a second', { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL' }, async (t) => {
  const { servers, auth } = await startService(t, { instances: 2 })
  const [one, two] = servers
  let { cursor } = await (await fetch(`${two.url}/api/changes/latest`, { headers: auth })).json() as { cursor: string }
  for (let round = 0; round < 3; round++) {
    const waiting = fetch(`${two.url}/api/changes?cursor=${cursor}&wait=30`, { headers: auth }).then(async (answer) => ({ at: Date.now(), body: await answer.json() as Changes }))
    await new Promise((resolve) => setTimeout(resolve, 200))
    const written = Date.now()
    t.equal((await fetch(`${one.url}/api/raw/round-${round}.txt`, { method: 'PUT', headers: auth, body: 'x' })).status, 200)
    const { at, body } = await waiting
    t.same(body.changes.map((change) => change.key).slice(-1), [`round-${round}.txt`])
    t.ok(at - written < 1000, `woken ${at - written} ms after the write`)
    cursor = body.cursor
  }
})

t.test('a long-poll outlasts HTTP_IDLE_TIMEOUT_MS over a real connection', async (t) => {
  const { app, close } = await buildTestApp({ idp, env: { HTTP_IDLE_TIMEOUT_MS: '1000' } })
  t.teardown(close)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const alice = bearer(idp.token({ sub: 'patient' }))
  const { cursor } = await (await fetch(`${base}/api/changes/latest`, { headers: alice })).json() as { cursor: string }
  const started = Date.now()
  const answer = await fetch(`${base}/api/changes?cursor=${cursor}&wait=3`, { headers: alice })
  t.equal(answer.status, 200)
  t.same(await answer.json(), { changes: [], cursor, hasMore: false })
  t.ok(Date.now() - started >= 2900, `held for its wait (${Date.now() - started} ms), not cut at the idle timeout`)
})

t.test('a cursor says nothing of other users\' changes: bob\'s latest position does not move with alice\'s writes, and a sweep of hers does not reset his', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  const alice = bearer(idp.token({ sub: 'cursor-alice' }))
  const bob = bearer(idp.token({ sub: 'cursor-bob' }))
  const latest = async (headers: Record<string, string>) => ((await app.inject({ url: '/api/changes/latest', headers })).json() as { cursor: string }).cursor
  await app.inject({ method: 'PUT', url: '/api/raw/b.txt', headers: { ...bob, 'content-type': 'text/plain' }, payload: 'b' })
  const before = await latest(bob)
  for (let write = 0; write < 3; write++) await app.inject({ method: 'PUT', url: `/api/raw/a${write}.txt`, headers: { ...alice, 'content-type': 'text/plain' }, payload: 'a' })
  t.equal(await latest(bob), before, 'alice\'s writes do not move bob\'s cursor')
  t.not(await latest(alice), before)
  await app.stowageChanges.sweep(-1000)
  t.equal(await latest(bob), before)
  t.equal((await app.inject({ url: `/api/changes?cursor=${before}`, headers: bob })).statusCode, 200, 'a cursor past all of bob\'s swept entries is not reset')
})

t.test('a wait is woken only by a change that can concern it: its user, under its prefix', async (t) => {
  const bell = createLocalBell()
  const elsewhere = bell.wait('alice', 500, undefined, 'nothing-here/')
  bell.ring('alice', ['photos/a.jpg'])
  bell.ring('bob', ['nothing-here/b.txt'])
  t.equal(await elsewhere, false, 'neither another path of hers nor another user\'s change woke it')
  const under = bell.wait('alice', 30_000, undefined, 'nothing-here/')
  bell.ring('alice', ['photos/a.jpg', 'nothing-here/a.jpg'])
  t.equal(await under, true, 'a move into its prefix wakes it')
  const anywhere = bell.wait('alice', 30_000)
  bell.ring('alice', ['photos/a.jpg'])
  t.equal(await anywhere, true, 'a wait without a prefix is woken by any change of its user')
})
