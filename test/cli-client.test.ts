import t, { type Test } from 'tap'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from '../cli/index.js'
import type { AwsCredentialSource } from '../cli/client.js'
import { createOrganizationRepository } from '../db/organizations.js'
import { buildTestApp } from './helpers/app.js'
import { startSts, TEST_IDENTITIES } from './helpers/sts.js'

const sts = await startSts()
t.teardown(() => sts.close())

async function setup (t: Test) {
  const test = await buildTestApp({ env: { STS_ENDPOINT: sts.endpoint, AWS_AUTH_SERVER_ID: 'cli-test' } })
  t.teardown(test.close)
  await test.app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`
  const home = await mkdtemp(join(tmpdir(), 'stowage-home-'))
  t.teardown(() => rm(home, { recursive: true, force: true }))
  const env = { HOME: home, XDG_CONFIG_HOME: '', DATABASE_URL: 'sqlite::memory:' }
  const cli = async (argv: string[], awsCredentials?: AwsCredentialSource) => {
    const out: Buffer[] = []
    let stderr = ''
    const code = await runCli(argv, {
      stdout: { write: (chunk) => { out.push(Buffer.from(chunk)) } },
      stderr: { write: (text) => { stderr += text } },
      env
    }, awsCredentials)
    return { code, stdout: Buffer.concat(out).toString(), bytes: Buffer.concat(out), stderr }
  }
  const created = await test.app.keys.create({ userId: 'cli-user', orgId: null })
  return { ...test, url, home, cli, apiKey: created.key }
}

t.test('api-key mode: login, put, ls over every page, get, rm, whoami, keys', async (t) => {
  const { url, home, cli, apiKey } = await setup(t)
  const login = await cli(['login', '--url', url, '--api-key', apiKey])
  t.equal(login.code, 0, login.stderr)
  const configPath = join(home, '.config', 'stowage', 'config.json')
  t.equal((await stat(configPath)).mode & 0o777, 0o600, 'config file is 0600')
  t.equal((await stat(join(home, '.config', 'stowage'))).mode & 0o777, 0o700, 'its folder is 0700')
  t.match(JSON.parse(await readFile(configPath, 'utf8')), { url, mode: 'api-key', apiKey })

  const local = join(home, 'notes.md')
  await writeFile(local, '# Résumé\n')
  const put = await cli(['put', local, 'docs/résumé.md', '--json'])
  t.equal(put.code, 0, put.stderr)
  t.match(JSON.parse(put.stdout), { key: 'docs/résumé.md', contentType: 'text/markdown', size: Buffer.byteLength('# Résumé\n') })

  for (let i = 0; i < 105; i++) await cli(['put', local, `many/${String(i).padStart(3, '0')}.md`])
  const listed = await cli(['ls', 'many/', '--json'])
  t.equal(JSON.parse(listed.stdout).files.length, 105, 'ls follows every page')

  const got = await cli(['get', 'docs/résumé.md'])
  t.equal(got.stdout, '# Résumé\n')
  const outFile = join(home, 'copy.md')
  t.equal((await cli(['get', 'docs/résumé.md', '-o', outFile])).code, 0)
  t.equal(await readFile(outFile, 'utf8'), '# Résumé\n')

  t.equal((await cli(['rm', 'docs/résumé.md'])).code, 0)
  const missing = await cli(['get', 'docs/résumé.md'])
  t.equal(missing.code, 1)
  t.match(missing.stderr, /^stowage: 404/)

  t.match((await cli(['whoami'])).stdout, /^cli-user\n/)
  const key = JSON.parse((await cli(['keys', 'create', '--name', 'ci', '--json'])).stdout)
  t.match(key, { name: 'ci', key: /^stow_/ })
  t.match((await cli(['keys', 'ls'])).stdout, new RegExp(key.id))
  t.equal((await cli(['keys', 'revoke', key.id])).code, 0)
  t.notMatch((await cli(['keys', 'ls'])).stdout, new RegExp(key.id))
})

t.test('login refuses a key the server refuses, and saves nothing', async (t) => {
  const { url, home, cli } = await setup(t)
  const res = await cli(['login', '--url', url, '--api-key', 'stow_nope'])
  t.equal(res.code, 1)
  t.match(res.stderr, /401/)
  await t.rejects(stat(join(home, '.config', 'stowage', 'config.json')))
})

t.test('aws-sso mode signs every request; missing or expired credentials are an error, not a fallback', async (t) => {
  const { app, url, cli, apiKey } = await setup(t)
  const [alice] = TEST_IDENTITIES
  await createOrganizationRepository(app.db).create({ name: 'Alice', awsAccountId: alice.account, authMode: 'aws-sso' })
  const good: AwsCredentialSource = async () => alice
  const login = await cli(['login', '--url', url, '--aws-sso', '--server-id', 'cli-test', '--sts-endpoint', sts.endpoint], good)
  t.equal(login.code, 0, login.stderr)
  t.equal((await cli(['whoami', '--json'], good)).code, 0)

  await cli(['login', '--url', url, '--api-key', apiKey])
  await cli(['login', '--url', url, '--aws-sso', '--server-id', 'cli-test', '--sts-endpoint', sts.endpoint], good)
  const missing = await cli(['ls'], async () => { throw new Error('Could not load credentials from any providers') })
  t.equal(missing.code, 1)
  t.match(missing.stderr, /no AWS credentials/)
  const expired = await cli(['ls'], async () => ({ ...alice, expiration: new Date(Date.now() - 1000) }))
  t.equal(expired.code, 1)
  t.match(expired.stderr, /expired/)
})

t.test('usage mistakes exit 2; not being logged in is explained', async (t) => {
  const { cli } = await setup(t)
  const notLoggedIn = await cli(['ls'])
  t.equal(notLoggedIn.code, 2)
  t.match(notLoggedIn.stderr, /not logged in/)
  for (const argv of [['login'], ['login', '--url', 'ftp://x', '--api-key', 'k'], ['login', '--url', 'http://x'], ['login', '--url', 'http://x', '--aws-sso']]) {
    t.equal((await cli(argv)).code, 2, argv.join(' '))
  }
})
