import t from 'tap'
import { buildTestApp } from './helpers/app.js'

t.test('GET /openapi.json documents every route with a stable operationId and the shared Error schema', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  const res = await app.inject({ url: '/openapi.json' })
  t.equal(res.statusCode, 200)
  const doc = res.json()
  t.match(doc.openapi, /^3\./)
  t.ok(doc.components.schemas.Error, 'Error is a component')
  const operations = Object.entries(doc.paths as Record<string, Record<string, any>>)
    .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })))
  t.ok(operations.length >= 6)
  const ids = operations.map(({ op }) => op.operationId)
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique')
  for (const { path, method, op } of operations) {
    t.match(op.operationId, /^[a-z][A-Za-z]+$/, `${method} ${path} has a camelCase operationId`)
    t.ok(op.tags?.length, `${method} ${path} is tagged`)
    t.ok(Array.isArray(op.security), `${method} ${path} states its security`)
    for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
      if (Number(status) >= 400 && path !== '/health') {
        t.match(JSON.stringify(response), /#\/components\/schemas\/Error/, `${method} ${path} ${status} uses Error`)
      }
    }
  }
  const getFile = doc.paths['/api/files/{path}']?.get
  t.match(getFile?.parameters, [{ name: 'path', in: 'path', required: true }], 'the wildcard is a named path parameter')
  t.match(JSON.stringify(doc.paths['/health'].get.responses['503']), /Health/, 'the 503 of /health has its own shape, with error')
})
