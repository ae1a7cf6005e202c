import t from 'tap'
import { openDatabase } from '../db/dialect.js'
import { migrateToLatest } from '../db/migrations.js'
import { createUploadLeases, createUploadRepository } from '../db/uploads.js'
import { createTestDatabase } from './helpers/db.js'
import { waitFor } from './helpers/wait.js'

t.test('an upload\'s lease: one holder at a time, a waiter asks the holder to let go, a dead holder\'s lease lapses', async (t) => {
  const database = await createTestDatabase({ shared: true })
  // Two connections, as two instances would have.
  const [one, two] = [openDatabase(database.url), openDatabase(database.url)]
  t.teardown(async () => { await one.destroy(); await two.destroy(); await database.drop() })
  await migrateToLatest(one)
  const now = new Date()
  await createUploadRepository(one).create({
    id: 'a'.repeat(32), userId: 'alice', path: 'a.bin', contentType: 'application/octet-stream', size: 10,
    metadata: {}, preconditions: {}, state: {}, createdAt: now, expiresAt: new Date(now.getTime() + 60_000)
  })
  const id = 'a'.repeat(32)
  const holder = createUploadLeases(one, { leaseMs: 60_000, pollMs: 20 })(id)
  let asked = 0
  await holder.take(new AbortController().signal, () => { asked++ })

  const waiter = createUploadLeases(two, { leaseMs: 60_000, pollMs: 20 })(id)
  let waiterHolds = false
  const waiting = waiter.take(new AbortController().signal, () => {}).then(() => { waiterHolds = true })
  await waitFor(() => asked > 0, { what: 'the holder to be asked to let go' })
  t.pass('the holder is asked to let go')
  t.notOk(waiterHolds, 'the waiter waits while the lease is held')
  await holder.release()
  await waiting
  t.ok(waiterHolds, 'and the waiter takes it once released')
  await waiter.release()

  const crashed = createUploadLeases(one, { leaseMs: 50, pollMs: 10_000 })(id)
  await crashed.take(new AbortController().signal, () => {})
  // Never released, never renewed (its poll is longer than the lease): the lease lapses.
  const next = createUploadLeases(two, { leaseMs: 60_000, pollMs: 20 })(id)
  await next.take(AbortSignal.timeout(10_000), () => {})
  t.pass('a lapsed lease is taken')
  await next.release()
  await crashed.release()

  const gaveUp = new AbortController()
  const blocked = createUploadLeases(one, { leaseMs: 60_000, pollMs: 20 })(id)
  await blocked.take(new AbortController().signal, () => {})
  const refused = createUploadLeases(two, { leaseMs: 60_000, pollMs: 20 })(id).take(gaveUp.signal, () => {})
  gaveUp.abort(new Error('gave up'))
  await t.rejects(refused, /gave up/, 'a waiter whose request ends stops waiting')
  await blocked.release()
})
