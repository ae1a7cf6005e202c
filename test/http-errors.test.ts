import t from 'tap'
import type { InjectOptions } from 'fastify'
import { bearer, buildTestApp } from './helpers/app.js'
import { rawRequest } from './helpers/net.js'

t.test('errors raised before routing have the {error} shape', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as { port: number }).port

  const badUrl = await rawRequest(port, 'GET /api/files/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
  t.equal(badUrl.status, 400)
  t.same(Object.keys(JSON.parse(badUrl.body)), ['error'], 'an undecodable URL')

  const overflow = await rawRequest(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`)
  t.equal(overflow.status, 431)
  t.same(JSON.parse(overflow.body), { error: 'the request headers are too large' })

  const badLength = await rawRequest(port, 'PUT /api/files/a HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\nConnection: close\r\n\r\n')
  t.equal(badLength.status, 400)
  t.same(JSON.parse(badLength.body), { error: 'the request is not valid HTTP' })

  const unknownMethod = await rawRequest(port, 'FROBNICATE /dav/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
  t.equal(unknownMethod.status, 501, 'a method the server does not know is not served, not malformed')
  t.same(JSON.parse(unknownMethod.body), { error: 'the request\'s method is not one this server serves' })
})

t.test('NUL and other control characters in key names and ids are 400, on either database', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
  for (const name of ['a\u0000b', 'tab\there', 'bell\u0007', 'c1\u0085']) {
    const res = await app.inject({ method: 'POST', url: '/api/keys', headers: bearer(key), payload: { name } })
    t.equal(res.statusCode, 400, JSON.stringify(name))
    t.type(res.json().error, 'string')
  }
  for (const id of ['%00', 'abc%00def', 'a%0Ab', 'a%C2%85b', 'not-base62']) {
    const res = await app.inject({ method: 'DELETE', url: `/api/keys/${id}`, headers: bearer(key) })
    t.equal(res.statusCode, 400, id)
    t.type(res.json().error, 'string')
  }
})

t.test('a refused input says which field, where, and what it takes, never a schema path; a JSON route says it takes JSON; a 401 says what is expected', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
  const headers = bearer(key)
  const refused = async (request: InjectOptions) => {
    const answer = await app.inject(request)
    t.equal(answer.statusCode, 400, JSON.stringify(answer.json()))
    return (answer.json() as { error: string }).error
  }
  t.equal(await refused({ method: 'PUT', url: '/api/files/a.txt', headers, payload: { content: 5 } }), 'content (in the body) must be a string')
  t.equal(await refused({ method: 'POST', url: '/api/links', headers, payload: { path: 'a.txt', method: 'download', expiresIn: 0 } }), 'expiresIn (in the body) must be at least 1')
  t.equal(await refused({ method: 'POST', url: '/api/links', headers, payload: { path: 'a.txt' } }), 'method (in the body) is required')
  t.equal(await refused({ url: '/api/versions/not-an-id', headers }), 'id (in the path) is not in the form it takes')
  t.match(await refused({ url: '/api/changes?cursor=x&wait=soon', headers }), /^wait \(in the query\) /)
  t.equal(await refused({ method: 'POST', url: '/api/keys', headers, payload: { name: 'k', extra: 1 } }), 'extra (in the body) is not a field this takes')
  const asText = await app.inject({ method: 'PUT', url: '/api/files/a.txt', headers: { ...headers, 'content-type': 'text/plain' }, payload: 'hello' })
  t.equal(asText.statusCode, 415)
  t.match(asText.json(), { error: /takes a JSON body \(Content-Type: application\/json\).*\/api\/raw\/\{path\}/ })
  const anonymous = await app.inject({ url: '/api/files' })
  t.equal(anonymous.statusCode, 401)
  t.match(anonymous.json(), { error: /^Unauthorized: send Authorization: Bearer with an API key/ })
})

t.test('a method a path does not take is 405 with Allow; a path that is nowhere is 404', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
  const patched = await app.inject({ method: 'PATCH', url: '/api/files/a.txt', headers: bearer(key) })
  t.equal(patched.statusCode, 405)
  t.match(patched.headers.allow, /GET.*PUT.*DELETE/)
  t.match(patched.json(), { error: /^PATCH is not served at \/api\/files\/a\.txt: it takes GET/ })
  t.equal((await app.inject({ method: 'GET', url: '/api/nothing-here' })).statusCode, 404)
})
