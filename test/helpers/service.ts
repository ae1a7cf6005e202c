import type { Test } from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase } from './db.js'
import { createKeyIn } from './keys.js'
import { serviceEnv, type S3Server } from './s3.js'
import { startServerProcess, type ServerProcess } from './server.js'

export interface ServiceOptions {
  driver?: 'fs' | 's3'
  /** The test S3 the s3 driver points at. */
  s3?: S3Server
  env?: Record<string, string>
  /** How many instances to start at once on the one database and store (more with `start()`). */
  instances?: number
}

/**
 * The real server in processes of its own, as an operator runs it: on a database and a store that
 * every instance shares, with an API key for `alice`; all of it removed when `t` ends.
 */
export async function startService (t: Test, { driver = 'fs', s3, env = {}, instances = 1 }: ServiceOptions = {}) {
  if (driver === 's3' && !s3) throw new Error('the s3 driver needs a test S3 server')
  const database = await createTestDatabase({ shared: true })
  const storageDir = await mkdtemp(join(tmpdir(), 'stowage-service-'))
  const servers: ServerProcess[] = []
  t.teardown(async () => {
    await Promise.all(servers.map(stopServer))
    await database.drop()
    await rm(storageDir, { recursive: true, force: true })
  })
  const key = await createKeyIn(database.url)
  const shared = { DATABASE_URL: database.url, STORAGE_DRIVER: driver, STORAGE_DIR: storageDir, ...(s3 ? serviceEnv(s3) : {}) }
  /** One more instance; `more` adds to (or overrides) the service's variables. */
  const start = async (more: Record<string, string> = {}) => {
    const server = await startServerProcess({ ...shared, ...env, ...more })
    servers.push(server)
    return server
  }
  await Promise.all(Array.from({ length: instances }, () => start()))
  const [server] = servers
  const auth = { authorization: `Bearer ${key}` }
  return {
    servers,
    server,
    url: server?.url,
    port: server && Number(new URL(server.url).port),
    key,
    auth,
    databaseUrl: database.url,
    storageDir,
    start,
    alive: (which = server) => isAlive(which)
  }
}

/** SIGKILL, unless it has exited already. */
export async function stopServer (server: ServerProcess) {
  if (server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill('SIGKILL')
    await server.exited
  }
}

/** Whether the process still answers its liveness probe. */
export async function isAlive (server: ServerProcess) {
  return (await fetch(`${server.url}/health?probe=live`)).status === 200
}
