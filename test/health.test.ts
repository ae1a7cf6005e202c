import t from 'tap'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buildTestApp } from './helpers/app.js'

t.test('GET /health is 200 without authentication', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  const res = await app.inject({ url: '/health' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'ok', checks: { database: 'ok', storage: 'ok' } })
})

t.test('GET /health is 503 naming the failing check when the database does not answer', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  await app.stowageDb.destroy()
  const res = await app.inject({ url: '/health' })
  t.equal(res.statusCode, 503)
  t.same(res.json(), { status: 'unavailable', error: 'the database is not answering', checks: { database: 'failing', storage: 'ok' } })
})

t.test('unknown routes are 404 with an error body', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  const res = await app.inject({ url: '/nothing/here' })
  t.equal(res.statusCode, 404)
  t.type(res.json().error, 'string')
})

t.test('GET /health?probe=live checks only the process: 200 while the database is down', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  await app.stowageDb.destroy()
  const res = await app.inject({ url: '/health?probe=live' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'ok', checks: {} })
  t.equal((await app.inject({ url: '/health?probe=other' })).statusCode, 400, 'an unknown probe is a mistake')
})

t.test('GET /health is 503 when the fs store cannot take writes', async (t) => {
  const { app, config, close } = await buildTestApp()
  t.teardown(close)
  // Root ignores permissions: a file where the temporary folder should be stops every write.
  await rm(join(config.STORAGE_DIR, '.tmp'), { recursive: true })
  await writeFile(join(config.STORAGE_DIR, '.tmp'), '')
  const res = await app.inject({ url: '/health' })
  t.equal(res.statusCode, 503)
  t.same(res.json(), { status: 'unavailable', error: 'the file store is not answering', checks: { database: 'ok', storage: 'failing' } })
})
