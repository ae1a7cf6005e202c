import t from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  authPlugin, dbPlugin, errorsPlugin, filesRoutes, identityPlugin, keysPlugin, sharedSchemas, fileSchemas, storagePlugin
} from '../index.js'

t.test('the plugins mount inside another Fastify app, under its own prefix', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-reuse-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const host = Fastify()
  t.teardown(() => host.close())
  host.get('/', async () => ({ host: true }))
  let stowage: FastifyInstance | undefined
  await host.register(async (scope) => {
    stowage = scope
    for (const schema of [...sharedSchemas, ...fileSchemas]) scope.addSchema(schema)
    await scope.register(errorsPlugin)
    await scope.register(dbPlugin, { url: 'sqlite::memory:' })
    await scope.register(storagePlugin, { driver: 'fs', dir, bucket: 'b', region: 'r', root: 'files', maxFileBytes: 1024 })
    await scope.register(identityPlugin, {})
    await scope.register(keysPlugin, { prefix: 'host', bcryptCost: 4 })
    await scope.register(authPlugin)
    await scope.register(filesRoutes)
  }, { prefix: '/storage' })

  await host.ready()
  t.notOk(host.hasDecorator('files'), 'the decorators stay inside the scope')
  const { key } = await stowage!.keys.create({ userId: 'u1', orgId: null })
  const headers = { authorization: `Bearer ${key}` }
  const put = await host.inject({ method: 'PUT', url: '/storage/api/files/a.txt', headers, payload: { content: 'aGk=' } })
  t.equal(put.statusCode, 200)
  t.same((await host.inject({ url: '/storage/api/files/a.txt', headers })).json(), { content: 'aGk=', contentType: 'application/octet-stream' })
  t.equal((await host.inject({ url: '/storage/api/files/a.txt' })).statusCode, 401)
  t.same((await host.inject({ url: '/' })).json(), { host: true }, "the host's own routes are untouched")
})
