import { execFileSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { closedPortUrl } from './net.js'

/** The newest PostgreSQL server binaries on this machine, if any. */
export function postgresBinaries (): string | undefined {
  const base = '/usr/lib/postgresql'
  if (!existsSync(base)) return undefined
  const versions = readdirSync(base).filter((name) => existsSync(join(base, name, 'bin', 'initdb')))
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0]
  return newest ? join(base, newest, 'bin') : undefined
}

/**
 * A throwaway PostgreSQL cluster owned by one test, so that the test can stop, pause and restart
 * it without disturbing the others. Runs as `postgres` when the tests run as root (initdb refuses root).
 */
export async function startPostgres () {
  const bin = postgresBinaries()
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql')
  const dir = mkdtempSync(join(tmpdir(), 'stowage-pg-'))
  const asRoot = userInfo().uid === 0
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()))
  const run = (tool: string, args: string[]) => asRoot
    ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { stdio: 'pipe' })
    : execFileSync(join(bin, tool), args, { stdio: 'pipe' })
  const port = Number(new URL(await closedPortUrl()).port)
  const data = join(dir, 'data')
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres'])
  const start = () => run('pg_ctl', ['-D', data, '-w', '-l', join(dir, 'server.log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start'])
  start()
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`

  const postmasterPid = () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
  const serverPids = () => {
    const parent = postmasterPid()
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(parent)]).toString().trim().split(/\s+/).filter(Boolean).map(Number)
    return [parent, ...children]
  }
  const signalAll = (signal: NodeJS.Signals) => { for (const pid of serverPids()) process.kill(pid, signal) }

  async function query (sql: string, parameters: unknown[] = []) {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return await client.query(sql, parameters)
    } finally {
      await client.end()
    }
  }

  return {
    url,
    /** Ends every other session's backend, as an operator or a failover would. */
    async terminateBackends () {
      const { rowCount } = await query('select pg_terminate_backend(pid) from pg_stat_activity where pid <> pg_backend_pid() and backend_type = $1', ['client backend'])
      return rowCount ?? 0
    },
    stop () { run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']) },
    start,
    /** SIGSTOP on the postmaster and every backend: the server accepts connections and never answers. */
    pause () { signalAll('SIGSTOP') },
    resume () { signalAll('SIGCONT') },
    close () {
      try { signalAll('SIGCONT') } catch {}
      try { run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']) } catch {}
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

export type TestPostgres = Awaited<ReturnType<typeof startPostgres>>
