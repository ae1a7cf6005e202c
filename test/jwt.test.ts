import { UNAUTHORIZED } from '../plugins/errors.js'
import t from 'tap'
import { createJwks } from '../identity/jwks.js'
import { createJwtVerifier } from '../identity/jwt.js'
import { bearer, buildTestApp, IDP_CHALLENGE } from './helpers/app.js'
import { startIdp, TEST_AUDIENCE } from './helpers/idp.js'
import { timed } from './helpers/wait.js'
import { createFailureLog } from '../identity/http.js'

const idp = await startIdp()
t.teardown(() => idp.close())

const credentials = (app: Awaited<ReturnType<typeof buildTestApp>>['app'], token: string) =>
  app.inject({ url: '/api/auth/credentials', headers: bearer(token) })

t.test('a valid RS256 token authenticates its subject and organization', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  const res = await credentials(app, idp.token({ sub: 'alice', org_id: 'acme' }))
  t.equal(res.statusCode, 200)
  t.same(res.json(), { userId: 'alice', bucket: 'stowage', region: 'us-east-1', prefix: 'users/alice/files/' })
})

t.test('refused tokens: every one is 401 with the same body', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  const good = idp.token({ sub: 'alice' })
  const [header, payload, signature] = good.split('.')
  const tamperedPayload = Buffer.from(JSON.stringify({
    ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'bob'
  })).toString('base64url')
  const refused = {
    'alg none': idp.unsignedToken({ sub: 'alice' }),
    'HS256 signed with the public key': idp.hmacWithPublicKey({ sub: 'alice' }),
    'unknown kid': idp.token({ sub: 'alice' }, { kid: 'not-a-known-kid' }),
    'wrong iss': idp.token({ sub: 'alice' }, { issuer: 'https://evil.example' }),
    'wrong aud': idp.token({ sub: 'alice' }, { audience: 'another-service' }),
    'expired past the 60 s tolerance': idp.token({ sub: 'alice' }, { expiresIn: -90 }),
    'missing exp': idp.token({ sub: 'alice' }, { expiresIn: null }),
    'tampered payload': `${header}.${tamperedPayload}.${signature}`,
    'truncated signature': `${header}.${payload}.${signature.slice(0, -4)}`,
    'not a JWT': 'abc.def'
  }
  for (const [name, token] of Object.entries(refused)) {
    const res = await credentials(app, token)
    t.equal(res.statusCode, 401, name)
    t.equal(res.headers['www-authenticate'], IDP_CHALLENGE, name)
    t.same(res.json(), { error: UNAUTHORIZED }, name)
  }
  t.equal((await credentials(app, good)).statusCode, 200, 'the untampered token still works')
})

t.test('a token expired within the 60 s clock tolerance is accepted', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  t.equal((await credentials(app, idp.token({ sub: 'alice' }, { expiresIn: -20 }))).statusCode, 200)
})

t.test('no audience is required when JWT_AUDIENCE is unset', async (t) => {
  const { app, close } = await buildTestApp({ idp, env: { JWT_AUDIENCE: '' } })
  t.teardown(close)
  t.equal((await credentials(app, idp.token({ sub: 'alice' }, { audience: 'anything' }))).statusCode, 200)
})

t.test('JWT_JWKS_URL is used instead of discovery', async (t) => {
  const { app, close } = await buildTestApp({ idp, env: { JWT_JWKS_URL: `${idp.issuer}/jwks.json` } })
  t.teardown(close)
  t.equal((await credentials(app, idp.token({ sub: 'alice' }))).statusCode, 200)
})

t.test('keys are never taken from a URL the token names', async (t) => {
  const attacker = await startIdp()
  t.teardown(() => attacker.close())
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  // Signed by the attacker's key, claiming our issuer, pointing at the attacker's JWKS.
  const forged = attacker.token({ sub: 'alice' }, { issuer: idp.issuer })
  const [, payload, signature] = forged.split('.')
  const header = JSON.parse(Buffer.from(forged.split('.')[0], 'base64url').toString())
  const withJku = Buffer.from(JSON.stringify({ ...header, jku: `${attacker.issuer}/jwks.json`, x5u: `${attacker.issuer}/jwks.json` })).toString('base64url')
  t.equal((await credentials(app, forged)).statusCode, 401)
  t.equal((await credentials(app, `${withJku}.${payload}.${signature}`)).statusCode, 401)
  t.equal(attacker.state.jwksFetches, 0, 'the attacker JWKS was never fetched')
})

t.test('a flood of unknown kids fetches the JWKS at most once', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  const before = idp.state.jwksFetches
  const flood = Array.from({ length: 50 }, (_, i) => credentials(app, idp.token({ sub: 'alice' }, { kid: `unknown-${i}` })))
  for (const res of await Promise.all(flood)) t.equal(res.statusCode, 401)
  for (let i = 0; i < 20; i++) await credentials(app, idp.token({ sub: 'alice' }, { kid: `later-${i}` }))
  t.equal(idp.state.jwksFetches - before, 1, 'one fetch for 70 unknown kids')
  t.equal((await credentials(app, idp.token({ sub: 'alice' }))).statusCode, 200, 'the real key came in with that fetch')
  t.equal(idp.state.jwksFetches - before, 1, 'and needed no further fetch')
})

t.test('the key set is refetched for an unknown kid only after 30 s, and brings every new key', async (t) => {
  let now = 1_000_000
  const jwks = createJwks({ jwksUrl: async () => `${idp.issuer}/jwks.json`, now: () => now })
  const known = idp.token({ sub: 'alice' })
  const kidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).kid
  await jwks.publicKey(kidOf(known), 'RS256')
  t.equal(jwks.fetchCount, 1)

  const rotated = idp.rotateKey()
  now += 29_000
  await t.rejects(jwks.publicKey('unknown', 'RS256'))
  await t.rejects(jwks.publicKey(rotated, 'RS256'), 'a new key waits for the window to pass')
  t.equal(jwks.fetchCount, 1, 'no fetch inside the window')

  now += 1_000
  await t.rejects(jwks.publicKey('unknown', 'RS256'))
  t.equal(jwks.fetchCount, 2, 'one fetch once the window has passed')
  t.type(await jwks.publicKey(rotated, 'RS256'), 'string', 'an attacker-triggered fetch still brings in the rotated key')
  t.type(await jwks.publicKey(kidOf(known), 'RS256'), 'string')
  t.equal(jwks.fetchCount, 2)
  await t.rejects(jwks.publicKey(rotated, 'RS512'), 'a key is used only with the algorithm it names')
})

t.test('a JWKS endpoint that hangs does not hang the request: 503 after the 5 s deadline', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  idp.state.hangJwks = true
  t.teardown(() => { idp.state.hangJwks = false })
  const { result: res, ms } = await timed(() => credentials(app, idp.token({ sub: 'alice' })))
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '5')
  t.same(res.json(), { error: 'the identity provider is unavailable, try again shortly' })
  t.ok(ms < 15_000, `answered in ${Math.round(ms)} ms, not never`)
})

t.test('with the IdP down after warm-up, tokens signed with known keys still verify', async (t) => {
  const provider = await startIdp()
  t.teardown(() => provider.close())
  const { app, close } = await buildTestApp({ idp: provider })
  t.teardown(close)
  t.equal((await credentials(app, provider.token({ sub: 'alice' }))).statusCode, 200, 'warm-up')
  const fetches = provider.state.jwksFetches
  await provider.close()
  t.equal((await credentials(app, provider.token({ sub: 'bob' }))).statusCode, 200, 'a new token with a known key')
  const unknown = await Promise.all(Array.from({ length: 20 }, (_, i) => credentials(app, provider.token({ sub: 'eve' }, { kid: `made-up-${i}` }))))
  t.same([...new Set(unknown.map((res) => res.statusCode))], [401], 'unknown keys inside the refetch interval: refused, no fetch')
  t.equal(provider.state.jwksFetches, fetches)
})

t.test('failures of the provider are warned about at most once a minute per endpoint', async (t) => {
  const entries: Array<{ details: Record<string, unknown>, message: string }> = []
  let now = 0
  const failed = createFailureLog({ warn: (details, message) => { entries.push({ details: details as Record<string, unknown>, message }) } }, 60_000, () => now)
  for (let i = 0; i < 100; i++) failed('the JWKS of the identity provider', new Error('ECONNREFUSED'))
  failed('the AWS security token service', new Error('timeout'))
  t.same(entries.map((entry) => entry.message), ['the JWKS of the identity provider failed', 'the AWS security token service failed'])
  now += 60_000
  failed('the JWKS of the identity provider', new Error('ECONNREFUSED'))
  t.equal(entries.length, 3)
  t.equal(entries[2].details.failuresSinceLastWarning, 99, 'the next warning counts those left unsaid')
})

t.test('get-jwks keeps serving a known key past its age while every refetch fails, and the next look after recovery succeeds', async (t) => {
  const provider = await startIdp()
  t.teardown(() => provider.close())
  let now = 1_000_000
  const jwks = createJwks({ jwksUrl: async () => `${provider.issuer}/jwks.json`, maxAgeMs: 60_000, now: () => now })
  const kid = JSON.parse(Buffer.from(provider.token({}).split('.')[0], 'base64url').toString()).kid
  const pem = await jwks.publicKey(kid, 'RS256')
  provider.state.failJwks = true
  now += 10 * 60_000
  t.equal(await jwks.publicKey(kid, 'RS256'), pem, 'the known key, though the set is old and the refetch failed')
  t.equal(jwks.fetchCount, 2, 'the refetch was tried')
  await t.rejects(jwks.publicKey('never-published', 'RS256'), { message: 'no usable key for this token' }, 'inside the interval: refused without a fetch')
  now += 30_000
  await t.rejects(jwks.publicKey('never-published', 'RS256'), { message: 'the identity provider is unavailable, try again shortly' }, 'then: the provider is down')

  provider.state.failJwks = false
  const rotated = provider.rotateKey()
  now += 30_000
  t.type(await jwks.publicKey(rotated, 'RS256'), 'string', 'once the provider is back, a key published meanwhile is picked up')
})

t.test('a token refused while its key was unpublished verifies once the key is published: no cached refusal', async (t) => {
  const provider = await startIdp()
  t.teardown(() => provider.close())
  const verifier = createJwtVerifier({
    issuer: provider.issuer,
    audience: TEST_AUDIENCE,
    jwksUrl: async () => `${provider.issuer}/jwks.json`,
    algorithms: ['RS256'],
    userClaim: 'sub',
    orgClaim: 'org_id',
    refetchIntervalMs: 2000,
    now: () => now
  })
  let now = 1_000_000
  await verifier.verify(provider.token({ sub: 'alice' }))
  const rotated = provider.rotateKey()
  const token = provider.token({ sub: 'alice' }, { kid: rotated })
  await t.rejects(verifier.verify(token), 'inside the refetch interval the new kid is unknown')
  now += 2100
  t.match(await verifier.verify(token), { userId: 'alice' }, 'the same token, after the interval')
})

t.test('with no JWT_ISSUER the JWT method is off', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  t.equal((await credentials(app, idp.token({ sub: 'alice' }))).statusCode, 401)
})

t.test('tokens never reach the logs', async (t) => {
  const lines: string[] = []
  const { app, close } = await buildTestApp({ idp, env: { LOG_LEVEL: 'debug' }, logStream: { write: (line) => { lines.push(line) } } })
  t.teardown(close)
  const good = idp.token({ sub: 'alice' })
  await credentials(app, good)
  await credentials(app, idp.token({ sub: 'alice' }, { expiresIn: -600 }))
  const log = lines.join('')
  t.ok(log.includes('/api/auth/credentials'), 'requests were logged')
  t.notOk(log.includes(good.split('.')[2]), 'no token signature in the log')
  t.notOk(log.includes(good.split('.')[1]), 'no token payload in the log')
})
