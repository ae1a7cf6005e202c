import t, { type Test } from 'tap'
import { createOrganizationRepository } from '../db/organizations.js'
import { signCallerIdentity } from '../identity/aws-signing.js'
import { bearer, buildTestApp } from './helpers/app.js'
import { startIdp } from './helpers/idp.js'
import { startSts, TEST_IDENTITIES } from './helpers/sts.js'

const idp = await startIdp()
const sts = await startSts()
t.teardown(async () => { await idp.close(); await sts.close() })

async function setup (t: Test) {
  const test = await buildTestApp({ idp, env: { STS_ENDPOINT: sts.endpoint, AWS_AUTH_SERVER_ID: 'stowage-test' } })
  t.teardown(test.close)
  const { app } = test
  const jwt = bearer(idp.token({ sub: 'alice' }))
  const create = async (headers: Record<string, string>, body: object = {}) => {
    const res = await app.inject({ method: 'POST', url: '/api/keys', headers, payload: body })
    t.equal(res.statusCode, 201)
    return res.json() as { id: string, key: string, expiresAt: string | null }
  }
  const works = async (key: string) => (await app.inject({ url: '/api/auth/credentials', headers: bearer(key) })).statusCode === 200
  const revoke = (headers: Record<string, string>, id: string) => app.inject({ method: 'DELETE', url: `/api/keys/${id}`, headers })
  return { ...test, jwt, create, works, revoke }
}

t.test('revoking a key revokes, at once, every key created with it, at any depth', async (t) => {
  const { jwt, create, works, revoke } = await setup(t)
  const parent = await create(jwt)
  const child = await create(bearer(parent.key))
  const grandchild = await create(bearer(child.key))
  const sibling = await create(jwt)
  t.ok(await works(grandchild.key))
  t.equal((await revoke(jwt, parent.id)).statusCode, 204)
  t.notOk(await works(parent.key))
  t.notOk(await works(child.key), 'the child')
  t.notOk(await works(grandchild.key), 'the grandchild')
  t.ok(await works(sibling.key), 'a key made otherwise is untouched')
})

t.test('a child never outlives its parent', async (t) => {
  const { jwt, create } = await setup(t)
  const parentExpiry = new Date(Date.now() + 3600_000).toISOString()
  const parent = await create(jwt, { expiresAt: parentExpiry })
  t.equal((await create(bearer(parent.key))).expiresAt, parentExpiry, 'no expiry asked: the parent\'s')
  t.equal((await create(bearer(parent.key), { expiresAt: new Date(Date.now() + 7200_000).toISOString() })).expiresAt, parentExpiry, 'a later one: the parent\'s')
  const sooner = new Date(Date.now() + 600_000).toISOString()
  t.equal((await create(bearer(parent.key), { expiresAt: sooner })).expiresAt, sooner, 'a sooner one is kept')
})

t.test('a key may revoke itself and its descendants, never the owner\'s other keys', async (t) => {
  const { jwt, create, works, revoke } = await setup(t)
  const other = await create(jwt)
  const parent = await create(jwt)
  const child = await create(bearer(parent.key))
  const grandchild = await create(bearer(child.key))
  t.equal((await revoke(bearer(child.key), other.id)).statusCode, 404, 'not another key of the owner')
  t.equal((await revoke(bearer(child.key), parent.id)).statusCode, 404, 'not its own parent')
  t.ok(await works(other.key))
  t.equal((await revoke(bearer(child.key), grandchild.id)).statusCode, 204, 'its own descendant')
  t.equal((await revoke(bearer(child.key), child.id)).statusCode, 204, 'itself')
  t.ok(await works(parent.key))
})

t.test('keys minted through the AWS method work only while their organization is aws-sso', async (t) => {
  const { app, create, works } = await setup(t)
  const [alice] = TEST_IDENTITIES
  const org = await createOrganizationRepository(app.stowageDb).create({ name: 'Alice Co', awsAccountId: alice.account, authMode: 'aws-sso' })
  const signed = await signCallerIdentity({ stsEndpoint: sts.endpoint, region: 'us-east-1', serverId: 'stowage-test', credentials: alice })
  const minted = await create(signed)
  const child = await create(bearer(minted.key))
  t.ok(await works(minted.key))
  await app.stowageDb.updateTable('organizations').set({ auth_mode: 'platform' }).where('id', '=', org.id).execute()
  t.notOk(await works(minted.key), 'refused once the organization leaves aws-sso')
  t.notOk(await works(child.key), 'and so is its child')
  await app.stowageDb.updateTable('organizations').set({ auth_mode: 'aws-sso' }).where('id', '=', org.id).execute()
  t.ok(await works(minted.key), 'back in aws-sso mode, it works again: it was never revoked')
})
