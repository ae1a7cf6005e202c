import t from 'tap'
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

t.test('the server starts on its embedded defaults and shuts down gracefully on SIGTERM', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-server-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const child = spawn(process.execPath, [...process.execArgv, 'server.ts'], {
    env: { ...process.env, PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'stowage.db')}`, STORAGE_DIR: join(dir, 'objects'), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'ignore']
  })
  const messages: string[] = []
  const listening = new Promise<string>((resolve) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const { msg } = JSON.parse(line) as { msg: string }
      messages.push(msg)
      const url = /^Server listening at (http:\/\/127\.0\.0\.1:\d+)$/.exec(msg)?.[1]
      if (url) resolve(url)
    })
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const url = await listening
  const health = await fetch(`${url}/health`)
  t.equal(health.status, 200)
  child.kill('SIGTERM')
  t.equal(await exited, 0, 'exits 0')
  t.ok(messages.includes('shutting down'))
})
