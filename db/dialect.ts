import { CompiledQuery, Kysely, PostgresAdapter, sql, PostgresDialect, SqliteDialect, type LogEvent, type DatabaseConnection, type Dialect, type Driver, type PostgresPool, type PostgresPoolClient } from 'kysely'
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'
import { dependencyUnavailable, isProgrammingError } from '../errors.js'
import type { Database } from './types.js'

export type DialectName = 'sqlite' | 'postgres'

export function dialectName (url: string): DialectName {
  if (url.startsWith('sqlite:')) return 'sqlite'
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres'
  throw new Error('DATABASE_URL must start with sqlite: or postgres://')
}

export interface DialectOptions {
  /** PostgreSQL: longest wait to open a connection. */
  connectTimeoutMs?: number
  /** PostgreSQL: longest a query waits its turn for a pooled connection (a burst queues, it does not fail). */
  poolWaitMs?: number
  /** Longest a statement may run: cancelled by PostgreSQL, and abandoned by the client a second later. */
  queryTimeoutMs?: number
  poolSize?: number
  log?: { warn (details: object, message: string): void }
  /** Told every query (its SQL, seconds, and whether it failed), for metrics. */
  onQuery?: QueryObserver
}

export type QueryObserver = (sql: string, seconds: number, failed: boolean) => void

/** `sqlite:<path>`, `sqlite::memory:` or `postgres://…`. Failures of the database itself surface as
 *  DependencyUnavailableError (503); mistakes in a query stay what they are (500). */
export function createDialect (url: string, options: DialectOptions = {}): Dialect {
  if (dialectName(url) === 'postgres') {
    return mapFailures(new PostgresDialect({ pool: createPool(url, options) }), isPostgresOutage)
  }
  return sqliteDialect(openSqlite(url, options))
}

/** A Kysely instance for `url` (see createDialect). On SQLite it also allows `directLookup`; on
 *  PostgreSQL, `poolStats`. */
export function openDatabase (url: string, options: DialectOptions = {}): Kysely<Database> {
  const { onQuery } = options
  const log = onQuery && ((event: LogEvent) => onQuery(event.query.sql, event.queryDurationMillis / 1000, event.level === 'error'))
  if (dialectName(url) === 'postgres') {
    const pool = createPool(url, options)
    const db = new Kysely<Database>({ dialect: mapFailures(new PostgresDialect({ pool }), isPostgresOutage), log })
    poolBehind.set(db, pool)
    return db
  }
  const database = openSqlite(url, options)
  const db = new Kysely<Database>({ dialect: sqliteDialect(database), log })
  sqliteBehind.set(db.getExecutor().adapter, { database, onQuery })
  return db
}

// The SQLite database behind an `openDatabase` instance, by the adapter it shares with its transactions.
const sqliteBehind = new WeakMap<object, { database: SqliteDatabase.Database, onQuery?: QueryObserver }>()
const poolBehind = new WeakMap<Kysely<Database>, PostgresPool & { stats (): { total: number, idle: number, waiting: number } }>()

/** Whether `db` is PostgreSQL (a host's Kysely instance included): instances can share it safely. */
export const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter

/** `column` begins with `prefix`, exactly (LIKE is case-blind on SQLite and needs escapes; collations may reorder). */
export const beginsWith = (column: string, prefix: string) => sql<boolean>`substr(${sql.ref(column)}, 1, length(cast(${prefix} as text))) = cast(${prefix} as text)`

/** Connections of an `openDatabase` PostgreSQL pool: open, idle, and requests waiting for one. */
export function poolStats (db: Kysely<Database>) {
  return poolBehind.get(db)?.stats()
}

/**
 * A one-row query run straight on SQLite when `db` is an `openDatabase` SQLite instance, else
 * undefined. Kysely's way to a row (its connection queue, a dozen promises) cost more than the
 * lookup itself: on the API-key path it took a third of each request. Safe beside Kysely: a lookup
 * made while a transaction is open on the shared connection (a quota reservation's two statements)
 * reads inside it, which sees every committed row, and that transaction writes no row a lookup reads.
 */
export function directLookup<Row> (db: Kysely<Database>, sql: string): ((parameters: unknown[]) => Row | undefined) | undefined {
  const behind = sqliteBehind.get(db.getExecutor().adapter)
  const statement = behind?.database.prepare(sql)
  if (!statement) return undefined
  return (parameters) => runDirectly(behind!.onQuery, sql, () => statement.get(parameters) as Row | undefined)
}

/** A statement run straight on SQLite, observed as Kysely's are, its outage a 503. */
function runDirectly<T> (onQuery: QueryObserver | undefined, sql: string, run: () => T): T {
  const started = onQuery && performance.now()
  let failed = false
  try {
    return run()
  } catch (error) {
    failed = true
    throw isSqliteOutage(error) ? dependencyUnavailable('the database', error) : error
  } finally {
    if (onQuery) onQuery(sql, (performance.now() - started!) / 1000, failed)
  }
}

/** A one-row query compiled once (`sql`, its parameters given per call): run by `directLookup` on
 *  SQLite, through Kysely elsewhere. For the lookups every request of a kind makes. */
export function lookupOf<Row> (db: Kysely<Database>, sql: string): (parameters: unknown[]) => Promise<Row | undefined> {
  const direct = directLookup<Row>(db, sql)
  if (direct) return async (parameters) => direct(parameters)
  return async (parameters) => (await db.executeQuery<Row>(CompiledQuery.raw(sql, parameters))).rows[0]
}

/** A statement compiled once, run with its parameters in `executor` (the database, or a
 *  transaction of it): what it wrote, and the rows it returned. */
export type Statement<Row> = (executor: Kysely<any>, parameters: unknown[]) => Promise<{ rows: Row[], affected: number }>

/**
 * A statement of the write path compiled once (`sql`, its parameters given per run). Inside a
 * transaction on an `openDatabase` SQLite instance it runs straight on the connection, which the
 * transaction holds; elsewhere (or outside a transaction, where another request's transaction may
 * hold that connection) through Kysely. Building and compiling a statement cost Kysely more than
 * SQLite's running it.
 */
export function statementOf<Row = never> (db: Kysely<Database>, sql: string): Statement<Row> {
  return statementOn(db.getExecutor().adapter, sql)
}

/** statementOf for the database whose (and whose transactions') adapter is `adapter`. */
function statementOn<Row> (adapter: object, sql: string): Statement<Row> {
  const behind = sqliteBehind.get(adapter)
  const statement = behind?.database.prepare(sql)
  return async (executor, parameters) => {
    if (!statement || !executor.isTransaction) {
      const result = await executor.executeQuery<Row>(CompiledQuery.raw(sql, parameters))
      return { rows: result.rows, affected: Number(result.numAffectedRows ?? 0) }
    }
    return runDirectly(behind!.onQuery, sql, () => {
      if (!statement.reader) return { rows: [], affected: statement.run(parameters).changes }
      const rows = statement.all(parameters) as Row[]
      return { rows, affected: rows.length }
    })
  }
}

// A stand-in for a value of a statement built once: its name, after a character no value holds.
const STAND_IN = '\u0000stand-in:'
type Slot = { name: string } | { value: unknown }
const preparedOn = new WeakMap<object, Map<string, { run: Statement<unknown>, slots: Slot[] }>>()

/**
 * Runs the statement `name` of the write path in `executor` (a database or its transaction) with
 * `values` by name. It is built once per database by `build`, with Kysely, from stand-ins for its
 * values (`value('key')`), and then run as statementOf runs one: building and compiling a statement
 * cost Kysely more than running it. `name` stands for one shape of statement: a shape that varies
 * (a list's length) is a name each.
 */
export async function runPrepared<Row = never> (executor: Kysely<any>, name: string, build: (value: (name: string) => any) => CompiledQuery, values: Record<string, unknown>): Promise<{ rows: Row[], affected: number }> {
  const adapter = executor.getExecutor().adapter
  let prepared = preparedOn.get(adapter)
  if (!prepared) preparedOn.set(adapter, prepared = new Map())
  let statement = prepared.get(name)
  if (!statement) {
    const compiled = build((slot) => STAND_IN + slot)
    const slots = compiled.parameters.map((parameter): Slot => typeof parameter === 'string' && parameter.startsWith(STAND_IN) ? { name: parameter.slice(STAND_IN.length) } : { value: parameter })
    statement = { run: statementOn(adapter, compiled.sql), slots }
    prepared.set(name, statement)
  }
  const parameters = statement.slots.map((slot) => {
    if (!('name' in slot)) return slot.value
    if (values[slot.name] === undefined) throw new Error(`${name}: no value for ${slot.name}`)
    return values[slot.name]
  })
  return await statement.run(executor, parameters) as { rows: Row[], affected: number }
}

/** Rows for an insert built once (see runPrepared): each column of each row a stand-in named by both. */
export const standInRows = <Row extends object>(rows: Row[], value: (name: string) => any): Row[] =>
  rows.map((row, index) => Object.fromEntries(Object.keys(row).map((column) => [column, value(`${index}:${column}`)])) as Row)

/** The values of `rows` by the names standInRows gives their stand-ins (undefined: null, as the
 *  column Kysely would leave out). */
export const rowValues = (rows: object[]): Record<string, unknown> =>
  Object.fromEntries(rows.flatMap((row, index) => Object.entries(row).map(([column, value]) => [`${index}:${column}`, value ?? null])))

function openSqlite (url: string, options: DialectOptions): SqliteDatabase.Database {
  const path = url.slice('sqlite:'.length)
  if (path !== ':memory:') createPrivately(path)
  const database = new SqliteDatabase(path)
  keptForLife.push(database)
  // exec, not pragma(): pragma() prepares a statement object that would become garbage.
  // synchronous NORMAL with WAL: a commit is not flushed to the disk (FULL flushed each, about
  // 0.2 ms here, on the event loop); a crash of the process loses nothing, a power cut may lose the
  // last commits but never corrupts the file, as the fs driver's unflushed files may go with them
  // (docs/operations.md).
  database.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = ${options.queryTimeoutMs ?? 5000}; PRAGMA foreign_keys = ON`)
  return withStatementCache(database)
}

// Every transaction of the service writes. Begun IMMEDIATE, one takes the write lock at once, waiting
// its turn (busy_timeout) behind another process's; a deferred one that read first could not take
// it once another process had written, and failed at once with SQLITE_BUSY (instances sharing a file).
const beginImmediate = async (connection: DatabaseConnection) => { await connection.executeQuery(CompiledQuery.raw('begin immediate')) }

const sqliteDialect = (database: SqliteDatabase.Database) => mapFailures(new SqliteDialect({ database }), isSqliteOutage, beginImmediate)

/** A server-side error of these SQLSTATE classes is the server's state, not the query's fault:
 *  08 connection, 53 resources, 57 operator intervention (shutdown, statement timeout), 58 system. */
function isPostgresOutage (error: unknown): boolean {
  if (error instanceof pg.DatabaseError) return ['08', '53', '57', '58'].includes(error.code?.slice(0, 2) ?? '')
  return error instanceof Error && !isProgrammingError(error)
}

const SQLITE_OUTAGE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|NOMEM|PROTOCOL)/

function isSqliteOutage (error: unknown): boolean {
  if (error instanceof SqliteDatabase.SqliteError) return SQLITE_OUTAGE.test(error.code)
  // better-sqlite3 after close(): the database went away under the request (shutdown).
  return error instanceof TypeError && error.message === 'The database connection is not open'
}

/**
 * Turns for `size` holders, taken in order: a turn waits at most `waitMs` (then an outage, 503).
 * pg-pool's own wait is the connect timeout, which fits opening a connection, not a queue: under a
 * burst of writes every connection was held and requests failed after 5 s with the database up.
 */
function createTurns (size: number, waitMs: number) {
  let held = 0
  const waiting: Array<{ resolve (): void, timer: NodeJS.Timeout }> = []
  return {
    async take (): Promise<void> {
      if (held < size) {
        held++
        return
      }
      await new Promise<void>((resolve, reject) => {
        const waiter = {
          resolve,
          timer: setTimeout(() => {
            waiting.splice(waiting.indexOf(waiter), 1)
            reject(new Error(`timeout exceeded when waiting ${waitMs / 1000} s for a pooled connection`))
          }, waitMs)
        }
        waiting.push(waiter)
      })
    },
    give () {
      const next = waiting.shift()
      if (next) {
        clearTimeout(next.timer)
        next.resolve()
      } else held--
    },
    waiting: () => waiting.length
  }
}

function createPool (url: string, { connectTimeoutMs = 5000, poolWaitMs = 30_000, queryTimeoutMs = 5000, poolSize = 10, log }: DialectOptions) {
  const turns = createTurns(poolSize, poolWaitMs)
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // A turn is taken first, so this is the time to open a connection, never a queue's.
    connectionTimeoutMillis: connectTimeoutMs,
    statement_timeout: queryTimeoutMs,
    // A paused or unreachable server never answers: the client gives up on its own.
    query_timeout: queryTimeoutMs + 1000,
    idleTimeoutMillis: 30_000,
    keepAlive: true
  })
  // Without a listener, an idle client dropped by the server (restart, failover,
  // pg_terminate_backend, idle_session_timeout) is an unhandled 'error' that ends the process.
  pool.on('error', (error) => {
    log?.warn({ err: error }, 'an idle database connection failed; the pool will open a new one')
  })
  // pg-pool listens to a client while it is idle, and connect() below while it is held. In CI an
  // 'error' once reached no listener while a cluster stopped under a busy run, and failed the
  // test; so every client also keeps a listener for life. Nothing is lost by it: a client that
  // failed fails its next query, which closes it (see release below).
  pool.on('connect', (client) => { client.on('error', () => {}) })
  return {
    async connect (): Promise<PostgresPoolClient> {
      await turns.take()
      let client: pg.PoolClient
      try {
        client = await pool.connect()
      } catch (error) {
        turns.give()
        throw error
      }
      let failure: Error | undefined
      // The pool listens to idle clients only. One held between statements (a transaction, a key
      // lock while its publish runs) that the server drops would emit 'error' to no one, which ends
      // the process; it is remembered instead, and the client closed when released.
      const dropped = (error: Error) => { failure = error }
      client.on('error', dropped)
      return {
        // Kysely streams no queries here, so only the (sql, parameters) form is needed.
        async query (sql: string, parameters: unknown[]) {
          try {
            return await client.query(sql, parameters)
          } catch (error) {
            if (isPostgresOutage(error)) failure = error as Error
            throw error
          }
        },
        // A client that failed this way is closed rather than handed to the next request.
        release: () => {
          client.off('error', dropped)
          client.release(failure)
          turns.give()
        }
      } as unknown as PostgresPoolClient
    },
    end: () => pool.end(),
    stats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount + turns.waiting() })
  }
}

/** Wraps a dialect's driver so that every failure the classifier calls an outage becomes a 503.
 *  Every query of the service passes here: no async frame is added on the way to a success. */
function mapFailures (dialect: Dialect, isOutage: (error: unknown) => boolean, begin?: (connection: DatabaseConnection) => Promise<void>): Dialect {
  const mapError = (error: unknown): never => {
    throw isOutage(error) ? dependencyUnavailable('the database', error) : error
  }
  const original = Symbol('original connection')
  type Wrapped = DatabaseConnection & { [original]: DatabaseConnection }
  const wrapped = new WeakMap<DatabaseConnection, Wrapped>()
  const wrap = (connection: DatabaseConnection): Wrapped => {
    const known = wrapped.get(connection)
    if (known) return known
    const outer: Wrapped = {
      [original]: connection,
      executeQuery: <R>(query: CompiledQuery) => {
        // Kysely's SQLite connection throws at once (better-sqlite3 is synchronous), not in a promise.
        try {
          return connection.executeQuery<R>(query).catch(mapError)
        } catch (error) {
          return Promise.reject(error).catch(mapError)
        }
      },
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize)
    }
    wrapped.set(connection, outer)
    return outer
  }
  const unwrap = (connection: DatabaseConnection) => (connection as Wrapped)[original]
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver (): Driver {
      const driver = dialect.createDriver()
      return {
        init: () => driver.init().catch(mapError),
        acquireConnection: () => driver.acquireConnection().then(wrap, mapError),
        beginTransaction: (connection, settings) => (begin ? begin(unwrap(connection)) : driver.beginTransaction(unwrap(connection), settings)).catch(mapError),
        commitTransaction: (connection) => driver.commitTransaction(unwrap(connection)).catch(mapError),
        rollbackTransaction: (connection) => driver.rollbackTransaction(unwrap(connection)).catch(mapError),
        releaseConnection: (connection) => driver.releaseConnection(unwrap(connection)),
        destroy: () => driver.destroy()
      }
    }
  }
}

/** The database file 0600 in a folder made 0700, whatever the umask; SQLite gives its -wal and -shm
 *  files the mode of the database file. */
function createPrivately (path: string) {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  closeSync(openSync(path, 'a', 0o600))
  chmodSync(path, 0o600)
}

/**
 * better-sqlite3 12 built for Node 24 aborts the process when the garbage collector frees one of its
 * objects while no JavaScript runs (`Assertion failed: (env) != nullptr` in
 * RemoveEnvironmentCleanupHook, from ~Statement: Node 24's ObjectWrap removes a cleanup hook in its
 * destructor, and finds no environment there). So none of them is ever let go: each database and
 * each statement prepared on it stays reachable for the life of the process, closed or not. The
 * statements are the service's own queries, a fixed set of texts (values are parameters), so this
 * holds some dozens of small objects. better-sqlite3 13 no longer uses ObjectWrap, but needs Node 22.
 */
const keptForLife: SqliteDatabase.Database[] = []

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
      statement = prepare(sql)
      statements.set(sql, statement)
    }
    return statement
  }) as typeof database.prepare
  return database
}
