import { PostgresDialect, SqliteDialect, type Dialect } from 'kysely'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'

export type DialectName = 'sqlite' | 'postgres'

export function dialectName (url: string): DialectName {
  if (url.startsWith('sqlite:')) return 'sqlite'
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres'
  throw new Error('DATABASE_URL must start with sqlite: or postgres://')
}

/** `sqlite:<path>`, `sqlite::memory:` or `postgres://…`. */
export function createDialect (url: string): Dialect {
  if (dialectName(url) === 'postgres') {
    return new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 10 }) })
  }
  const path = url.slice('sqlite:'.length)
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const database = new SqliteDatabase(path)
  database.pragma('journal_mode = WAL')
  database.pragma('busy_timeout = 5000')
  database.pragma('foreign_keys = ON')
  return new SqliteDialect({ database: withStatementCache(database) })
}

const STATEMENT_CACHE_SIZE = 200

/**
 * Kysely prepares every query afresh, and preparing costs SQLite more than running an indexed
 * lookup; the authentication path runs the same few statements on every request.
 */
function withStatementCache (database: SqliteDatabase.Database): SqliteDatabase.Database {
  const statements = new Map<string, SqliteDatabase.Statement>()
  const prepare = database.prepare.bind(database)
  database.prepare = ((sql: string) => {
    let statement = statements.get(sql)
    if (!statement) {
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear()
      statement = prepare(sql)
      statements.set(sql, statement)
    }
    return statement
  }) as typeof database.prepare
  return database
}
