import { UNAUTHORIZED } from '../plugins/errors.js'
import t, { type Test } from 'tap'
import bcrypt from 'bcrypt'
import { crc32 } from 'node:zlib'
import { generateApiKey } from '../keys/api-key.js'
import { bearer, buildTestApp } from './helpers/app.js'
import { startIdp } from './helpers/idp.js'
import { watchCompares } from './helpers/keys.js'

const idp = await startIdp()
t.teardown(() => idp.close())

const KEY_FORMAT = /^stow_([0-9A-Za-z]{10})([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/
const b64 = (text: string) => Buffer.from(text).toString('base64')

// Written independently of keys/api-key.ts, from DESIGN.md §5.2.
function expectedChecksum (prefix: string, id: string, secret: string) {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
  let n = BigInt(crc32(`${prefix}_${id}${secret}`) >>> 0)
  let out = ''
  while (n > 0n) { out = alphabet[Number(n % 62n)] + out; n /= 62n }
  return out.padStart(6, '0')
}

async function setup (t: Test) {
  const test = await buildTestApp({ idp })
  t.teardown(test.close)
  const { app } = test
  const alice = bearer(idp.token({ sub: 'alice', org_id: 'acme' }))
  const create = async (body: object = {}, headers = alice) => {
    const res = await app.inject({ method: 'POST', url: '/api/keys', headers, payload: body })
    return res
  }
  return { ...test, alice, create }
}

t.test('a created key has the format and checksum of DESIGN.md §5.2', async (t) => {
  const { create } = await setup(t)
  const res = await create({ name: 'laptop' })
  t.equal(res.statusCode, 201)
  const body = res.json()
  const [, id, secret, checksum] = KEY_FORMAT.exec(body.key) ?? []
  t.ok(id, 'format')
  t.equal(body.key.length, 53)
  t.equal(checksum, expectedChecksum('stow', id, secret))
  t.same(Object.keys(body).sort(), ['createdAt', 'expiresAt', 'id', 'key', 'name', 'start'])
  t.match(body, { id, name: 'laptop', start: `stow_${id}`, expiresAt: null })
  t.equal(new Date(body.createdAt).toISOString(), body.createdAt)
})

t.test('a bare POST creates an unnamed key', async (t) => {
  const { app, alice } = await setup(t)
  const res = await app.inject({ method: 'POST', url: '/api/keys', headers: alice })
  t.equal(res.statusCode, 201)
  t.equal(res.json().name, '')
})

t.test('a key authenticates as its owner: same files, same identity', async (t) => {
  const { app, alice, create } = await setup(t)
  const { key } = (await create()).json()
  await app.inject({ method: 'PUT', url: '/api/files/shared.txt', headers: alice, payload: { content: b64('hi') } })
  const read = await app.inject({ url: '/api/files/shared.txt', headers: bearer(key) })
  t.equal(read.statusCode, 200)
  t.equal(read.json().content, b64('hi'))
  t.same((await app.inject({ url: '/api/auth/credentials', headers: bearer(key) })).json().userId, 'alice')
  const viaKey = await app.inject({ method: 'POST', url: '/api/keys', headers: bearer(key), payload: {} })
  t.equal(viaKey.statusCode, 201, 'a key can manage keys too')
})

t.test('the list holds active keys and never the key, its secret or its hash', async (t) => {
  const { app, alice, create } = await setup(t)
  const first = (await create({ name: 'one' })).json()
  const second = (await create({ name: 'two', expiresAt: new Date(Date.now() + 86_400_000).toISOString() })).json()
  const res = await app.inject({ url: '/api/keys', headers: alice })
  t.equal(res.statusCode, 200)
  const { keys } = res.json()
  t.same(keys.map((k: { id: string }) => k.id).sort(), [first.id, second.id].sort())
  for (const key of keys) t.same(Object.keys(key).sort(), ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'start'])
  for (const created of [first, second]) {
    t.notOk(res.body.includes(created.key), 'no plaintext')
    t.notOk(res.body.includes(created.key.slice(15, 47)), 'no secret part')
  }
  t.notOk(res.body.includes('$2'), 'no bcrypt hash')
  const bob = bearer(idp.token({ sub: 'bob' }))
  t.same((await app.inject({ url: '/api/keys', headers: bob })).json(), { keys: [] }, "another user's list is their own")
})

t.test('revoking: 204, then the key is refused at once and gone from the list', async (t) => {
  const { app, alice, create } = await setup(t)
  const { id, key } = (await create()).json()
  t.equal((await app.inject({ url: '/api/auth/credentials', headers: bearer(key) })).statusCode, 200)
  const revoked = await app.inject({ method: 'DELETE', url: `/api/keys/${id}`, headers: alice })
  t.equal(revoked.statusCode, 204)
  const refused = await app.inject({ url: '/api/auth/credentials', headers: bearer(key) })
  t.equal(refused.statusCode, 401)
  t.same(refused.json(), { error: UNAUTHORIZED })
  t.same((await app.inject({ url: '/api/keys', headers: alice })).json(), { keys: [] })
  t.equal((await app.inject({ method: 'DELETE', url: `/api/keys/${id}`, headers: alice })).statusCode, 404, 'already revoked')
  t.equal((await app.inject({ method: 'DELETE', url: '/api/keys/unknown123', headers: alice })).statusCode, 404, 'unknown')
})

t.test('another user cannot revoke a key', async (t) => {
  const { app, create } = await setup(t)
  const { id, key } = (await create()).json()
  const bob = bearer(idp.token({ sub: 'bob' }))
  const res = await app.inject({ method: 'DELETE', url: `/api/keys/${id}`, headers: bob })
  t.equal(res.statusCode, 404)
  t.equal((await app.inject({ url: '/api/auth/credentials', headers: bearer(key) })).statusCode, 200, 'the key still works')
})

t.test('revocation and expiry written by another instance hold at once, even for a remembered key', async (t) => {
  const { app, create } = await setup(t)
  const revokedElsewhere = (await create()).json()
  const expiredElsewhere = (await create()).json()
  for (const { key } of [revokedElsewhere, expiredElsewhere]) {
    t.equal((await app.inject({ url: '/api/auth/credentials', headers: bearer(key) })).statusCode, 200)
  }
  const past = new Date(Date.now() - 1000).toISOString()
  await app.stowageDb.updateTable('api_keys').set({ revoked_at: past }).where('id', '=', revokedElsewhere.id).execute()
  await app.stowageDb.updateTable('api_keys').set({ expires_at: past }).where('id', '=', expiredElsewhere.id).execute()
  for (const { key } of [revokedElsewhere, expiredElsewhere]) {
    t.equal((await app.inject({ url: '/api/auth/credentials', headers: bearer(key) })).statusCode, 401)
  }
})

t.test('an expired key is refused and not listed', async (t) => {
  const { app, alice, create } = await setup(t)
  const { id, key } = (await create({ expiresAt: new Date(Date.now() + 3_600_000).toISOString() })).json()
  t.equal((await app.inject({ url: '/api/auth/credentials', headers: bearer(key) })).statusCode, 200)
  // Its hour passed: written directly rather than waited for.
  await app.stowageDb.updateTable('api_keys').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', id).execute()
  t.equal((await app.inject({ url: '/api/auth/credentials', headers: bearer(key) })).statusCode, 401)
  t.same((await app.inject({ url: '/api/keys', headers: alice })).json(), { keys: [] })
})

t.test('bad create bodies are 400', async (t) => {
  const { create } = await setup(t)
  for (const body of [
    { expiresAt: new Date(Date.now() - 1000).toISOString() },
    { expiresAt: 'tomorrow' },
    { name: 'x'.repeat(201) },
    { name: 5 },
    { owner: 'bob' }
  ]) {
    const res = await create(body)
    t.equal(res.statusCode, 400, JSON.stringify(body))
    t.type(res.json().error, 'string')
  }
})

t.test('refused keys: another deployment\'s prefix, a bad checksum, a malformed or unknown key', async (t) => {
  const { app, create } = await setup(t)
  const { key } = (await create()).json()
  const body = key.slice('stow_'.length)
  const flipped = body.slice(0, 20) + (body[20] === 'a' ? 'b' : 'a') + body.slice(21)
  const refused = {
    'another prefix': `acme_${body}`,
    'another prefix, valid checksum': generateApiKey('acme').key,
    'bad checksum': `stow_${flipped}`,
    'too short': key.slice(0, -1),
    'too long': key + 'A',
    'not base62': key.slice(0, 30) + '-' + key.slice(31),
    'unknown id, valid checksum': generateApiKey('stow').key,
    'prefix only': 'stow_'
  }
  const { calls: compares } = await watchCompares(async () => {
    for (const [name, token] of Object.entries(refused)) {
      const res = await app.inject({ url: '/api/auth/credentials', headers: bearer(token) })
      t.equal(res.statusCode, 401, name)
      t.same(res.json(), { error: UNAUTHORIZED }, name)
    }
  })
  t.equal(compares, 0, 'none of them cost a bcrypt compare')
})

t.test('bcrypt runs once per key per process', async (t) => {
  const { app, create } = await setup(t)
  const { key } = (await create()).json()
  const { calls: first } = await watchCompares(() => app.inject({ url: '/api/auth/credentials', headers: bearer(key) }))
  const { calls: later } = await watchCompares(async () => {
    for (let i = 0; i < 5; i++) await app.inject({ url: '/api/auth/credentials', headers: bearer(key) })
  })
  t.equal(first, 1)
  t.equal(later, 0)
})

t.test('the database holds a bcrypt hash, never the key', async (t) => {
  const { app, create, config } = await setup(t)
  const { id, key } = (await create()).json()
  const row = await app.stowageDb.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  t.match(row.key_hash, new RegExp(`^\\$2[aby]\\$0${config.API_KEY_BCRYPT_COST}\\$`))
  t.ok(await bcrypt.compare(key, row.key_hash))
  const stored = JSON.stringify(row)
  t.notOk(stored.includes(key.slice(15, 47)), 'no column holds the secret part')
  t.match(row, { user_id: 'alice', org_id: 'acme', start: `stow_${id}`, revoked_at: null })
})

t.test('last_used_at is kept, written at most once a minute', async (t) => {
  const { app, alice, create } = await setup(t)
  const { id, key } = (await create()).json()
  const lastUsed = async () => (await app.inject({ url: '/api/keys', headers: alice })).json().keys.find((k: { id: string }) => k.id === id).lastUsedAt
  t.equal(await lastUsed(), null)
  await app.inject({ url: '/api/auth/credentials', headers: bearer(key) })
  const first = await lastUsed()
  t.type(first, 'string')
  await new Promise((resolve) => setTimeout(resolve, 20))
  await app.inject({ url: '/api/auth/credentials', headers: bearer(key) })
  t.equal(await lastUsed(), first, 'not rewritten within the minute')
})

t.test('with another API_KEY_PREFIX, keys carry it', async (t) => {
  const { app, close } = await buildTestApp({ idp, env: { API_KEY_PREFIX: 'acme' } })
  t.teardown(close)
  const res = await app.inject({ method: 'POST', url: '/api/keys', headers: bearer(idp.token({ sub: 'alice' })), payload: {} })
  const { key } = res.json()
  t.match(key, /^acme_[0-9A-Za-z]{48}$/)
  t.equal((await app.inject({ url: '/api/auth/credentials', headers: bearer(key) })).statusCode, 200)
})
