import t, { type Test } from 'tap'
import { keyChecksum } from '../keys/api-key.js'
import { signCallerIdentity } from '../identity/aws-signing.js'
import { bearer, buildTestApp } from './helpers/app.js'
import { createKeyIn, watchCompares } from './helpers/keys.js'
import { startService } from './helpers/service.js'
import { startSts, TEST_IDENTITIES } from './helpers/sts.js'
import { captureLogs } from './helpers/wait.js'

/** The key with its secret replaced: well-formed, right id, valid checksum, wrong secret. */
function withWrongSecret (key: string, n: number) {
  const id = key.slice(5, 15)
  const secret = String(n).padStart(32, 'x')
  return `stow_${id}${secret}${keyChecksum('stow', id, secret)}`
}

async function setup (t: Test, env: Record<string, string> = {}) {
  const logs = captureLogs()
  const test = await buildTestApp({ env: { LOG_LEVEL: 'warn', ...env }, logStream: logs.stream })
  t.teardown(test.close)
  const { key } = await test.app.stowageKeys.create({ userId: 'alice', orgId: null })
  const whoAmI = (token: string) => test.app.inject({ url: '/api/auth/credentials', headers: bearer(token) })
  return { ...test, key, whoAmI, logs }
}

t.test('a wrong key sent again costs no bcrypt', async (t) => {
  const { key, whoAmI } = await setup(t)
  const wrong = withWrongSecret(key, 1)
  t.equal((await watchCompares(async () => t.equal((await whoAmI(wrong)).statusCode, 401))).calls, 1)
  t.equal((await watchCompares(async () => {
    for (let i = 0; i < 5; i++) t.equal((await whoAmI(wrong)).statusCode, 401)
  })).calls, 0, 'the refusal is remembered')
})

t.test('wrong secrets for one key id: 429 with Retry-After past the limit, without bcrypt; a verified key keeps working', async (t) => {
  const { key, whoAmI, logs } = await setup(t, { AUTH_FAILURES_PER_KEY: '3', AUTH_FAILURES_PER_ADDRESS: '1000' })
  t.equal((await whoAmI(key)).statusCode, 200, 'the owner verifies once before the attack')
  for (let i = 0; i < 3; i++) t.equal((await whoAmI(withWrongSecret(key, i))).statusCode, 401)
  const seen = await watchCompares(async () => {
    const throttled = await whoAmI(withWrongSecret(key, 99))
    t.equal(throttled.statusCode, 429)
    t.match(throttled.json(), { error: /too many wrong secrets for this key/ })
    t.ok(Number(throttled.headers['retry-after']) > 0 && Number(throttled.headers['retry-after']) <= 60, 'Retry-After within the window')
  })
  t.equal(seen.calls, 0, 'no bcrypt once throttled')
  t.equal((await whoAmI(key)).statusCode, 200, 'the remembered key is not throttled')
  const warning = logs.entries.find((entry) => entry.msg === 'API key id throttled after repeated wrong secrets')
  t.equal(warning?.keyId, key.slice(5, 15), 'the throttled key id is logged at warn')
  t.notOk(logs.text().includes(key.slice(15)), 'no secret in the log')
})

t.test('an address that keeps failing: 429 with Retry-After for what would cost a bcrypt compare; working keys still work', async (t) => {
  const { key, whoAmI, app } = await setup(t, { AUTH_FAILURES_PER_ADDRESS: '5', AUTH_FAILURES_PER_KEY: '1000' })
  t.equal((await whoAmI(key)).statusCode, 200, 'verified before the failures')
  for (let i = 0; i < 5; i++) t.equal((await app.inject({ url: '/api/keys' })).statusCode, 401)
  t.equal((await app.inject({ url: '/api/keys' })).statusCode, 401, 'a refusal that costs nothing stays a 401')
  t.equal((await whoAmI(key)).statusCode, 200, 'a key already verified still works from that address')
  const cold = (await app.stowageKeys.create({ userId: 'carol', orgId: null })).key
  t.equal((await whoAmI(cold)).statusCode, 429, 'a key not yet verified waits: its check would cost a bcrypt compare')
  const seen = await watchCompares(async () => {
    const res = await whoAmI(withWrongSecret(key, 7))
    t.equal(res.statusCode, 429)
    t.ok(Number(res.headers['retry-after']) > 0)
    t.type(res.json().error, 'string')
  })
  t.equal(seen.calls, 0)
})

t.test('behind a proxy named in TRUST_PROXY, the failure limit counts each forwarded client; otherwise X-Forwarded-For changes nothing', async (t) => {
  for (const trusted of [true, false]) {
    const { key, app } = await setup(t, { AUTH_FAILURES_PER_ADDRESS: '3', AUTH_FAILURES_PER_KEY: '1000', ...(trusted ? { TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' } : {}) })
    const from = (address: string, token: string) =>
      app.inject({ url: '/api/auth/credentials', headers: { ...bearer(token), 'x-forwarded-for': address } })
    for (let i = 0; i < 3; i++) t.equal((await from('203.0.113.5', withWrongSecret(key, i))).statusCode, 401)
    const cold = (await app.stowageKeys.create({ userId: 'carol', orgId: null })).key
    t.equal((await from('203.0.113.5', cold)).statusCode, 429, 'the failing address is throttled')
    t.equal((await from('203.0.113.6', cold)).statusCode, trusted ? 200 : 429,
      trusted ? 'another client behind the proxy is not' : 'a forged X-Forwarded-For does not escape the limit')
  }
})

t.test('fifty concurrent first uses of one key share one bcrypt compare', async (t) => {
  const { key, whoAmI } = await setup(t)
  const seen = await watchCompares(async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => whoAmI(key)))
    t.same([...new Set(answers.map((res) => res.statusCode))], [200])
  })
  t.equal(seen.calls, 1)
})

t.test('bcrypt compares run at most BCRYPT_CONCURRENCY at once', async (t) => {
  const { app, whoAmI } = await setup(t, { BCRYPT_CONCURRENCY: '2' })
  const keys = await Promise.all(Array.from({ length: 8 }, () => app.stowageKeys.create({ userId: 'bob', orgId: null })))
  const seen = await watchCompares(async () => {
    const answers = await Promise.all(keys.map(({ key }) => whoAmI(key)))
    t.same([...new Set(answers.map((res) => res.statusCode))], [200])
  })
  t.equal(seen.calls, 8)
  t.equal(seen.maxRunning, 2)
})

t.test('AWS method: a refused signature sent again makes no STS call; an address that keeps failing makes none', async (t) => {
  const sts = await startSts()
  t.teardown(() => sts.close())
  const { app } = await setup(t, { STS_ENDPOINT: sts.endpoint, AWS_AUTH_SERVER_ID: 'stowage-test', AUTH_FAILURES_PER_ADDRESS: '10' })
  const stranger = { ...TEST_IDENTITIES[0], secretAccessKey: 'not-the-secret' }
  const sign = () => signCallerIdentity({ stsEndpoint: sts.endpoint, region: 'us-east-1', serverId: 'stowage-test', credentials: stranger })
  const credentials = (headers: Record<string, string>) => app.inject({ url: '/api/auth/credentials', headers })
  const refused = await sign()
  for (let i = 0; i < 3; i++) t.equal((await credentials(refused)).statusCode, 401)
  t.equal(sts.state.calls.length, 1, 'one STS call for the same refused signature')
  for (let i = 0; i < 20; i++) {
    const signed = await signCallerIdentity({
      stsEndpoint: sts.endpoint, region: 'us-east-1', serverId: 'stowage-test', credentials: stranger, signingDate: new Date(Date.now() - i * 1000)
    })
    await credentials(signed)
  }
  t.ok(sts.state.calls.length <= 10, `anonymous STS calls are bounded by the address limit (${sts.state.calls.length})`)
  const fresh = await signCallerIdentity({
    stsEndpoint: sts.endpoint, region: 'us-east-1', serverId: 'stowage-test', credentials: stranger, signingDate: new Date(Date.now() - 60_000)
  })
  t.equal((await credentials(fresh)).statusCode, 429, 'a signature not seen before would cost an STS call: 429')
  t.equal((await credentials(refused)).statusCode, 401, 'one already refused costs nothing: still 401')
})

t.test('two instances on PostgreSQL: the per-key and per-address limits are reached at the same totals however the failures are spread', {
  skip: !process.env.TEST_DATABASE_URL && 'instances share their failure counts through PostgreSQL (TEST_DATABASE_URL)'
}, async (t) => {
  const { servers, databaseUrl } = await startService(t, { instances: 2, env: { AUTH_FAILURES_PER_KEY: '5', AUTH_FAILURES_PER_ADDRESS: '14', LOG_LEVEL: 'warn' } })
  const attempt = async (instance: number, token: string) => {
    const res = await fetch(`${servers[instance].url}/api/auth/credentials`, { headers: bearer(token) })
    await res.arrayBuffer()
    return res.status
  }
  for (const spread of [[0, 1, 0, 1, 0], [1, 1, 1, 1, 0]]) {
    const key = await createKeyIn(databaseUrl)
    const failures = []
    for (const [n, instance] of spread.entries()) failures.push(await attempt(instance, withWrongSecret(key, n)))
    t.same(failures, [401, 401, 401, 401, 401], `five wrong secrets, on instances ${spread.join(',')}`)
    t.equal(await attempt(0, withWrongSecret(key, 10)), 429, 'the sixth is refused on one instance')
    t.equal(await attempt(1, withWrongSecret(key, 11)), 429, 'and on the other')
  }
  // Ten failures of this address so far; four more, each on a key of its own, spread.
  for (const instance of [1, 0, 1, 1]) t.equal(await attempt(instance, withWrongSecret(await createKeyIn(databaseUrl), 0)), 401)
  const fresh = await createKeyIn(databaseUrl)
  t.equal(await attempt(0, withWrongSecret(fresh, 1)), 429, 'the address is refused what would cost a bcrypt compare, on one instance')
  t.equal(await attempt(1, withWrongSecret(fresh, 2)), 429, 'and on the other')
  t.equal(await attempt(0, await createKeyIn(databaseUrl, 'bob')), 429, 'a right key unverified on this instance costs a bcrypt compare too: refused')
})
