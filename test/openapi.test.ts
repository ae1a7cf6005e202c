import t from 'tap'
import SwaggerParser from '@apidevtools/swagger-parser'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp } from './helpers/app.js'

async function documentOf (env: Record<string, string> = {}) {
  const { app, close } = await buildTestApp({ env })
  t.teardown(close)
  const res = await app.inject({ url: '/openapi.json' })
  t.equal(res.statusCode, 200)
  return res.json()
}

const operationsOf = (doc: any) => Object.entries(doc.paths as Record<string, Record<string, any>>)
  .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })))

t.test('GET /openapi.json documents every route with a stable operationId, a description for every answer, and its headers', async (t) => {
  const doc = await documentOf()
  t.match(doc.openapi, /^3\./)
  t.same(doc.servers, [{ url: '/', description: 'Where this document is served' }])
  t.same(doc.components.schemas.StowageError, {
    type: 'object', required: ['error'], description: 'Every error answer has this shape',
    properties: {
      error: { type: 'string', description: 'What went wrong, for a person to read' },
      code: { type: 'string', description: 'A machine-readable reason where one is defined: RFC 8628\'s authorization_pending, slow_down and expired_token' }
    }
  }, 'the error schema has a name of its own and only the fields that are sent')
  t.notOk(doc.components.schemas.Error)
  t.match(doc.components.securitySchemes, {
    identityProviderJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    apiKeyBearer: { type: 'http', scheme: 'bearer' },
    awsSignedCallerIdentity: { type: 'apiKey', in: 'header', name: 'Authorization' }
  })
  const operations = operationsOf(doc)
  t.ok(operations.length >= 9)
  const ids = operations.map(({ op }) => op.operationId)
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique')
  for (const { path, method, op } of operations) {
    const where = `${method} ${path}`
    t.match(op.operationId, /^[a-z][A-Za-z0-9]+$/, `${where} has a camelCase operationId`)
    t.ok(op.tags?.length, `${where} is tagged`)
    t.ok(Array.isArray(op.security), `${where} states its security`)
    for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
      t.ok(response.description && response.description !== 'Default Response', `${where} ${status} is described`)
      if (Number(status) >= 400 && path !== '/health') {
        t.match(JSON.stringify(response), /#\/components\/schemas\/StowageError/, `${where} ${status} uses StowageError`)
      }
    }
    if (op.security.length > 0) {
      t.ok(op.responses['401']?.headers?.['WWW-Authenticate'], `${where} documents 401 with WWW-Authenticate`)
      t.ok(op.responses['429']?.headers?.['Retry-After'], `${where} documents 429 with Retry-After`)
      t.ok(op.responses['503']?.headers?.['Retry-After'], `${where} documents 503 with Retry-After`)
    }
  }
  t.ok(doc.paths['/api/keys/{id}'].delete.responses['400'], 'revoke documents its 400')
  t.ok(doc.paths['/api/files/{path}'].put.responses['413'], 'upload documents its 413')
  const getFile = doc.paths['/api/files/{path}']?.get
  t.match(getFile?.parameters, [{ name: 'path', in: 'path', required: true }], 'the wildcard is a named path parameter')
  t.match(JSON.stringify(doc.paths['/health'].get.responses['503']), /StowageHealth/, 'the 503 of /health has its own shape, with error')
})

t.test('the raw routes are documented with binary bodies, their headers and every status they send', async (t) => {
  const doc = await documentOf()
  const raw = doc.paths['/api/raw/{path}']
  t.same(Object.keys(raw).sort(), ['delete', 'get', 'head', 'put'])
  t.same(raw.put.requestBody.content, { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } }, 'the upload body is the file')
  t.match(raw.get.responses['200'].content, { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } })
  t.ok(raw.get.responses['206'].headers['Content-Range'], '206 with Content-Range')
  t.ok(raw.get.responses['416'].headers['Content-Range'], '416 with Content-Range')
  for (const status of ['200', '206', '304']) t.ok(raw.get.responses[status].headers.ETag, `GET ${status} with ETag`)
  t.ok(raw.get.responses['200'].headers['Accept-Ranges'])
  t.ok(raw.put.responses['412'] && raw.put.responses['413'] && raw.delete.responses['412'], '412 and 413 documented')
  const headerNames = (op: { parameters: Array<{ in: string, name: string }> }) => op.parameters.filter((p) => p.in === 'header').map((p) => p.name).sort()
  t.same(headerNames(raw.get), ['if-modified-since', 'if-none-match', 'if-range', 'range'])
  t.same(headerNames(raw.put), ['if-match', 'if-none-match'])
  t.same(headerNames(doc.paths['/api/files/{path}'].put), ['if-match', 'if-none-match'], 'the JSON routes take the same conditions')
  t.ok(doc.paths['/api/files/{path}'].get.responses['304'])
  t.ok(doc.components.schemas.StowageFileWritten.properties.etag, 'written files carry their ETag')
  t.ok(doc.components.schemas.StowageFileEntry.properties.etag, 'list items carry their ETag')
})

t.test('generators get an optional key body and no request-side default that would make a field required', async (t) => {
  const doc = await documentOf()
  t.equal(doc.paths['/api/keys'].post.requestBody.required, false, 'a bare POST /api/keys is valid')
  t.notOk(JSON.stringify(doc).includes('x-optional-body'), 'the marker does not reach the document')
  const requestSchemas = operationsOf(doc).map(({ op }) => op.requestBody).filter(Boolean)
  for (const name of ['StowageFileUpload', 'StowageKeyRequest']) requestSchemas.push(doc.components.schemas[name])
  t.notOk(JSON.stringify(requestSchemas).includes('"default"'), 'no default in any request schema')
})

t.test('PUBLIC_URL gives the servers entry', async (t) => {
  const doc = await documentOf({ PUBLIC_URL: 'https://files.example.com' })
  t.same(doc.servers, [{ url: 'https://files.example.com', description: 'This Stowage service' }])
})

t.test('the document validates (swagger-parser) and lints clean of errors (Redocly)', async (t) => {
  const doc = await documentOf()
  await t.resolves(SwaggerParser.validate(structuredClone(doc)), 'valid OpenAPI 3')
  const dir = mkdtempSync(join(tmpdir(), 'stowage-openapi-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc))
  const lint = spawnSync(process.execPath, ['node_modules/@redocly/cli/bin/cli.js', 'lint', '--format=json', join(dir, 'openapi.json')], {
    encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }
  })
  t.equal(lint.status, 0, lint.stderr.slice(-2000))
  const report = JSON.parse(lint.stdout.slice(lint.stdout.indexOf('{'))) as { totals: { errors: number, warnings: number }, problems: Array<{ message: string }> }
  t.equal(report.totals.errors, 0, report.problems.map((problem) => problem.message).join('; '))
})

t.test('GET /docs is a documentation page that needs nothing from the network', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  const page = await app.inject({ url: '/docs/' })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, url]) => url)
  t.ok(assets.length >= 3, `assets: ${assets.join(', ')}`)
  for (const asset of assets) {
    t.notMatch(asset, /^(https?:)?\/\//, `${asset} is served by Stowage itself`)
    t.equal((await app.inject({ url: new URL(asset, 'http://stowage/docs/').pathname })).statusCode, 200, asset)
  }
  const initializer = await app.inject({ url: '/docs/static/swagger-initializer.js' })
  t.match(initializer.body, /validatorUrl: null/, 'no call to the online validator')
  t.match((await app.inject({ url: '/docs/json' })).json(), { info: { title: 'Stowage' } }, 'the page reads the document from the service')
})
