import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

/**
 * SQLite (in memory, or in a file when another process must share it), or, when TEST_DATABASE_URL
 * names a PostgreSQL server, a fresh database on it. `drop()` removes it.
 */
export async function createTestDatabase ({ shared = false } = {}): Promise<{ url: string, drop (): Promise<void> }> {
  const server = process.env.TEST_DATABASE_URL
  if (!server && !shared) return { url: 'sqlite::memory:', drop: async () => {} }
  if (!server) {
    const dir = await mkdtemp(join(tmpdir(), 'stowage-db-'))
    return { url: `sqlite:${join(dir, 'stowage.db')}`, drop: () => rm(dir, { recursive: true, force: true }) }
  }
  const name = `stowage_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(server)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop () {
      const client = new pg.Client({ connectionString: server })
      await client.connect()
      await client.query(`drop database if exists ${name} with (force)`)
      await client.end()
    }
  }
}

/**
 * The store drivers a file's cases run on: both on SQLite, where every difference between them is
 * tested; on PostgreSQL (CI's second stage) the S3 driver alone, the pairing deployments run, for
 * files whose database work is the same code whichever driver stores the bytes. A file where the
 * driver changes what the database is asked (locks, reservations of staged parts) keeps both there.
 */
export const DRIVERS: ReadonlyArray<'fs' | 's3'> = process.env.TEST_DATABASE_URL ? ['s3'] : ['fs', 's3']
