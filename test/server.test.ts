import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawn } from 'node:child_process'
import { closedPortUrl } from './helpers/net.js'
import { NODE_ARGS, startServerProcess } from './helpers/server.js'
import { waitFor } from './helpers/wait.js'

t.test('the server starts on its embedded defaults and shuts down gracefully on SIGTERM', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-server-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const server = await startServerProcess({ DATABASE_URL: `sqlite:${join(dir, 'stowage.db')}`, STORAGE_DIR: join(dir, 'objects') })
  const health = await fetch(`${server.url}/health`)
  t.equal(health.status, 200)
  const root = await fetch(`${server.url}/`, { redirect: 'manual' })
  t.equal(root.status, 302, 'the service\'s own address sends a browser to the console')
  t.equal(new URL(root.headers.get('location')!, `${server.url}/`).href, `${server.url}/console/`)
  t.ok(server.messages.includes(`the web console is at ${server.url}/console/`), 'the start-up log says where the console is')
  t.ok(server.messages.some((message) => /make a first API key with "\.\/bin\/stowage\.js admin create-key --user NAME"/.test(message)), 'and how to make a first key')
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

t.test('an idle server on SQLite stays up (better-sqlite3 on Node 24 aborted when the GC freed a statement)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-idle-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const url = await closedPortUrl()
  // At warn, as the abort was reported: the process is idle sooner, when V8 collects on its own.
  const child = spawn(process.execPath, [...NODE_ARGS, 'server.ts'], {
    env: { ...process.env, PORT: new URL(url).port, LOG_LEVEL: 'warn', DATABASE_URL: `sqlite:${join(dir, 'stowage.db')}`, STORAGE_DIR: join(dir, 'objects') },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => { stderr += chunk })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  t.teardown(() => { child.kill('SIGKILL') })
  const running = () => child.exitCode === null && child.signalCode === null
  await waitFor(async () => !running() || (await fetch(`${url}/health`).catch(() => undefined))?.status === 200, { what: 'the server to answer' })
  if (running()) {
    for (let i = 0; i < 20; i++) await fetch(`${url}/api/keys`)
    await new Promise((resolve) => setTimeout(resolve, 10_000))
  }
  t.ok(running(), `still running after 10 idle seconds${running() ? '' : `; it ended with ${child.signalCode ?? child.exitCode}: ${stderr.slice(0, 300)}`}`)
  t.equal((await fetch(`${url}/health`)).status, 200)
  child.kill('SIGTERM')
  t.equal(await exited, 0)
})
