import t from 'tap'
import { buildTestApp } from './helpers/app.js'

t.test('GET /health is 200 without authentication', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  const res = await app.inject({ url: '/health' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'ok', checks: { database: 'ok' } })
})

t.test('GET /health is 503 naming the failing check when the database does not answer', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  await app.db.destroy()
  const res = await app.inject({ url: '/health' })
  t.equal(res.statusCode, 503)
  t.same(res.json(), { status: 'unavailable', error: 'the database is not answering', checks: { database: 'failing' } })
})

t.test('unknown routes are 404 with an error body', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  const res = await app.inject({ url: '/nothing/here' })
  t.equal(res.statusCode, 404)
  t.type(res.json().error, 'string')
})
