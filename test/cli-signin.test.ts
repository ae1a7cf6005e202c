import t, { type Test } from 'tap'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fromProcess } from '@aws-sdk/credential-providers'
import { runCli } from '../cli/index.js'
import { buildTestApp } from './helpers/app.js'
import { CLI_COMMAND, runCommand } from './helpers/cli.js'
import { OIDC_AUDIENCE, startOidcProvider } from './helpers/oidc.js'
import { startSts } from './helpers/sts.js'
import { waitFor } from './helpers/wait.js'

// Access tokens live 62 s: the CLI renews a minute before expiry, or at half the life of a shorter token.
const idp = await startOidcProvider({ accessTokenTtl: 62, deviceCodeTtl: 600 })
const sts = await startSts()
t.teardown(async () => { await idp.close(); await sts.close() })

const refreshes = () => idp.seen.tokenRequests.filter((grant) => grant === 'refresh_token').length

async function setup (t: Test, appEnv: Record<string, string | undefined> = {}, provider = idp) {
  const test = await buildTestApp({
    env: { ...provider.serviceEnv, JWT_AUDIENCE: OIDC_AUDIENCE, STS_ENDPOINT: sts.endpoint, CREDENTIALS_ROLE_ARN: 'arn:aws:iam::123456789012:role/stowage-users', ...appEnv }
  })
  t.teardown(test.close)
  await test.app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`
  const home = await mkdtemp(join(tmpdir(), 'stowage-signin-'))
  t.teardown(() => rm(home, { recursive: true, force: true }))
  const configPath = join(home, '.config', 'stowage', 'config.json')
  const env: Record<string, string> = { HOME: home, XDG_CONFIG_HOME: '', STOWAGE_LOGIN_TIMEOUT_SECONDS: '60' }
  /** The command in this process; `onStderr` sees each line as it is written, as a person at the terminal would. */
  const cli = async (argv: string[], onStderr: (line: string) => void = () => {}) => {
    let stdout = ''
    let stderr = ''
    const code = await runCli(argv, {
      stdout: { write: (chunk) => { stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString() } },
      stderr: { write: (text) => { stderr += text; for (const line of text.split('\n')) if (line) onStderr(line) } },
      env
    })
    return { code, stdout, stderr }
  }
  /** `stowage login --url URL --no-browser`, with the test as the person following the printed URL. */
  const login = async (who: string) => {
    let landed: Promise<string> | undefined
    const done = await cli(['login', '--url', url, '--no-browser'], (line) => {
      if (line.startsWith('http')) landed ??= provider.signIn(line, who).then(async (callback) => (await fetch(callback)).text())
    })
    return { ...done, page: await landed }
  }
  const settings = async () => JSON.parse(await readFile(configPath, 'utf8')) as { accessToken: string, refreshToken: string, expiresAt: string, mode: string }
  const writeSettings = async (change: Record<string, string>) => writeFile(configPath, JSON.stringify({ ...await settings(), ...change }), { mode: 0o600 })
  return { ...test, url, home, env, cli, login, settings, writeSettings, configPath }
}

t.test('login in the browser, from the printed URL: then put, ls and get with the JWT; renewed before it expires, the rotated refresh token stored', async (t) => {
  const { cli, login, home, settings, writeSettings } = await setup(t)
  const signed = await login('alice')
  t.equal(signed.code, 0, signed.stderr)
  t.match(signed.stderr, /^http:\/\/127\.0\.0\.1:\d+\/auth\?/m, 'the authorization URL on a line of its own')
  t.match(signed.page, /go back to the terminal/, 'the browser is told where to go')
  t.match(signed.stdout, /Logged in to .* as alice/)
  const first = await settings()
  t.equal(first.mode, 'oidc')

  const local = join(home, 'notes.md')
  await writeFile(local, '# notes\n')
  t.equal((await cli(['put', local, 'notes.md'])).code, 0)
  t.equal(refreshes(), 0, 'no refresh while the access token has more than a minute')

  // As an hour's token in its last minute is stored (this one, of 62 s, is renewed at half its life).
  await writeSettings({ issuedAt: new Date(Date.now() - 3_600_000).toISOString(), expiresAt: new Date(Date.now() + 50_000).toISOString() })
  const before = refreshes()
  const listed = await cli(['ls'])
  t.equal(listed.code, 0, listed.stderr)
  t.match(listed.stdout, /notes\.md/)
  t.equal(refreshes(), before + 1, 'renewed through POST /api/auth/refresh, seen at the provider')
  const second = await settings()
  t.not(second.refreshToken, first.refreshToken, 'the rotated refresh token is the one stored')
  t.equal((await cli(['get', 'notes.md'])).stdout, '# notes\n')
  t.match((await cli(['whoami'])).stdout, /^alice\n.*\nsigned in with the identity provider\n/)
})

t.test('a first run with access tokens of 12 s: login makes the settings folder, ls needs no refresh, and once the token expired ls renews it once', async (t) => {
  const brief = await startOidcProvider({ accessTokenTtl: 12 })
  t.teardown(brief.close)
  const { cli, login, settings, home } = await setup(t, {}, brief)
  const briefRefreshes = () => brief.seen.tokenRequests.filter((grant) => grant === 'refresh_token').length
  await t.rejects(readFile(join(home, '.config')), { code: 'ENOENT' }, 'a new machine: no ~/.config at all')
  const signed = await login('frank')
  t.equal(signed.code, 0, signed.stderr)
  const listed = await cli(['ls'])
  t.equal(listed.code, 0, listed.stderr)
  t.equal(briefRefreshes(), 0, 'a fresh 12 s token is not "expiring soon"')
  const { expiresAt } = await settings()
  await waitFor(() => Date.now() > Date.parse(expiresAt), { what: 'the access token to expire' })
  const again = await cli(['ls'])
  t.equal(again.code, 0, again.stderr)
  t.equal(briefRefreshes(), 1, 'renewed once')
  t.ok(Date.parse((await settings()).expiresAt) > Date.now(), 'the renewed token is stored')
})

t.test('an access token refused before its time is renewed once and the command goes on', async (t) => {
  const { cli, login, writeSettings, settings } = await setup(t)
  t.equal((await login('bob')).code, 0)
  const { accessToken } = await settings()
  // A token the service no longer accepts (tampered here; revoked at a provider that checks it), though not yet expired.
  await writeSettings({ accessToken: accessToken.slice(0, -4) + 'AAAA' })
  const before = refreshes()
  const listed = await cli(['ls'])
  t.equal(listed.code, 0, listed.stderr)
  t.equal(refreshes(), before + 1)
})

t.test('two CLI processes renewing at once both succeed, with one refresh; a third command works', async (t) => {
  const { login, writeSettings, env, cli } = await setup(t)
  t.equal((await login('carol')).code, 0)
  await writeSettings({ expiresAt: new Date(Date.now() - 1000).toISOString() })
  const before = refreshes()
  const run = () => runCommand(CLI_COMMAND[0], [...CLI_COMMAND.slice(1), 'whoami'], { ...process.env, ...env })
  const both = await Promise.all([run(), run()])
  t.same(both.map((result) => result.status), [0, 0], both.map((result) => result.stderr).join(''))
  t.equal(refreshes(), before + 1, 'one refresh: the second process used what the first stored')
  t.equal((await cli(['whoami'])).code, 0, 'a command afterwards works')
})

t.test('a replayed refresh token ends the sign-in: "run stowage login", exit 1', async (t) => {
  const { login, settings, writeSettings, cli, url } = await setup(t)
  t.equal((await login('dave')).code, 0)
  const { refreshToken } = await settings()
  // Someone else used the stored refresh token: the provider rotated it, and the CLI's copy is spent.
  t.equal((await fetch(`${url}/api/auth/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refreshToken }) })).status, 200)
  await writeSettings({ expiresAt: new Date(Date.now() - 1000).toISOString() })
  const refused = await cli(['ls'])
  t.equal(refused.code, 1)
  t.match(refused.stderr, /run "stowage login"/)
})

t.test('login --device: the code is shown and approved on another device; a denied or expired code exits 1 saying so', async (t) => {
  const device = async (url: string, provider: typeof idp, approved?: boolean) => {
    let shown = ''
    let acted: Promise<unknown> | undefined
    const result = await cli(url)(['login', '--url', url, '--device'], (line) => {
      shown += line + '\n'
      const at = /open (\S+)\nand enter the code (\S+)/.exec(shown)
      if (at && approved !== undefined) acted ??= provider.approveDevice(at[1], at[2], 'erin', approved)
    })
    await acted
    return result
  }
  let cli: (url: string) => Awaited<ReturnType<typeof setup>>['cli']
  const { url, cli: here, settings } = await setup(t)
  cli = () => here
  const approved = await device(url, idp, true)
  t.equal(approved.code, 0, approved.stderr)
  t.match(approved.stdout, /as erin/)
  t.equal((await settings()).mode, 'oidc')
  const denied = await device(url, idp, false)
  t.equal(denied.code, 1)
  t.match(denied.stderr, /denied/)

  // Dropped when it expires, as most providers do: polled afterwards, the code is unknown (invalid_grant), not "expired".
  const brief = await startOidcProvider({ deviceCodeTtl: 2, expiredRecords: 'dropped' })
  t.teardown(brief.close)
  const other = await setup(t, {}, brief)
  cli = () => other.cli
  const expired = await device(other.url, brief)
  t.equal(expired.code, 1)
  t.match(expired.stderr, /expired/)
})

t.test('a browser sign-in nobody completes ends with a clear message and exit 1', async (t) => {
  const { cli, url, env } = await setup(t)
  env.STOWAGE_LOGIN_TIMEOUT_SECONDS = '1'
  const abandoned = await cli(['login', '--url', url, '--no-browser'])
  t.equal(abandoned.code, 1)
  t.match(abandoned.stderr, /not completed within 1 s; run "stowage login" again/)
})

t.test('stowage aws-credentials is what the AWS SDK\'s credential_process provider reads: refresh\'s scoped credentials', async (t) => {
  const { login, home } = await setup(t)
  t.equal((await login('frank')).code, 0)
  const config = join(home, 'aws-config')
  const quote = (word: string) => `'${word.replace(/'/g, "'\\''")}'`
  await writeFile(config, `[profile stowage]\ncredential_process = env HOME=${quote(home)} XDG_CONFIG_HOME= ${CLI_COMMAND.map(quote).join(' ')} aws-credentials\n`)
  const credentials = await fromProcess({ profile: 'stowage', filepath: config, configFilepath: config })()
  t.match(credentials.accessKeyId, /^ASIA/)
  t.type(credentials.sessionToken, 'string')
  t.ok(credentials.expiration && credentials.expiration.getTime() > Date.now(), 'with its expiry')
  const call = sts.state.calls.at(-1)!
  t.equal(call.action, 'AssumeRoleWithWebIdentity')
  t.match(JSON.parse(call.params.Policy).Statement[0].Resource, /users\/frank\/files\/\*$/, 'scoped to the user\'s prefix')
})

t.test('aws-credentials says so when the deployment hands out none', async (t) => {
  const { login, cli } = await setup(t, { CREDENTIALS_ROLE_ARN: undefined })
  t.equal((await login('gina')).code, 0)
  const none = await cli(['aws-credentials'])
  t.equal(none.code, 1)
  t.match(none.stderr, /hands out no AWS credentials/)
})

t.test('logout revokes: the provider refuses that refresh token afterwards, and the settings are gone', async (t) => {
  const { login, cli, settings, url, configPath } = await setup(t)
  t.equal((await login('hal')).code, 0)
  const { refreshToken } = await settings()
  const out = await cli(['logout'])
  t.equal(out.code, 0, out.stderr)
  t.equal((await fetch(`${url}/api/auth/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refreshToken }) })).status, 401)
  await t.rejects(readFile(configPath), 'forgotten')
  t.match((await cli(['ls'])).stderr, /not logged in/)
})
