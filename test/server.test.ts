import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServerProcess } from './helpers/server.js'

t.test('the server starts on its embedded defaults and shuts down gracefully on SIGTERM', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-server-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const server = await startServerProcess({ DATABASE_URL: `sqlite:${join(dir, 'stowage.db')}`, STORAGE_DIR: join(dir, 'objects') })
  const health = await fetch(`${server.url}/health`)
  t.equal(health.status, 200)
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0, 'exits 0')
  t.ok(server.messages.includes('shutting down'))
})

t.test('stowage serve starts the same service, from the same environment', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-serve-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const server = await startServerProcess({ DATABASE_URL: `sqlite:${join(dir, 'stowage.db')}`, STORAGE_DIR: join(dir, 'objects') }, ['cli/main.ts', 'serve'])
  const health = await fetch(`${server.url}/health`)
  t.equal(health.status, 200)
  t.match(await health.json(), { status: 'ok', checks: { database: 'ok', storage: 'ok' } })
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0, 'exits 0 on SIGTERM')
})
