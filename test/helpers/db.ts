import { randomBytes } from 'node:crypto'
import pg from 'pg'

/**
 * SQLite in memory, or, when TEST_DATABASE_URL names a PostgreSQL server, a fresh database on it
 * that is dropped by `drop()`.
 */
export async function createTestDatabase (): Promise<{ url: string, drop (): Promise<void> }> {
  const server = process.env.TEST_DATABASE_URL
  if (!server) return { url: 'sqlite::memory:', drop: async () => {} }
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
