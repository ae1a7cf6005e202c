import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { Page } from 'playwright-core'
import { buildTestApp } from './helpers/app.js'
import { accessibilityProblems, browserFixture, noBrowser as skip, pageProblems } from './helpers/browser.js'
import { startOidcProvider } from './helpers/oidc.js'
import { serviceEnv } from './helpers/s3.js'
import { startServerProcess } from './helpers/server.js'

// The console as deployed: the service in a process of its own on s3rver, signing people in through
// oidc-provider, whose development login page accepts any name. Access tokens live 20 seconds, less
// than the console's 30 seconds of margin, so that every call it makes renews the session first.
const idp = skip ? undefined : await startOidcProvider({ accessTokenTtl: 20 })
const fixture = await browserFixture()
const { s3 } = fixture
t.teardown(async () => { await idp?.close() })

/** The provider's pages, as a person goes through them: log in as `login`, then allow Stowage. */
async function logInAtProvider (page: Page, login: string) {
  await page.locator('input[name="login"]').fill(login)
  await page.locator('input[name="password"]').fill('any')
  await page.locator('button[type="submit"]').click()
  await page.locator('button[type="submit"]', { hasText: /continue/i }).click()
}

t.test('a person signs in through the identity provider, lands on the folder they opened, stays signed in as tokens expire, makes a key and signs in with it, and signing out revokes', { skip }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-console-idp-'))
  const server = await startServerProcess({ DATABASE_URL: `sqlite:${join(dir, 'stowage.db')}`, STORAGE_DRIVER: 's3', ...serviceEnv(s3!), ...idp!.serviceEnv })
  t.teardown(async () => {
    server.child.kill('SIGTERM')
    await server.exited
    await rm(dir, { recursive: true, force: true })
  })
  const context = await fixture.browser!.newContext()
  t.teardown(() => context.close())
  const page = await context.newPage()
  const problems = pageProblems(page, server.url)

  await page.goto(`${server.url}/console/files/reports/2026/`)
  const signIn = page.getByRole('button', { name: 'Sign in', exact: true })
  await signIn.waitFor()
  t.same(await accessibilityProblems(page), [], 'the sign-in view has no serious or critical violation')
  await signIn.click()
  t.equal(new URL(page.url()).origin, idp!.issuer, 'sent to the identity provider')
  await logInAtProvider(page, 'carol')

  const table = page.getByRole('table')
  await page.getByText(/^This folder is empty\./).waitFor()
  t.equal(new URL(page.url()).pathname, '/console/files/reports/2026/', 'back on the folder opened before signing in')
  t.equal(new URL(page.url()).search, '', 'no code or state left in the address')

  const chooser = page.waitForEvent('filechooser')
  await page.getByRole('button', { name: 'Upload', exact: true }).click()
  await (await chooser).setFiles({ name: 'q3.csv', mimeType: 'text/csv', buffer: Buffer.from('quarter,total\n3,42\n') })
  await table.getByRole('row', { name: 'q3.csv' }).waitFor()
  const stored = await page.evaluate(() => ({ local: localStorage.length, session: JSON.parse(sessionStorage.getItem('stowage.session') ?? '{}') as Record<string, unknown> }))
  t.equal(stored.local, 0, 'nothing in localStorage')
  t.match(stored.session, { method: 'idp', token: String, refreshToken: String }, 'the tokens are kept in this tab only')
  t.ok(idp!.seen.tokenRequests.includes('refresh_token'), 'the short-lived access token was renewed through the service')

  const files = await fetch(`${server.url}/api/raw/reports/2026/q3.csv`, { headers: { authorization: `Bearer ${String(stored.session.token)}` } })
  t.equal(await files.text(), 'quarter,total\n3,42\n', 'uploaded under carol\'s own prefix')

  // A key for a machine without the provider, made here and used to sign in the other way.
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'API keys' }).click()
  await page.getByLabel('Name').fill('backup job')
  await page.getByRole('button', { name: 'Create key' }).click()
  const secret = (await page.getByRole('status').locator('output').textContent())!

  const revocations = idp!.seen.revocations
  await page.getByRole('button', { name: 'Sign out' }).click()
  await signIn.waitFor()
  t.equal(await page.evaluate(() => sessionStorage.length), 0, 'signing out forgets the tokens')
  t.ok(idp!.seen.revocations > revocations, 'and revokes the refresh token at the provider')

  await page.getByLabel('API key').fill(secret)
  await page.getByRole('button', { name: 'Sign in with an API key' }).click()
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'My files' }).click()
  await table.getByRole('link', { name: 'reports/' }).waitFor()
  t.pass('the key made in the console signs carol in, to the same files')
  await page.getByRole('button', { name: 'Sign out' }).click()
  await signIn.waitFor()
  const reused = await fetch(`${server.url}/api/auth/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refreshToken: stored.session.refreshToken }) })
  t.equal(reused.status, 401, 'a refresh token kept from before signing out no longer works')
  t.same(problems, [], 'no script error and no Content-Security-Policy violation')
  const logged = server.logs.map((line) => JSON.stringify(line)).join('\n')
  t.match(logged, '/console/callback?code=[redacted]', 'the provider\'s redirect is logged')
  t.notMatch(logged, /[?&](code|state|codeChallenge)=(?!\[redacted\])/, 'without its code, state or PKCE challenge')
  t.notMatch(logged, String(stored.session.refreshToken), 'and no token in the service\'s log')
})

t.test('a sign-in that is cancelled, forged or cannot start says so, and the person can sign in again', { skip }, async (t) => {
  const { app, close } = await buildTestApp({ driver: 'fs', env: idp!.serviceEnv })
  t.teardown(close)
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const context = await fixture.browser!.newContext()
  t.teardown(() => context.close())
  const page = await context.newPage()

  await page.goto(`${url}/console/callback?error=access_denied&state=x`)
  await page.getByRole('alert').filter({ hasText: 'The sign-in was cancelled.' }).waitFor()
  await page.goto(`${url}/console/callback?code=stolen&state=not-this-tabs`)
  await page.getByRole('alert').filter({ hasText: 'This sign-in was not started in this tab' }).waitFor()
  t.same(await accessibilityProblems(page), [])
  await page.getByRole('link', { name: 'Sign in again' }).click()
  await page.getByRole('button', { name: 'Sign in with an API key' }).waitFor()
  t.pass('each says what happened and leads back to signing in')

  // A redirect URI the service would not exchange a code for is refused before the provider is asked.
  const refused = await fetch(`${url}/console/sign-in?${new URLSearchParams({ redirectUri: 'https://elsewhere.example/console/callback', codeChallenge: 'c'.repeat(43), state: 's'.repeat(43) })}`, { redirect: 'manual' })
  t.equal(refused.status, 302)
  const back = new URL(refused.headers.get('location')!, url)
  t.equal(back.pathname, '/console/callback', 'sent back to the console, not elsewhere')
  t.match(back.searchParams.get('error_description'), /PUBLIC_URL/)
  const malformed = await fetch(`${url}/console/sign-in?redirectUri=x&codeChallenge=short&state=short`, { redirect: 'manual' })
  t.equal(malformed.status, 400)
})

t.test('with no identity provider, the console offers API keys only, and its sign-in route says why', { skip }, async (t) => {
  const { app, close } = await buildTestApp({ driver: 'fs' })
  t.teardown(close)
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const page = await (await fixture.browser!.newContext()).newPage()
  t.teardown(() => page.context().close())
  await page.goto(`${url}/console/`)
  await page.getByRole('button', { name: 'Sign in with an API key' }).waitFor()
  t.equal(await page.getByRole('button', { name: 'Sign in', exact: true }).count(), 0)
  const started = await fetch(`${url}/console/sign-in?${new URLSearchParams({ redirectUri: `${url}/console/callback`, codeChallenge: 'c'.repeat(43), state: 's'.repeat(43) })}`, { redirect: 'manual' })
  t.match(new URL(started.headers.get('location')!, url).searchParams.get('error_description'), /not configured/)
})
