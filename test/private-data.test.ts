import t from 'tap'
import { Kysely } from 'kysely'
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDialect } from '../db/dialect.js'
import { migrateToLatest } from '../db/migrations.js'
import type { Database } from '../db/types.js'

// The fs store's own modes are tested in storage.test.ts.
t.test('the SQLite database and its WAL files are 0600 in a 0700 folder, whatever the umask', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-private-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const umask = process.umask(0o000)
  t.teardown(() => { process.umask(umask) })
  const path = join(dir, 'data', 'stowage.db')
  const db = new Kysely<Database>({ dialect: createDialect(`sqlite:${path}`) })
  t.teardown(() => db.destroy())
  await migrateToLatest(db)
  t.equal((await stat(join(dir, 'data'))).mode & 0o777, 0o700)
  for (const file of await readdir(join(dir, 'data'))) {
    t.equal((await stat(join(dir, 'data', file))).mode & 0o777, 0o600, file)
  }
  t.ok((await readdir(join(dir, 'data'))).includes('stowage.db-wal'), 'the WAL file was checked too')
})
