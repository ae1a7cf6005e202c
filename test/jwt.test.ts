import t from 'tap'
import { createJwks } from '../identity/jwks.js'
import { bearer, buildTestApp } from './helpers/app.js'
import { startIdp } from './helpers/idp.js'

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
    t.equal(res.headers['www-authenticate'], 'Bearer', name)
    t.same(res.json(), { error: 'Unauthorized' }, name)
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

t.test('a JWKS endpoint that hangs does not hang the request', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  idp.state.hangJwks = true
  t.teardown(() => { idp.state.hangJwks = false })
  const started = Date.now()
  const res = await credentials(app, idp.token({ sub: 'alice' }))
  t.equal(res.statusCode, 401)
  t.ok(Date.now() - started < 9000, 'answered after the 5 s upstream timeout, not never')
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
