import { UNAUTHORIZED } from '../plugins/errors.js'
import t, { type Test } from 'tap'
import { getBytes } from './helpers/store.js'
import fastifySwagger from '@fastify/swagger'
import Fastify, { type FastifyInstance } from 'fastify'
import { Kysely } from 'kysely'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  authPlugin, createDialect, createFsStore, changesPlugin, dbPlugin, errorsPlugin, filesRoutes, identityPlugin, keysPlugin, sharedSchemas, fileSchemas,
  stowage, storagePlugin, type Database, type StowageDecorators
} from '../index.js'
import { createTestDatabase } from './helpers/db.js'
import { createKeyIn } from './helpers/keys.js'

/** A database and a folder of its own for one Stowage mount, and a key for alice in it. Called
 *  before the host is made: teardowns run last first, so the host closes its pool before the
 *  database is dropped (a drop with force would end the pool's connections under it). */
async function mountPoint (t: Test) {
  const database = await createTestDatabase({ shared: true })
  const dir = await mkdtemp(join(tmpdir(), 'stowage-host-'))
  t.teardown(async () => { await database.drop(); await rm(dir, { recursive: true, force: true }) })
  const key = await createKeyIn(database.url)
  return { options: { database: { url: database.url }, storage: { dir }, keys: { bcryptCost: 4 } }, headers: { authorization: `Bearer ${key}` } }
}

/** A host app with its own of everything Stowage also has: an Error schema, a db decorator, a
 *  userId on requests, JSON routes, 404 and error handlers, and an OpenAPI document. */
async function hostApp (t: Test) {
  const host = Fastify()
  t.teardown(() => host.close())
  host.addSchema({ $id: 'Error', type: 'object', properties: { message: { type: 'string' } } })
  host.decorate('db', { host: true })
  host.decorateRequest('userId', '')
  host.setNotFoundHandler((_request, reply) => reply.code(404).send({ hostNotFound: true }))
  host.setErrorHandler((_error, _request, reply) => reply.code(500).send({ hostError: true }))
  await host.register(fastifySwagger, {
    openapi: { info: { title: 'Host', version: '1.0.0' } },
    // As README's reuse section says: components named by their $id.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => (json.$id as string) ?? `def-${index}` }
  })
  host.get('/', { schema: { response: { 200: { type: 'object', properties: { host: { type: 'boolean' } } } } } }, async () => ({ host: true }))
  host.get('/boom', async () => { throw new Error('host failure') })
  return host
}

const content = Buffer.from('hello').toString('base64')

t.test('one registration mounts Stowage under a prefix beside a host that has its own of everything', async (t) => {
  const mount = await mountPoint(t)
  const host = await hostApp(t)
  await host.register(stowage, { prefix: '/storage', ...mount.options })
  await host.ready()

  const put = await host.inject({ method: 'PUT', url: '/storage/api/files/notes/a.txt', headers: mount.headers, payload: { content } })
  t.equal(put.statusCode, 200, put.body)
  t.same((await host.inject({ url: '/storage/api/files/notes/a.txt', headers: mount.headers })).json(), { content, contentType: 'application/octet-stream' })
  const refused = await host.inject({ url: '/storage/api/files/notes/a.txt' })
  t.equal(refused.statusCode, 401)
  t.equal(refused.headers['www-authenticate'], 'Bearer', "Stowage's error handler answers its routes")
  t.same(refused.json(), { error: UNAUTHORIZED })
  t.same((await host.inject({ url: '/storage/api/files/notes/missing.txt', headers: mount.headers })).json(), { error: 'file not found: notes/missing.txt' })
  t.same((await host.inject({ url: '/storage/nowhere' })).json(), { error: 'Route GET /storage/nowhere not found' }, 'under its prefix, Stowage answers 404')
  t.equal((await host.inject({ url: '/storage/health' })).statusCode, 200)

  t.same((await host.inject({ url: '/' })).json(), { host: true }, "the host's routes are untouched")
  t.same((await host.inject({ url: '/elsewhere' })).json(), { hostNotFound: true }, "the host's 404 handler answers outside the prefix")
  t.same((await host.inject({ url: '/boom' })).json(), { hostError: true }, "the host's error handler answers its own routes")
  t.same(host.getSchema('Error'), { $id: 'Error', type: 'object', properties: { message: { type: 'string' } } }, "the host's Error schema stays its own")
  t.same((host as unknown as { db: unknown }).db, { host: true }, "the host's db decorator stays its own")
  t.notOk(host.hasDecorator('stowageFiles'), "Stowage's decorators stay inside its scope")
})

t.test("Stowage's routes appear in the host's own OpenAPI document with {path}, named schemas and their security schemes", async (t) => {
  const mount = await mountPoint(t)
  const host = await hostApp(t)
  await host.register(stowage, { prefix: '/storage', ...mount.options })
  await host.ready()
  const doc = host.swagger() as any
  t.ok(doc.paths['/storage/api/files/{path}']?.put, 'the wildcard is a named parameter')
  t.notOk(doc.paths['/storage/api/files/{*}'])
  t.match(doc.paths['/storage/api/files/{path}'].get.parameters, [{ name: 'path', in: 'path', required: true }])
  t.ok(doc.components.schemas.StowageFileList, 'schemas are named')
  t.ok(doc.components.schemas.Error, "beside the host's own Error")
  t.notOk(Object.keys(doc.components.schemas).some((name) => name.startsWith('def-')))
  t.match(doc.components.securitySchemes, { identityProviderJwt: { type: 'http' }, apiKeyBearer: { type: 'http' }, awsSignedCallerIdentity: { type: 'apiKey' } })
  t.ok(doc.paths['/'], "the host's routes are there too")
  t.equal((await host.inject({ url: '/storage/openapi.json' })).statusCode, 404, 'Stowage serves no second document in a host that has one')
})

t.test('mounted twice under two prefixes, each mount has its own users, keys and files', async (t) => {
  const [one, two] = [await mountPoint(t), await mountPoint(t)]
  const host = Fastify()
  t.teardown(() => host.close())
  await host.register(stowage, { prefix: '/one', ...one.options })
  await host.register(stowage, { prefix: '/two', ...two.options })
  await host.ready()
  t.equal((await host.inject({ method: 'PUT', url: '/one/api/files/a.txt', headers: one.headers, payload: { content } })).statusCode, 200)
  t.equal((await host.inject({ url: '/two/api/files/a.txt', headers: one.headers })).statusCode, 401, "one mount's key means nothing to the other")
  t.equal((await host.inject({ url: '/two/api/files/a.txt', headers: two.headers })).statusCode, 404, "the other mount's store is its own")
  const docs = await Promise.all(['/one', '/two'].map(async (prefix) => (await host.inject({ url: `${prefix}/openapi.json` })).json()))
  t.ok(docs[0].paths['/one/api/files/{path}'] && !docs[0].paths['/two/api/files/{path}'], 'each serves a document of its own routes')
})

t.test('mounted at the root beside the host\'s own 404 handler', async (t) => {
  const mount = await mountPoint(t)
  const host = Fastify()
  t.teardown(() => host.close())
  host.setNotFoundHandler((_request, reply) => reply.code(404).send({ hostNotFound: true }))
  await host.register(stowage, { ...mount.options, openapi: false })
  await host.ready()
  t.equal((await host.inject({ method: 'PUT', url: '/api/files/a.txt', headers: mount.headers, payload: { content } })).statusCode, 200)
  t.same((await host.inject({ url: '/nowhere' })).json(), { hostNotFound: true })
  t.equal((await host.inject({ url: '/openapi.json' })).statusCode, 404, 'openapi: false serves no document')
})

t.test('route groups can be left out, and extra authenticators join the chain', async (t) => {
  const mount = await mountPoint(t)
  const host = Fastify()
  t.teardown(() => host.close())
  await host.register(stowage, {
    prefix: '/s',
    ...mount.options,
    routes: { keys: false },
    auth: {
      authenticators: [{
        applies: (request) => request.headers['x-host-user'] !== undefined,
        async authenticate (request) { request.userId = String(request.headers['x-host-user']); request.orgId = null }
      }]
    }
  })
  await host.ready()
  t.equal((await host.inject({ url: '/s/api/keys', headers: mount.headers })).statusCode, 404, 'no key routes')
  t.match((await host.inject({ url: '/s/api/auth/credentials', headers: { 'x-host-user': 'bob' } })).json(), { userId: 'bob', prefix: 'users/bob/files/' })
})

t.test("a host's own Kysely instance and ObjectStore: migrated and used, and left open when the host closes", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-own-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const db = new Kysely<Database>({ dialect: createDialect('sqlite::memory:') })
  t.teardown(() => db.destroy())
  const store = createFsStore(dir)
  const host = Fastify()
  await host.register(async (scope) => {
    await stowage(scope, { database: { url: db }, storage: { store }, keys: { bcryptCost: 4 }, openapi: false })
    const { key } = await (scope as unknown as StowageDecorators).stowageKeys.create({ userId: 'own', orgId: null })
    scope.get('/key', async () => ({ key }))
  })
  await host.ready()
  const { key } = (await host.inject({ url: '/key' })).json()
  const put = await host.inject({ method: 'PUT', url: '/api/files/own.txt', headers: { authorization: `Bearer ${key}` }, payload: { content } })
  t.equal(put.statusCode, 200)
  t.ok((await getBytes(store, 'users/own/files/own.txt'))?.body.equals(Buffer.from('hello')), 'written to the store given')
  await host.close()
  t.equal((await db.selectFrom('api_keys').select('user_id').execute()).length, 1, 'the host\'s database is still open, and holds the key')
})

t.test('the concern plugins still compose by hand, inside a scope of the host', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-reuse-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const host = Fastify()
  t.teardown(() => host.close())
  let scope: FastifyInstance | undefined
  await host.register(async (child) => {
    scope = child
    for (const schema of [...sharedSchemas, ...fileSchemas]) child.addSchema(schema)
    await child.register(errorsPlugin)
    await child.register(dbPlugin, { url: 'sqlite::memory:' })
    await child.register(changesPlugin)
    await child.register(storagePlugin, { driver: 'fs', dir, maxFileBytes: 1024 })
    await child.register(identityPlugin, {})
    await child.register(keysPlugin, { prefix: 'host', bcryptCost: 4 })
    await child.register(authPlugin)
    await child.register(filesRoutes)
  }, { prefix: '/storage' })
  await host.ready()
  const { key } = await (scope as unknown as StowageDecorators).stowageKeys.create({ userId: 'u1', orgId: null })
  const put = await host.inject({ method: 'PUT', url: '/storage/api/files/a.txt', headers: { authorization: `Bearer ${key}` }, payload: { content: 'aGk=' } })
  t.equal(put.statusCode, 200)
})
