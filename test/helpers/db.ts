import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { openDatabase } from '../../db/dialect.js'
import { migrateToLatest } from '../../db/migrations.js'

/**
 * SQLite (in memory, or in a file when another process must share it), or, when TEST_DATABASE_URL
 * names a PostgreSQL server, a fresh database on it, already migrated unless `empty` (copied from a
 * template migrated once per server: each app migrating its own took about a quarter of a second).
 * `drop()` removes it.
 */
export async function createTestDatabase ({ shared = false, empty = false } = {}): Promise<{ url: string, drop (): Promise<void> }> {
  const server = process.env.TEST_DATABASE_URL
  if (!server && !shared) return { url: 'sqlite::memory:', drop: async () => {} }
  if (!server) {
    const dir = await mkdtemp(join(tmpdir(), 'stowage-db-'))
    return { url: `sqlite:${join(dir, 'stowage.db')}`, drop: () => rm(dir, { recursive: true, force: true }) }
  }
  const name = `stowage_test_${randomBytes(6).toString('hex')}`
  const template = empty ? 'template1' : await (migrated ??= migratedTemplate(server))
  await onServer(server, (admin) => admin.query(`create database ${name} template ${template}`))
  return {
    url: databaseUrl(server, name),
    async drop () {
      await onServer(server, (admin) => admin.query(`drop database if exists ${name} with (force)`))
    }
  }
}

const databaseUrl = (server: string, name: string) => Object.assign(new URL(server), { pathname: `/${name}` }).toString()

async function onServer<T> (server: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  try {
    return await work(admin)
  } finally {
    await admin.end()
  }
}

let migrated: Promise<string> | undefined

/** A database on `server` holding what db/migrations.ts makes, named after that file's text, built by
 *  the first test process to ask (the others wait on an advisory lock) under a name of its own and
 *  renamed once whole, so a process killed half way leaves nothing another would copy. */
async function migratedTemplate (server: string): Promise<string> {
  const migrations = await readFile(new URL('../../db/migrations.ts', import.meta.url))
  const template = `stowage_template_${createHash('sha256').update(migrations).digest('hex').slice(0, 16)}`
  await onServer(server, async (admin) => {
    await admin.query('select pg_advisory_lock(hashtext($1))', ['stowage test template'])
    if ((await admin.query('select 1 from pg_database where datname = $1', [template])).rowCount) return
    const building = `${template}_${randomBytes(4).toString('hex')}`
    await admin.query(`create database ${building}`)
    const db = openDatabase(databaseUrl(server, building))
    try {
      await migrateToLatest(db)
    } finally {
      await db.destroy()
    }
    await admin.query(`alter database ${building} rename to ${template}`)
  })
  return template
}

/**
 * The store drivers a file's cases run on: both on SQLite, where every difference between them is
 * tested; on PostgreSQL (CI's second stage) the S3 driver alone, the pairing deployments run, for
 * files whose database work is the same code whichever driver stores the bytes. A file where the
 * driver changes what the database is asked (locks, reservations of staged parts) keeps both there.
 */
export const DRIVERS: ReadonlyArray<'fs' | 's3'> = process.env.TEST_DATABASE_URL ? ['s3'] : ['fs', 's3']
