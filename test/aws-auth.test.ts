import { UNAUTHORIZED } from '../plugins/errors.js'
import t, { type Test } from 'tap'
import { createOrganizationRepository } from '../db/organizations.js'
import { signCallerIdentity } from '../identity/aws-signing.js'
import { buildTestApp } from './helpers/app.js'
import { closedPortUrl } from './helpers/net.js'
import { startSts, TEST_IDENTITIES } from './helpers/sts.js'
import { timed } from './helpers/wait.js'

const sts = await startSts()
t.teardown(() => sts.close())

const SERVER_ID = 'stowage-test'
const [alice, bob, carol] = TEST_IDENTITIES

async function setup (t: Test, env: Record<string, string> = {}) {
  const test = await buildTestApp({ env: { STS_ENDPOINT: sts.endpoint, AWS_AUTH_SERVER_ID: SERVER_ID, ...env } })
  t.teardown(test.close)
  const orgs = createOrganizationRepository(test.app.stowageDb)
  const ssoOrg = await orgs.create({ name: 'Alice Co', awsAccountId: alice.account, authMode: 'aws-sso' })
  await orgs.create({ name: 'Bob Co', awsAccountId: bob.account, authMode: 'platform' })
  const credentials = (headers: Record<string, string>) => test.app.inject({ url: '/api/auth/credentials', headers })
  return { ...test, ssoOrg, orgs, credentials }
}

const sign = (identity = alice, options: { serverId?: string, signingDate?: Date, stsEndpoint?: string } = {}) => signCallerIdentity({
  stsEndpoint: options.stsEndpoint ?? sts.endpoint,
  region: 'us-east-1',
  serverId: options.serverId ?? SERVER_ID,
  credentials: identity,
  signingDate: options.signingDate
})

const stsCalls = () => sts.state.calls.filter((call) => call.action === 'GetCallerIdentity').length

t.test('a signed caller identity of an aws-sso organization is accepted, with a stable userId', async (t) => {
  const { app, ssoOrg, credentials } = await setup(t)
  const first = await credentials(await sign())
  t.equal(first.statusCode, 200)
  const { userId, prefix } = first.json()
  t.match(userId, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  t.equal(prefix, `users/${userId}/files/`)
  const second = await credentials(await sign(alice, { signingDate: new Date(Date.now() - 60_000) }))
  t.equal(second.json().userId, userId, 'the same ARN gives the same userId')

  const call = sts.state.calls.at(-1)!
  t.equal(call.params.Action, 'GetCallerIdentity')
  t.equal(call.headers.accept, 'application/json')
  t.equal(call.headers['content-type'], 'application/x-www-form-urlencoded; charset=utf-8')

  const created = await app.inject({ method: 'POST', url: '/api/keys', headers: await sign(), payload: {} })
  const row = await app.stowageDb.selectFrom('api_keys').selectAll().where('id', '=', created.json().id).executeTakeFirstOrThrow()
  t.match(row, { user_id: userId, org_id: ssoOrg.id }, 'orgId is the organization of the account')
})

t.test('session credentials work, their token forwarded signed', async (t) => {
  const { orgs, credentials } = await setup(t)
  await orgs.create({ name: 'Bob SSO', awsAccountId: bob.account, authMode: 'aws-sso' })
  const headers = await sign(bob)
  t.match(headers.authorization, /SignedHeaders=[^,]*x-amz-security-token/)
  t.equal((await credentials(headers)).statusCode, 200, 'the aws-sso organization of the account, beside its platform one')
  t.equal(sts.state.calls.at(-1)!.headers['x-amz-security-token'], bob.sessionToken)
})

t.test('an account claimed by two aws-sso organizations is refused as ambiguous', async (t) => {
  const { orgs, credentials } = await setup(t)
  await orgs.create({ name: 'Carol One', awsAccountId: carol.account, authMode: 'aws-sso' })
  await orgs.create({ name: 'Carol Two', awsAccountId: carol.account, authMode: 'aws-sso' })
  t.equal((await credentials(await sign(carol))).statusCode, 401)
})

t.test('a burst of requests with one signature costs one STS call', async (t) => {
  const { credentials } = await setup(t)
  const headers = await sign()
  const before = stsCalls()
  for (let i = 0; i < 10; i++) t.equal((await credentials(headers)).statusCode, 200)
  t.equal(stsCalls() - before, 1)
})

t.test('refusals: each is 401 with the same body', async (t) => {
  const { credentials } = await setup(t)
  const good = await sign()
  const tampered = { ...good, authorization: good.authorization.replace(/Signature=(.)/, (_, c) => `Signature=${c === '0' ? '1' : '0'}`) }
  const cases: Record<string, { headers: Record<string, string>, reachesSts: boolean }> = {
    'tampered signature': { headers: tampered, reachesSts: true },
    'signed for another server id': { headers: await sign(alice, { serverId: 'other-server' }), reachesSts: false },
    'server id header changed after signing': { headers: { ...good, 'x-stowage-server-id': 'other-server' }, reachesSts: false },
    'server id not signed': {
      headers: { ...good, authorization: good.authorization.replace(/SignedHeaders=[^,]+/, 'SignedHeaders=content-type;host;x-amz-date') },
      reachesSts: false
    },
    'a header Stowage does not forward is signed': {
      headers: { ...good, authorization: good.authorization.replace(/SignedHeaders=([^,]+)/, 'SignedHeaders=$1;x-amz-user-agent') },
      reachesSts: false
    },
    'X-Amz-Date 20 minutes old': { headers: await sign(alice, { signingDate: new Date(Date.now() - 20 * 60_000) }), reachesSts: false },
    'X-Amz-Date 20 minutes ahead': { headers: await sign(alice, { signingDate: new Date(Date.now() + 20 * 60_000) }), reachesSts: false },
    'no X-Amz-Date': { headers: { authorization: good.authorization, 'x-stowage-server-id': SERVER_ID }, reachesSts: false },
    'account with no organization': { headers: await sign(carol), reachesSts: true },
    "a platform-mode organization's account": { headers: await sign(bob), reachesSts: true },
    'garbage after AWS4-HMAC-SHA256': { headers: { ...good, authorization: 'AWS4-HMAC-SHA256 nonsense' }, reachesSts: false }
  }
  for (const [name, { headers, reachesSts }] of Object.entries(cases)) {
    const before = stsCalls()
    const res = await credentials(headers)
    t.equal(res.statusCode, 401, name)
    t.equal(res.headers['www-authenticate'], 'Bearer', name)
    t.same(res.json(), { error: UNAUTHORIZED }, name)
    t.equal(stsCalls() - before, reachesSts ? 1 : 0, `${name}: ${reachesSts ? 'asked' : 'refused without asking'} STS`)
  }
})

t.test('a reply that is not a GetCallerIdentity answer is refused', async (t) => {
  const { credentials } = await setup(t)
  t.teardown(() => { sts.state.override = undefined })
  const replies = {
    'other JSON': '{"hello":"world"}',
    'account not 12 digits': JSON.stringify({ GetCallerIdentityResponse: { GetCallerIdentityResult: { Account: '11112222333X', Arn: 'arn:aws:iam::11112222333X:user/x' } } }),
    'ARN of another account': JSON.stringify({ GetCallerIdentityResponse: { GetCallerIdentityResult: { Account: alice.account, Arn: 'arn:aws:iam::999999999999:user/x' } } }),
    'XML instead of JSON': '<GetCallerIdentityResponse><GetCallerIdentityResult><Account>111122223333</Account></GetCallerIdentityResult></GetCallerIdentityResponse>',
    'not JSON at all': 'surprise'
  }
  for (const [name, body] of Object.entries(replies)) {
    sts.state.override = { status: 200, body }
    t.equal((await credentials(await sign())).statusCode, 401, name)
  }
})

t.test('an STS that is down is 503', async (t) => {
  const closed = await closedPortUrl()
  const { credentials } = await setup(t, { STS_ENDPOINT: closed })
  const res = await credentials(await sign(alice, { stsEndpoint: closed }))
  t.equal(res.statusCode, 503)
  t.match(res.json(), { error: /security token service/ })

  const failing = await setup(t)
  sts.state.override = { status: 500, body: 'oops' }
  t.teardown(() => { sts.state.override = undefined })
  t.equal((await failing.credentials(await sign())).statusCode, 503, 'an STS answering 5xx')
})

t.test('an STS that stops answering is 503 within the 5 s deadline; one that is stopped and started again recovers', async (t) => {
  const own = await startSts()
  t.teardown(() => own.close())
  const { credentials } = await setup(t, { STS_ENDPOINT: own.endpoint })
  const signFor = () => sign(alice, { stsEndpoint: own.endpoint })
  own.hang()
  const { result: hung, ms } = await timed(async () => credentials(await signFor()))
  t.equal(hung.statusCode, 503)
  t.equal(hung.headers['retry-after'], '5')
  t.ok(ms < 15_000, `answered in ${Math.round(ms)} ms`)
  own.resume()

  await own.close()
  t.equal((await credentials(await signFor())).statusCode, 503, 'stopped')
  const again = await startSts({ port: Number(new URL(own.endpoint).port) })
  t.teardown(() => again.close())
  t.equal((await credentials(await signFor())).statusCode, 200, 'started again: the next request succeeds')
})

t.test('with no AWS_AUTH_SERVER_ID the method is off', async (t) => {
  const { app, close } = await buildTestApp({ env: { STS_ENDPOINT: sts.endpoint } })
  t.teardown(close)
  const before = stsCalls()
  t.equal((await app.inject({ url: '/api/auth/credentials', headers: await sign() })).statusCode, 401)
  t.equal(stsCalls(), before)
})

t.test('signatures never reach the logs', async (t) => {
  const lines: string[] = []
  const { app, close } = await buildTestApp({
    env: { STS_ENDPOINT: sts.endpoint, AWS_AUTH_SERVER_ID: SERVER_ID, LOG_LEVEL: 'trace' },
    logStream: { write: (line) => { lines.push(line) } }
  })
  t.teardown(close)
  const headers = await sign(bob)
  await app.inject({ url: '/api/auth/credentials', headers })
  const log = lines.join('')
  t.ok(log.includes('/api/auth/credentials'))
  t.notOk(log.includes(headers.authorization.split('Signature=')[1]), 'no signature')
  t.notOk(log.includes(bob.sessionToken!), 'no session token')
})
