import t from 'tap'
import Database from 'better-sqlite3'
import { sql } from 'kysely'
import { openDatabase } from '../db/dialect.js'
import { bearer, buildTestApp } from './helpers/app.js'
import { createTestDatabase } from './helpers/db.js'

t.test('SQLite held by another process past DATABASE_QUERY_TIMEOUT_MS: a write is 503 with Retry-After, never 500, and goes through once it is let go', { skip: process.env.TEST_DATABASE_URL !== undefined && 'SQLite only' }, async (t) => {
  const database = await createTestDatabase({ shared: true })
  t.teardown(database.drop)
  const { app, close } = await buildTestApp({ env: { DATABASE_URL: database.url, DATABASE_QUERY_TIMEOUT_MS: '300' } })
  t.teardown(close)
  const headers = bearer((await app.stowageKeys.create({ userId: 'locked-out', orgId: null })).key)
  t.equal((await app.inject({ method: 'PUT', url: '/api/raw/a.txt', headers, payload: 'a' })).statusCode, 200)

  // Another process's transaction (the sqlite3 shell, an admin command): the write lock held.
  const other = new Database(database.url.slice('sqlite:'.length))
  t.teardown(() => other.close())
  other.exec('begin immediate')
  // A write in a transaction (a file), and one statement on its own (a key).
  const refused = await app.inject({ method: 'PUT', url: '/api/raw/b.txt', headers, payload: 'b' })
  const keyRefused = await app.inject({ method: 'POST', url: '/api/keys', headers, payload: {} })
  other.exec('rollback')
  for (const answer of [refused, keyRefused]) {
    t.equal(answer.statusCode, 503, answer.body)
    t.match(answer.json(), { error: /database/ })
    t.ok(answer.headers['retry-after'], 'with Retry-After')
  }
  t.equal((await app.inject({ url: '/api/raw/b.txt', headers })).statusCode, 404, 'nothing was written')
  t.equal((await app.inject({ method: 'PUT', url: '/api/raw/b.txt', headers, payload: 'b' })).statusCode, 200)
})

t.test("SQLite's settings are what docs/operations.md says: WAL, synchronous NORMAL, foreign keys", { skip: process.env.TEST_DATABASE_URL !== undefined && 'SQLite only' }, async (t) => {
  const database = await createTestDatabase({ shared: true })
  t.teardown(database.drop)
  const db = openDatabase(database.url)
  t.teardown(() => db.destroy())
  const setting = async (name: string) => Object.values((await sql.raw(`pragma ${name}`).execute(db)).rows[0] as object)[0]
  t.equal(await setting('journal_mode'), 'wal')
  t.equal(await setting('synchronous'), 1, 'NORMAL: a commit is written to the WAL, not flushed')
  t.equal(await setting('foreign_keys'), 1)
})
