import t, { type Test } from 'tap'
import { bearer, buildTestApp } from './helpers/app.js'
import { startIdp } from './helpers/idp.js'
import { postgresBinaries, startPostgres, type TestPostgres } from './helpers/postgres.js'
import { captureLogs, timed, waitFor } from './helpers/wait.js'

// Each test owns a cluster it can break; the rest of the suite never sees it.
const skip = postgresBinaries() ? false : 'no PostgreSQL server binaries on this machine'

async function appOn (t: Test, postgres: TestPostgres) {
  const logs = captureLogs()
  const { app, close } = await buildTestApp({
    env: { DATABASE_URL: postgres.url, DATABASE_CONNECT_TIMEOUT_MS: '1000', DATABASE_QUERY_TIMEOUT_MS: '1000', HEALTH_TIMEOUT_MS: '1000', LOG_LEVEL: 'warn' },
    logStream: logs.stream
  })
  t.teardown(close)
  const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
  const whoAmI = () => app.inject({ url: '/api/auth/credentials', headers: bearer(key) })
  return { app, logs, whoAmI }
}

t.test('a terminated backend is logged and replaced; the process lives on', { skip }, async (t) => {
  const postgres = await startPostgres()
  t.teardown(() => postgres.close())
  const { logs, whoAmI } = await appOn(t, postgres)
  await Promise.all([whoAmI(), whoAmI(), whoAmI()])
  const ended = await postgres.terminateBackends()
  t.ok(ended > 1, 'the pool had connections to end, beside the change journal\'s LISTEN')
  await logs.waitForMessage('the change journal\'s LISTEN connection failed; listening again', 1)
  // Each idle connection of the pool says so; one that a sweep or the webhook queue held at that
  // moment fails its query instead (a busy machine made CI see one fewer line than backends ended).
  await logs.waitForMessage('an idle database connection failed; the pool will open a new one', 1)
  t.ok(logs.count('an idle database connection failed; the pool will open a new one') <= ended - 1, 'one line per idle connection at most')
  // A request that takes an idle connection whose end has not reached this process yet is 503 (the
  // database went away under it); once the ends have arrived, requests get new connections.
  await waitFor(async () => (await whoAmI()).statusCode === 200, { what: 'a request answered on a new connection' })
  t.equal((await whoAmI()).statusCode, 200, 'and the next one too')
})

t.test('a stopped cluster is 503 with Retry-After at once; after a restart requests succeed', { skip }, async (t) => {
  const postgres = await startPostgres()
  t.teardown(() => postgres.close())
  const { app, whoAmI } = await appOn(t, postgres)
  t.equal((await whoAmI()).statusCode, 200)
  postgres.stop()
  const { result: down, ms } = await timed(whoAmI)
  t.equal(down.statusCode, 503)
  t.equal(down.headers['retry-after'], '5')
  t.same(down.json(), { error: 'the database is unavailable, try again shortly' })
  t.ok(ms < 10_000, `answered in ${Math.round(ms)} ms`)
  const health = await app.inject({ url: '/health' })
  t.equal(health.statusCode, 503)
  t.equal(health.json().checks.database, 'failing')
  postgres.start()
  await waitFor(async () => (await whoAmI()).statusCode === 200, { what: 'a request to succeed after the restart' })
  t.equal((await app.inject({ url: '/health' })).statusCode, 200)
})

t.test('a paused server (SIGSTOP) is 503 within the query deadline, then recovers on SIGCONT', { skip }, async (t) => {
  const postgres = await startPostgres()
  t.teardown(() => postgres.close())
  const { app, whoAmI } = await appOn(t, postgres)
  t.equal((await whoAmI()).statusCode, 200, 'a pooled connection is open before the pause')
  postgres.pause()
  const [{ result: pooled, ms }, { result: fresh }] = await Promise.all([timed(whoAmI), timed(whoAmI)])
  t.equal(pooled.statusCode, 503, 'on the pooled connection')
  t.equal(fresh.statusCode, 503, 'on a new connection')
  t.ok(ms < 15_000, `answered in ${Math.round(ms)} ms, not after the pause`)
  const { result: health, ms: healthMs } = await timed(() => app.inject({ url: '/health' }))
  t.equal(health.statusCode, 503)
  t.ok(healthMs < 10_000, `/health answered in ${Math.round(healthMs)} ms`)
  postgres.resume()
  await waitFor(async () => (await whoAmI()).statusCode === 200, { what: 'a request to succeed after SIGCONT' })
})

t.test('a resumable upload while the cluster is stopped is 503 with Retry-After, not 500', { skip }, async (t) => {
  const postgres = await startPostgres()
  const idp = await startIdp()
  t.teardown(async () => { await postgres.close(); await idp.close() })
  const { app, close } = await buildTestApp({
    idp, env: { DATABASE_URL: postgres.url, DATABASE_CONNECT_TIMEOUT_MS: '1000', DATABASE_QUERY_TIMEOUT_MS: '1000' }
  })
  t.teardown(close)
  // A JWT needs no database, so the request reaches the upload's own database work.
  const headers = { ...bearer(idp.token({ sub: 'alice' })), 'tus-resumable': '1.0.0', 'upload-length': '5', 'upload-metadata': `path ${Buffer.from('a.txt').toString('base64')}` }
  const create = () => app.inject({ method: 'POST', url: '/api/uploads', headers })
  t.equal((await create()).statusCode, 201)
  postgres.stop()
  const res = await create()
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '5')
  t.same(JSON.parse(res.payload), { error: 'the database is unavailable, try again shortly' })
  postgres.start()
  await waitFor(async () => (await create()).statusCode === 201, { what: 'an upload to be created after the restart' })
})

t.test('SQLite closed under a request (a shutdown in progress): the key lookup is 503, not 500', async (t) => {
  const { app, close } = await buildTestApp({ env: { DATABASE_URL: 'sqlite::memory:' } })
  t.teardown(close)
  const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
  const whoAmI = () => app.inject({ url: '/api/auth/credentials', headers: bearer(key) })
  t.equal((await whoAmI()).statusCode, 200)
  await app.stowageDb.destroy()
  const res = await whoAmI()
  t.equal(res.statusCode, 503)
  t.same(res.json(), { error: 'the database is unavailable, try again shortly' })
})

t.test('a database stopped between the store\'s write and the journal\'s: the change is not answered as done, and once it is back the next one is journaled', { skip }, async (t) => {
  const postgres = await startPostgres()
  t.teardown(() => postgres.close())
  const { app } = await appOn(t, postgres)
  const { key } = await app.stowageKeys.create({ userId: 'writer', orgId: null })
  const put = (path: string) => app.inject({ method: 'PUT', url: `/api/raw/${path}`, headers: { ...bearer(key), 'content-type': 'text/plain' }, payload: 'x' })
  const { cursor } = (await app.inject({ url: '/api/changes/latest', headers: bearer(key) })).json() as { cursor: string }
  const journal = app.stowageChanges
  const record = journal.record
  // The store has published the file when the journal is written: the database stops just then.
  journal.record = async (...args) => {
    postgres.stop()
    return record(...args)
  }
  const cut = await put('unjournaled.txt')
  t.equal(cut.statusCode, 503, 'not 200: an answered change is never missing from the journal')
  journal.record = record
  postgres.start()
  await waitFor(async () => (await put('journaled.txt')).statusCode === 200)
  const changes = (await app.inject({ url: `/api/changes?cursor=${cursor}`, headers: bearer(key) })).json() as { changes: Array<{ key: string }> }
  t.ok(changes.changes.some((change) => change.key === 'journaled.txt'), 'a change answered 200 is in the journal')
})
