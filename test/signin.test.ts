import { UNAUTHORIZED } from '../plugins/errors.js'
import t, { type Test } from 'tap'
import { createHash, randomBytes } from 'node:crypto'
import { bearer, buildTestApp } from './helpers/app.js'
import { OIDC_AUDIENCE, OIDC_CLIENT, startOidcProvider } from './helpers/oidc.js'
import { DEFAULT_OIDC_SCOPE } from '../defaults.js'
import { startService } from './helpers/service.js'
import { startSts } from './helpers/sts.js'
import { captureLogs, waitFor } from './helpers/wait.js'

// Its own memory adapter keeps an expired device code long enough to answer expired_token.
const idp = await startOidcProvider({ deviceCodeTtl: 8, expiredRecords: 'kept' })
const sts = await startSts()
t.teardown(async () => { await idp.close(); await sts.close() })

const REDIRECT = 'http://127.0.0.1:53682/callback'

async function serve (t: Test, env: Record<string, string | undefined> = {}) {
  const logs = captureLogs()
  const test = await buildTestApp({
    env: { ...idp.serviceEnv, JWT_AUDIENCE: OIDC_AUDIENCE, STS_ENDPOINT: sts.endpoint, CREDENTIALS_ROLE_ARN: 'arn:aws:iam::123456789012:role/stowage-users', LOG_LEVEL: 'trace', ...env },
    logStream: logs.stream
  })
  t.teardown(test.close)
  const post = (url: string, payload?: object) => test.app.inject({ method: 'POST', url, payload })
  return { ...test, logs, post }
}

/** What a client does before it asks the service: a PKCE pair, the authorization URL, the person's sign-in. */
async function authorize (login: string, { method = 'S256', redirectUri = REDIRECT, scope = 'openid offline_access' } = {}) {
  const codeVerifier = randomBytes(32).toString('base64url')
  const challenge = method === 'S256' ? createHash('sha256').update(codeVerifier).digest('base64url') : codeVerifier
  const url = new URL(`${idp.issuer}/auth`)
  for (const [name, value] of Object.entries({
    client_id: OIDC_CLIENT.id, response_type: 'code', scope, prompt: 'consent',
    redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: method, state: 'some-state'
  })) url.searchParams.set(name, value)
  const landed = new URL(await idp.signIn(url.toString(), login))
  const code = landed.searchParams.get('code')
  if (!code) throw new Error(`no code: ${landed.searchParams.get('error')}`)
  return { code, codeVerifier, redirectUri }
}

t.test('the protected resource metadata names the provider and the client; every 401 points at it', async (t) => {
  const { app } = await serve(t, { PUBLIC_URL: 'https://files.example.com' })
  const res = await app.inject({ url: '/.well-known/oauth-protected-resource' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), {
    resource: 'https://files.example.com',
    authorization_servers: [idp.issuer],
    bearer_methods_supported: ['header'],
    scopes_supported: ['openid', 'email', 'profile', 'offline_access'],
    client_id: OIDC_CLIENT.id
  })
  const refused = await app.inject({ url: '/api/files' })
  t.equal(refused.statusCode, 401)
  t.equal(refused.headers['www-authenticate'], 'Bearer resource_metadata="https://files.example.com/.well-known/oauth-protected-resource"')

  const { app: plain, close } = await buildTestApp()
  t.teardown(close)
  t.equal((await plain.inject({ url: '/.well-known/oauth-protected-resource' })).statusCode, 404, 'no provider: 404')
  t.equal((await plain.inject({ url: '/api/files' })).headers['www-authenticate'], 'Bearer')
})

t.test('an authorization code and its verifier become tokens, a refresh token and scoped credentials; the tokens work', async (t) => {
  const { app, post, logs } = await serve(t)
  const { code, codeVerifier, redirectUri } = await authorize('alice')
  const res = await post('/api/auth/token', { code, codeVerifier, redirectUri })
  t.equal(res.statusCode, 200, res.payload)
  const body = res.json()
  t.match(body, { accessToken: String, idToken: String, refreshToken: String, expiresIn: Number, credentials: { accessKeyId: /^ASIA/ } })
  t.equal((await app.inject({ url: '/api/auth/credentials', headers: bearer(body.accessToken) })).json().userId, 'alice', 'the access token is a JWT the chain accepts')

  const refreshed = await post('/api/auth/refresh', { refreshToken: body.refreshToken })
  t.equal(refreshed.statusCode, 200)
  t.not(refreshed.json().refreshToken, body.refreshToken, 'the provider rotated it')
  const replayed = await post('/api/auth/refresh', { refreshToken: body.refreshToken })
  t.equal(replayed.statusCode, 401, 'a used refresh token is refused')
  t.equal((await post('/api/auth/refresh', { refreshToken: refreshed.json().refreshToken })).statusCode, 401, 'and the provider revoked the grant it came from')

  const text = logs.text()
  for (const secret of [code!, codeVerifier, body.refreshToken, body.accessToken, body.credentials.secretAccessKey]) {
    t.notOk(text.includes(secret), 'no code, verifier or token in the log')
  }
})

t.test('refused exchanges: a wrong verifier, a reused code, a plain challenge, a redirect URI outside the allowlist', async (t) => {
  const { post } = await serve(t, { PUBLIC_URL: 'https://files.example.com' })
  const first = await authorize('alice')
  const wrong = await post('/api/auth/token', { ...first, codeVerifier: randomBytes(32).toString('base64url') })
  t.equal(wrong.statusCode, 401, 'a wrong verifier')
  t.same(wrong.json(), { error: UNAUTHORIZED })

  const second = await authorize('alice')
  t.equal((await post('/api/auth/token', second)).statusCode, 200)
  t.equal((await post('/api/auth/token', second)).statusCode, 401, 'a code used once already')

  await t.rejects(authorize('alice', { method: 'plain' }), /no code: invalid_request/, 'the provider issues no code for a plain challenge')

  for (const redirectUri of ['https://evil.example.com/callback', 'http://localhost:5000/cb', 'http://127.0.0.1/no-port', 'https://files.example.com/other/', 'http://127.0.0.1:5000/cb#fragment',
    'https://files.example.com/console/files/', 'https://files.example.com/console/callback?next=/elsewhere']) {
    const refused = await post('/api/auth/token', { ...(await authorize('alice')), redirectUri })
    t.equal(refused.statusCode, 400, redirectUri)
    t.match(refused.json(), { error: /redirectUri/ })
  }
  t.equal((await post('/api/auth/token', { code: 'x', codeVerifier: 'too-short', redirectUri: REDIRECT })).statusCode, 400, 'a verifier that is not one')
  t.equal((await post('/api/auth/token', { code: 'x' })).statusCode, 400, 'a body that is neither grant')
})

t.test('the provider is given the redirect URI exactly as it was checked, not the string as sent', async (t) => {
  const { app } = await serve(t, { PUBLIC_URL: 'https://files.example.com' })
  const pkce = { codeChallenge: 'c'.repeat(43), state: 's'.repeat(43) }
  const redirectOf = async (redirectUri: string) => {
    const answer = await app.inject({ url: `/console/sign-in?${new URLSearchParams({ redirectUri, ...pkce })}` })
    t.equal(answer.statusCode, 302)
    return new URL(answer.headers.location as string).searchParams.get('redirect_uri')
  }
  // Read as a URL, this is 127.0.0.1:9999 with the path /@evil.example/; a looser parser reads evil.example.
  t.equal(await redirectOf('http://127.0.0.1:9999\\@evil.example/'), 'http://127.0.0.1:9999/@evil.example/')
  t.equal(await redirectOf('https://files.example.com/console/callback'), 'https://files.example.com/console/callback')
  const elsewhere = await app.inject({ url: `/console/sign-in?${new URLSearchParams({ redirectUri: 'https://files.example.com/console/files/', ...pkce })}` })
  t.match(new URL(elsewhere.headers.location as string, 'https://files.example.com').searchParams.get('error_description'), /PUBLIC_URL/, 'only the console\'s callback under PUBLIC_URL')
})

t.test('with JWT_AUDIENCE unset, an ID token (issued to the service\'s client) is refused as a bearer token; the access token (at+jwt) works', async (t) => {
  const { post, app } = await serve(t, { JWT_AUDIENCE: '' })
  const tokens = (await post('/api/auth/token', await authorize('ivan'))).json()
  const credentials = (token: string) => app.inject({ url: '/api/auth/credentials', headers: bearer(token) })
  t.equal(JSON.parse(Buffer.from(tokens.accessToken.split('.')[0], 'base64url').toString()).typ, 'at+jwt', 'the provider types its access tokens')
  t.equal((await credentials(tokens.accessToken)).statusCode, 200)
  t.equal(JSON.parse(Buffer.from(tokens.idToken.split('.')[1], 'base64url').toString()).aud, OIDC_CLIENT.id)
  t.equal((await credentials(tokens.idToken)).statusCode, 401)
})

t.test('a person signed in through the provider is known by the email and name her access token carries (the email and profile scopes); a colleague finds her and shares with her by email', async (t) => {
  const { post, app } = await serve(t)
  const signedIn = async (login: string, scope = DEFAULT_OIDC_SCOPE) => {
    const tokens = await post('/api/auth/token', await authorize(login, { scope }))
    t.equal(tokens.statusCode, 200, `${login} signed in`)
    return bearer(tokens.json().accessToken)
  }
  const ada = await signedIn('acme-ada')
  const bea = await signedIn('acme-bea')
  t.same((await app.inject({ url: '/api/me', headers: bea })).json(), { userId: 'acme-bea', orgId: 'acme', email: 'acme-bea@example.test', name: 'Acme Bea' })
  t.same((await app.inject({ url: '/api/people?q=acme%20b', headers: ada })).json().people, [{ userId: 'acme-bea', email: 'acme-bea@example.test', name: 'Acme Bea' }], 'found by the start of her name')
  t.equal((await app.inject({ method: 'PUT', url: '/api/raw/plan.md', headers: ada, payload: 'the plan' })).statusCode, 200)
  const shared = await app.inject({ method: 'POST', url: '/api/shares', headers: ada, payload: { path: 'plan.md', with: { email: 'ACME-BEA@example.test' }, role: 'viewer' } })
  t.equal(shared.statusCode, 201, shared.payload)
  t.same(shared.json().with, { userId: 'acme-bea', email: 'acme-bea@example.test', name: 'Acme Bea' })
  t.equal((await app.inject({ url: '/api/raw/plan.md', headers: bea })).body, 'the plan', 'she reads it through her mount')
  // Without those scopes the token names nobody: the person is known by her id alone.
  const cai = await signedIn('acme-cai', 'openid offline_access')
  t.same((await app.inject({ url: '/api/me', headers: cai })).json(), { userId: 'acme-cai', orgId: 'acme' })
})

t.test('the device grant: pending, approved; denied; expired', async (t) => {
  const { post, app } = await serve(t)
  const started = await post('/api/auth/device')
  t.equal(started.statusCode, 200)
  const device = started.json()
  t.match(device, { deviceCode: String, userCode: String, verificationUri: String, expiresIn: Number, interval: Number })
  const pending = await post('/api/auth/token', { deviceCode: device.deviceCode })
  t.equal(pending.statusCode, 400)
  t.match(pending.json(), { error: String, code: 'authorization_pending' })
  await idp.approveDevice(device.verificationUri, device.userCode, 'bob')
  const tooSoon = await post('/api/auth/token', { deviceCode: device.deviceCode })
  t.equal(tooSoon.statusCode, 400, 'polled again within 5 s')
  t.match(tooSoon.json(), { code: 'slow_down' })
  const polls = idp.seen.tokenRequests.length
  let approved = tooSoon
  await waitFor(async () => {
    approved = await post('/api/auth/token', { deviceCode: device.deviceCode })
    return approved.json().code !== 'slow_down'
  }, { what: 'the device code\'s next poll' })
  t.equal(approved.statusCode, 200, approved.payload)
  t.equal(idp.seen.tokenRequests.length, polls + 1, 'polls that came too soon never reached the provider')
  t.equal((await app.inject({ url: '/api/auth/credentials', headers: bearer(approved.json().accessToken) })).json().userId, 'bob')

  const denied = (await post('/api/auth/device')).json()
  await idp.approveDevice(denied.verificationUri, denied.userCode, 'bob', false)
  t.equal((await post('/api/auth/token', { deviceCode: denied.deviceCode })).statusCode, 401, 'denied')

  const expiring = (await post('/api/auth/device')).json()
  await new Promise((resolve) => setTimeout(resolve, (expiring.expiresIn + 1) * 1000))
  const expired = await post('/api/auth/token', { deviceCode: expiring.deviceCode })
  t.equal(expired.statusCode, 400)
  t.match(expired.json(), { code: 'expired_token' })
})

t.test('every call that reaches the provider counts against the address: past IDP_CALLS_PER_ADDRESS, 429 with Retry-After, and the provider is not called', async (t) => {
  const { post } = await serve(t, { IDP_CALLS_PER_ADDRESS: '4' })
  const seen = () => ({ grants: idp.seen.tokenRequests.length, revocations: idp.seen.revocations })
  const statuses = []
  for (let i = 0; i < 3; i++) statuses.push((await post('/api/auth/device')).statusCode)
  statuses.push((await post('/api/auth/logout', { refreshToken: 'junk' })).statusCode)
  t.same(statuses, [200, 200, 200, 204], 'four calls, whatever their outcome')
  const before = seen()
  for (const [url, body] of [['/api/auth/device'], ['/api/auth/logout', { refreshToken: 'junk' }], ['/api/auth/refresh', { refreshToken: 'junk' }], ['/api/auth/token', await authorize('dora')]] as const) {
    const refused = await post(url, body)
    t.equal(refused.statusCode, 429, url)
    t.match(refused.headers['retry-after'], /^\d+$/)
    t.match(refused.json(), { error: /too many calls to the identity provider/ })
  }
  t.same(seen(), before, 'none of them reached the provider')
})

t.test('two instances on PostgreSQL count an address\'s calls to the provider together', {
  skip: !process.env.TEST_DATABASE_URL && 'instances share their counts through PostgreSQL (TEST_DATABASE_URL)'
}, async (t) => {
  const { servers } = await startService(t, { instances: 2, env: { ...idp.serviceEnv, JWT_AUDIENCE: OIDC_AUDIENCE, IDP_CALLS_PER_ADDRESS: '6', LOG_LEVEL: 'warn' } })
  const statuses = []
  for (let i = 0; i < 8; i++) statuses.push((await fetch(`${servers[i % 2].url}/api/auth/device`, { method: 'POST' })).status)
  t.same(statuses, [200, 200, 200, 200, 200, 200, 429, 429], 'six in all, spread over both instances')
})

t.test('logout revokes the refresh token at the provider', async (t) => {
  const { post } = await serve(t)
  const tokens = (await post('/api/auth/token', await authorize('carol'))).json()
  const out = await post('/api/auth/logout', { refreshToken: tokens.refreshToken })
  t.equal(out.statusCode, 204)
  t.equal((await post('/api/auth/refresh', { refreshToken: tokens.refreshToken })).statusCode, 401, 'the provider refuses it afterwards')
  t.equal((await post('/api/auth/logout', {})).statusCode, 400)
})

t.test('these routes count against the per-address failure limit', async (t) => {
  const { post } = await serve(t, { AUTH_FAILURES_PER_ADDRESS: '3' })
  for (let i = 0; i < 3; i++) t.equal((await post('/api/auth/refresh', { refreshToken: `made-up-${i}` })).statusCode, 401)
  const throttled = await post('/api/auth/token', await authorize('dave'))
  t.equal(throttled.statusCode, 429)
  t.ok(throttled.headers['retry-after'])
})
