import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from '../cli/index.js'
import { bearer, buildTestApp } from './helpers/app.js'
import { createTestDatabase } from './helpers/db.js'
import { putBytes } from './helpers/store.js'
import { stowageOptions } from '../stowage-options.js'
import { createPublisher } from '../storage/publisher.js'
import { createStore } from '../storage/store.js'
import { NODE_ARGS } from './helpers/server.js'

async function cli (argv: string[], env: Record<string, string> = {}) {
  let stdout = ''
  let stderr = ''
  const code = await runCli(argv, {
    stdout: { write: (text: string) => { stdout += text } },
    stderr: { write: (text: string) => { stderr += text } },
    env: { API_KEY_BCRYPT_COST: '4', ...env }
  })
  return { code, stdout, stderr }
}

t.test('admin create-key gives a first key on a fresh database, no identity provider needed', async (t) => {
  const database = await createTestDatabase({ shared: true, empty: true })
  t.teardown(database.drop)
  const created = await cli(['admin', 'create-key', '--user', 'alice', '--name', 'first', '--init', '--json'], { DATABASE_URL: database.url })
  t.equal(created.code, 0, created.stderr)
  const body = JSON.parse(created.stdout)
  t.match(body, { key: /^stow_[0-9A-Za-z]{48}$/, name: 'first', expiresAt: null })

  const { app, close } = await buildTestApp({ env: { DATABASE_URL: database.url } })
  t.teardown(close)
  const res = await app.inject({ url: '/api/auth/credentials', headers: bearer(body.key) })
  t.equal(res.statusCode, 200)
  t.equal(res.json().userId, 'alice')
  const put = await app.inject({ method: 'PUT', url: '/api/files/hello.txt', headers: bearer(body.key), payload: { content: 'aGk=' } })
  t.equal(put.statusCode, 200)
})

t.test('admin create-org records the organization and prints it', async (t) => {
  const database = await createTestDatabase({ shared: true, empty: true })
  t.teardown(database.drop)
  const created = await cli(['admin', 'create-org', '--name', 'Acme', '--aws-account-id', '123456789012', '--auth-mode', 'aws-sso', '--init'], { DATABASE_URL: database.url })
  t.equal(created.code, 0, created.stderr)
  const org = JSON.parse(created.stdout)
  t.match(org, { id: /^[0-9a-f-]{36}$/, name: 'Acme', awsAccountId: '123456789012', authMode: 'aws-sso' })
  const { app, close } = await buildTestApp({ env: { DATABASE_URL: database.url } })
  t.teardown(close)
  t.match(await app.stowageDb.selectFrom('organizations').selectAll().execute(), [{ id: org.id, auth_mode: 'aws-sso', aws_account_id: '123456789012' }])

  const withOrg = await cli(['admin', 'create-key', '--user', 'alice', '--org', org.id], { DATABASE_URL: database.url })
  t.equal(withOrg.code, 0, withOrg.stderr)
  t.equal((await app.stowageDb.selectFrom('api_keys').select('org_id').where('id', '=', JSON.parse(withOrg.stdout).id).executeTakeFirst())?.org_id, org.id)
  const unknownOrg = await cli(['admin', 'create-key', '--user', 'alice', '--org', 'acme'], { DATABASE_URL: database.url })
  t.equal(unknownOrg.code, 2)
  t.equal(unknownOrg.stderr, 'stowage: there is no organization acme: create it with "stowage admin create-org"\n')
})

t.test('admin reindex finds what was put into the store behind the service\'s back and mends the index', async (t) => {
  const database = await createTestDatabase({ shared: true })
  t.teardown(database.drop)
  const { app, config, close } = await buildTestApp({ env: { DATABASE_URL: database.url } })
  t.teardown(close)
  const headers = bearer((await app.stowageKeys.create({ userId: 'indexed', orgId: null })).key)
  t.equal((await app.inject({ method: 'PUT', url: '/api/raw/known.txt', headers, payload: 'known' })).statusCode, 200)
  const store = await createStore({ driver: 'fs', ...stowageOptions(config).storage }, config.MAX_UPLOAD_BYTES)
  await putBytes(createPublisher({ store }), `users/indexed/${config.STORAGE_ROOT}/behind.txt`, Buffer.from('behind'), 'text/plain')
  const env = { DATABASE_URL: database.url, STORAGE_DIR: config.STORAGE_DIR, STORAGE_ROOT: config.STORAGE_ROOT }
  const reindexed = await cli(['admin', 'reindex'], env)
  t.equal(reindexed.code, 0, reindexed.stderr)
  t.same(JSON.parse(reindexed.stdout), { users: [{ userId: 'indexed', added: 1, removed: 0, changed: 0 }] })
  const listed = (await app.inject({ url: '/api/files', headers })).json() as { files: Array<{ key: string }> }
  t.same(listed.files.map((file) => file.key), ['behind.txt', 'known.txt'])
  t.same(JSON.parse((await cli(['admin', 'reindex', '--user', 'indexed'], env)).stdout), { users: [{ userId: 'indexed', added: 0, removed: 0, changed: 0 }] }, 'nothing left to mend')
  t.match(await cli(['admin', 'reindex', '--user', '../x'], env), { code: 2, stderr: /--user must be a safe path segment/ })
})

t.test('admin refuses to create a SQLite database that does not exist yet unless --init', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-admin-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const env = { DATABASE_URL: `sqlite:${join(dir, 'data', 'stowage.db')}` }
  const refused = await cli(['admin', 'create-key', '--user', 'alice'], env)
  t.equal(refused.code, 2)
  t.match(refused.stderr, /there is no database at .*stowage\.db: run this where the service runs, set DATABASE_URL to its database, or add --init/)
  t.notOk(existsSync(join(dir, 'data', 'stowage.db')), 'nothing was created')
  t.equal((await cli(['admin', 'create-key', '--user', 'alice', '--init'], env)).code, 0)
  t.equal((await cli(['admin', 'create-key', '--user', 'bob'], env)).code, 0, 'once it exists, no --init is needed')
})

t.test('command-line mistakes exit 2 with a message on stderr', async (t) => {
  const env = { DATABASE_URL: 'sqlite::memory:' }
  for (const argv of [
    ['admin', 'create-key'],
    ['admin', 'create-key', '--user', '../bob'],
    ['admin', 'create-key', '--user', 'alice', '--bogus'],
    ['admin', 'create-org'],
    ['admin', 'create-org', '--name', 'A', '--auth-mode', 'root'],
    ['admin', 'create-org', '--name', 'A', '--aws-account-id', '12345'],
    ['admin', 'create-org', '--name', 'A', '--auth-mode', 'aws-sso'],
    ['admin', 'drop-tables'],
    ['frobnicate']
  ]) {
    const result = await cli(argv, env)
    t.equal(result.code, 2, argv.join(' '))
    t.match(result.stderr, /^stowage: /)
    t.equal(result.stdout, '')
  }
  const badConfig = await cli(['admin', 'create-key', '--user', 'alice'], { DATABASE_URL: 'mysql://nope' })
  t.equal(badConfig.code, 2)
  t.match(badConfig.stderr, /DATABASE_URL/)
})

t.test('help prints usage and exits 0, also as a real process', async (t) => {
  const help = await cli(['help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /stowage admin create-key/)
  const real = spawnSync(process.execPath, [...NODE_ARGS, 'cli/main.ts', '--help'], { encoding: 'utf8', timeout: 60_000 })
  t.equal(real.status, 0)
  t.match(real.stdout, /Usage:/)
})
