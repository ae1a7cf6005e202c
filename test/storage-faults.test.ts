import t, { type Test } from 'tap'
import { bearer, buildTestApp } from './helpers/app.js'
import { startS3Server, type S3Server } from './helpers/s3.js'
import { timed, waitFor } from './helpers/wait.js'

const b64 = (text: string) => Buffer.from(text).toString('base64')

// Each test owns an s3rver it can break.
async function appOn (t: Test, s3: S3Server) {
  const { app, close } = await buildTestApp({
    driver: 's3',
    s3,
    env: { S3_CONNECT_TIMEOUT_MS: '500', S3_TIMEOUT_MS: '2000', HEALTH_TIMEOUT_MS: '1000' }
  })
  t.teardown(close)
  const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
  const headers = bearer(key)
  const readNote = () => app.inject({ url: '/api/files/note.md', headers })
  const writeNote = (text: string) => app.inject({ method: 'PUT', url: '/api/files/note.md', headers, payload: { content: b64(text) } })
  // S3_TIMEOUT_MS is short here, and a busy machine can make a healthy s3rver miss it once.
  await waitFor(async () => (await writeNote('before')).statusCode === 200, { what: 'the first write' })
  return { app, headers, readNote, writeNote }
}

t.test('a paused store (SIGSTOP) is 503 within S3_TIMEOUT_MS; routes that need no store keep working; SIGCONT recovers', async (t) => {
  const s3 = await startS3Server()
  t.teardown(() => s3.close())
  const { app, headers, readNote, writeNote } = await appOn(t, s3)
  s3.pause()
  const [{ result: read, ms }, { result: written }] = await Promise.all([timed(readNote), timed(() => writeNote('during'))])
  t.equal(read.statusCode, 503)
  t.equal(read.headers['retry-after'], '5')
  t.same(read.json(), { error: 'the file store is unavailable, try again shortly' })
  t.equal(written.statusCode, 503)
  t.ok(ms < 15_000, `answered in ${Math.round(ms)} ms, not after the pause`)
  const { result: health, ms: healthMs } = await timed(() => app.inject({ url: '/health' }))
  t.equal(health.statusCode, 503)
  t.same(health.json().checks, { database: 'ok', storage: 'failing' })
  t.ok(healthMs < 10_000, `/health answered in ${Math.round(healthMs)} ms`)
  t.equal((await app.inject({ url: '/health?probe=live' })).statusCode, 200, 'the liveness probe does not fail')
  t.equal((await app.inject({ url: '/api/keys', headers })).statusCode, 200, 'keys need no store')
  t.equal((await app.inject({ url: '/api/auth/credentials', headers })).statusCode, 200)
  s3.resume()
  await waitFor(async () => (await readNote()).statusCode === 200, { what: 'a read to succeed after SIGCONT' })
  await waitFor(async () => (await writeNote('after')).statusCode === 200, { what: 'a write to succeed after SIGCONT' })
  await waitFor(async () => (await app.inject({ url: '/health' })).statusCode === 200, { what: '/health to be ready again' })
})

t.test('a killed store is 503 at once; once it is restarted, requests succeed', async (t) => {
  const s3 = await startS3Server()
  t.teardown(() => s3.close())
  const { app, headers, readNote, writeNote } = await appOn(t, s3)
  await s3.kill()
  const { result: read, ms } = await timed(readNote)
  t.equal(read.statusCode, 503)
  t.equal(read.headers['retry-after'], '5')
  t.ok(ms < 15_000, `answered in ${Math.round(ms)} ms`)
  t.equal((await writeNote('while down')).statusCode, 503)
  const listed = await app.inject({ url: '/api/files?prefix=', headers })
  t.equal(listed.statusCode, 200, 'a listing is answered from the index of names, in the database')
  t.same(listed.json().files.map((file: { key: string }) => file.key), ['note.md'])
  for (const [method, url] of [['DELETE', '/api/files/note.md'], ['DELETE', '/api/raw/note.md'], ['PUT', '/api/raw/note.md']] as const) {
    const res = await app.inject({ method, url, headers: method === 'PUT' ? { ...headers, 'content-type': 'text/plain' } : headers, payload: method === 'PUT' ? 'while down' : undefined })
    t.equal(res.statusCode, 503, `${method} ${url}`)
    t.equal(res.headers['retry-after'], '5', `${method} ${url}: Retry-After`)
  }
  await s3.restart()
  await waitFor(async () => (await readNote()).statusCode === 200, { what: 'a read to succeed after the restart' })
  t.equal(Buffer.from((await readNote()).json().content, 'base64').toString(), 'before', 'nothing written while down')
})
