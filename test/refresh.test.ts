import { UNAUTHORIZED } from '../plugins/errors.js'
import t, { type Test } from 'tap'
import { bearer, buildTestApp } from './helpers/app.js'
import { startIdp } from './helpers/idp.js'
import { closedPortUrl } from './helpers/net.js'
import { startSts } from './helpers/sts.js'
import { timed } from './helpers/wait.js'

const idp = await startIdp()
const sts = await startSts()
t.teardown(async () => { await idp.close(); await sts.close() })

const ROLE_ARN = 'arn:aws:iam::123456789012:role/stowage-users'

async function setup (t: Test, env: Record<string, string | undefined> = {}) {
  const test = await buildTestApp({
    idp,
    env: { STS_ENDPOINT: sts.endpoint, CREDENTIALS_ROLE_ARN: ROLE_ARN, OIDC_CLIENT_ID: 'stowage', OIDC_CLIENT_SECRET: 'client-secret', ...env }
  })
  t.teardown(test.close)
  const refresh = (body: unknown, headers: Record<string, string> = {}) =>
    test.app.inject({ method: 'POST', url: '/api/auth/refresh', headers, payload: body as object })
  return { ...test, refresh }
}

t.test('refresh returns fresh tokens and credentials that expire one hour out', async (t) => {
  const { app, refresh } = await setup(t)
  const refreshToken = idp.addRefreshGrant({ userId: 'alice' })
  const callsBefore = sts.state.calls.length
  const res = await refresh({ refreshToken })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.type(body.accessToken, 'string')
  t.type(body.idToken, 'string')
  t.match(body.credentials, { accessKeyId: /^ASIA/, secretAccessKey: String, sessionToken: String })
  const lifetime = new Date(body.credentials.expiration).getTime() - Date.now()
  t.ok(Math.abs(lifetime - 3600_000) < 60_000, `expires in ${Math.round(lifetime / 1000)} s`)

  const tokenRequest = idp.state.tokenRequests.at(-1)!
  t.match(tokenRequest, { grant_type: 'refresh_token', refresh_token: refreshToken })
  const [call] = sts.state.calls.slice(callsBefore)
  t.equal(call.action, 'AssumeRoleWithWebIdentity')
  t.match(call.params, { RoleArn: ROLE_ARN, DurationSeconds: '3600', WebIdentityToken: body.idToken, RoleSessionName: 'stowage-alice' })

  const policy = JSON.parse(call.params.Policy)
  t.same(policy.Statement.map((s: { Resource: string }) => s.Resource), ['arn:aws:s3:::stowage/users/alice/files/*', 'arn:aws:s3:::stowage'])
  t.same(policy.Statement[1], {
    Effect: 'Allow', Action: 's3:ListBucket', Resource: 'arn:aws:s3:::stowage',
    Condition: { StringLike: { 's3:prefix': ['users/alice/files/*'] } }
  }, 'listing only under the user prefix')
  t.ok(policy.Statement.every((s: { Effect: string, Action: string | string[] }) =>
    s.Effect === 'Allow' && [s.Action].flat().every((a) => a.startsWith('s3:'))), 'S3 only')

  t.equal((await app.inject({ url: '/api/auth/credentials', headers: bearer(body.accessToken) })).json().userId, 'alice',
    'the new access token works')
})

t.test('the refreshed credentials only read, with or without a quota: every write passes through Stowage', async (t) => {
  const actionsOf = () => JSON.parse(sts.state.calls.at(-1)!.params.Policy).Statement[0].Action
  for (const env of [{}, { QUOTA_BYTES: '1048576' }]) {
    const { refresh } = await setup(t, env)
    t.equal((await refresh({ refreshToken: idp.addRefreshGrant({ userId: 'alice' }) })).statusCode, 200)
    t.same(actionsOf(), ['s3:GetObject'], `read only${'QUOTA_BYTES' in env ? ', under a quota' : ', without a quota'}`)
  }
})

t.test('CREDENTIALS_TTL_SECONDS sets the duration asked of STS', async (t) => {
  const { refresh } = await setup(t, { CREDENTIALS_TTL_SECONDS: '900' })
  const res = await refresh({ refreshToken: idp.addRefreshGrant({ userId: 'alice' }) })
  t.equal(res.statusCode, 200)
  t.equal(sts.state.calls.at(-1)!.params.DurationSeconds, '900')
})

t.test('a refused refresh token is 401', async (t) => {
  const { refresh } = await setup(t)
  const res = await refresh({ refreshToken: 'not-a-grant' })
  t.equal(res.statusCode, 401)
  t.same(res.json(), { error: UNAUTHORIZED })
})

t.test('a malformed body is 400, a body that is not JSON 415', async (t) => {
  const { refresh, app } = await setup(t)
  for (const body of [{}, { refreshToken: '' }, { refreshToken: 5 }, { refreshToken: 'x', extra: 1 }, { refresh_token: 'x' }]) {
    const res = await refresh(body)
    t.equal(res.statusCode, 400, JSON.stringify(body))
    t.type(res.json().error, 'string')
  }
  const broken = await app.inject({ method: 'POST', url: '/api/auth/refresh', headers: { 'content-type': 'application/json' }, payload: '{"refreshToken":' })
  t.equal(broken.statusCode, 400)
  const text = await app.inject({ method: 'POST', url: '/api/auth/refresh', headers: { 'content-type': 'text/plain' }, payload: 'token' })
  t.equal(text.statusCode, 415)
})

t.test('an identity provider that answers with an error is 502; one that cannot be reached is 503; no internals', async (t) => {
  const { refresh } = await setup(t)
  idp.state.failTokenEndpoint = true
  t.teardown(() => { idp.state.failTokenEndpoint = false })
  const failing = await refresh({ refreshToken: idp.addRefreshGrant({ userId: 'alice' }) })
  t.equal(failing.statusCode, 502)
  t.match(failing.json(), { error: /identity provider/ })

  const unreachable = await setup(t, { OIDC_TOKEN_URL: await closedPortUrl() })
  const res = await unreachable.refresh({ refreshToken: 'anything' })
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '5')
  t.notMatch(res.body, /ECONNREFUSED|127\.0\.0\.1/)
})

t.test('an STS that refuses is 502; one that is down is 503, and refresh works again once it is back', async (t) => {
  const { refresh } = await setup(t)
  sts.state.failAssumeRole = true
  const refused = await refresh({ refreshToken: idp.addRefreshGrant({ userId: 'alice' }) })
  sts.state.failAssumeRole = false
  t.equal(refused.statusCode, 502)
  t.match(refused.json(), { error: /security token service/ })

  const down = await setup(t, { STS_ENDPOINT: await closedPortUrl() })
  const res = await down.refresh({ refreshToken: idp.addRefreshGrant({ userId: 'alice' }) })
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '5')
  t.same(res.json(), { error: 'the AWS security token service is unavailable, try again shortly' })
})

t.test('an STS that stops answering is 503 within UPSTREAM_TIMEOUT_MS, retries included, and refresh recovers', async (t) => {
  const own = await startSts()
  t.teardown(() => own.close())
  const { refresh } = await setup(t, { STS_ENDPOINT: own.endpoint, UPSTREAM_TIMEOUT_MS: '1000' })
  own.hang()
  const { result: res, ms } = await timed(() => refresh({ refreshToken: idp.addRefreshGrant({ userId: 'alice' }) }))
  t.equal(res.statusCode, 503)
  t.ok(ms < 10_000, `answered in ${Math.round(ms)} ms`)
  own.resume()
  t.equal((await refresh({ refreshToken: idp.addRefreshGrant({ userId: 'alice' }) })).statusCode, 200)
})

t.test('without CREDENTIALS_ROLE_ARN refresh answers tokens and no credentials; without a client, 503: not configured', async (t) => {
  const { refresh } = await setup(t, { CREDENTIALS_ROLE_ARN: undefined })
  const callsBefore = sts.state.calls.length
  const res = await refresh({ refreshToken: idp.addRefreshGrant({ userId: 'alice' }) })
  t.equal(res.statusCode, 200)
  t.type(res.json().accessToken, 'string')
  t.notOk('credentials' in res.json(), 'no AWS credentials')
  t.equal(sts.state.calls.length, callsBefore, 'STS not asked')

  const unconfigured = await setup(t, { OIDC_CLIENT_ID: undefined, OIDC_CLIENT_SECRET: undefined })
  const refused = await unconfigured.refresh({ refreshToken: idp.addRefreshGrant({ userId: 'alice' }) })
  t.equal(refused.statusCode, 503)
  t.match(refused.json(), { error: /not configured/ })
  t.notOk('retry-after' in refused.headers, 'no Retry-After: trying again will not help')
})

t.test('refresh tokens and issued secrets never reach the logs', async (t) => {
  const lines: string[] = []
  const { app, close } = await buildTestApp({
    idp,
    env: { STS_ENDPOINT: sts.endpoint, CREDENTIALS_ROLE_ARN: ROLE_ARN, OIDC_CLIENT_ID: 'stowage', LOG_LEVEL: 'trace' },
    logStream: { write: (line) => { lines.push(line) } }
  })
  t.teardown(close)
  const refreshToken = idp.addRefreshGrant({ userId: 'alice' })
  const res = await app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken } })
  t.equal(res.statusCode, 200)
  const log = lines.join('')
  t.ok(log.includes('/api/auth/refresh'))
  t.notOk(log.includes(refreshToken), 'no refresh token')
  t.notOk(log.includes(res.json().credentials.secretAccessKey), 'no secret key')
  t.notOk(log.includes(res.json().credentials.sessionToken), 'no session token')
})
