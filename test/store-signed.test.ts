import t from 'tap'
import { bearer, buildTestApp } from './helpers/app.js'
import { startS3Server, TEST_S3_CREDENTIALS } from './helpers/s3.js'
import { startS3Front } from './helpers/s3-front.js'
import { startSignatureCheckingS3 } from './helpers/s3-signatures.js'

// The S3 driver reads (GetObject, HeadObject) and writes a body in memory (PutObject) without the
// SDK's middleware, signed by SigV4 itself, and copies and deletes through the SDK: here through a
// front that checks every signature and signed payload as S3 does, and a proxy that fails requests
// on demand, as a store under load does.
const store = await startS3Server()
const signatures = await startSignatureCheckingS3(store)
t.teardown(async () => { await signatures.close(); await store.close() })

/** A front that answers the next `failing.count` GetObjects, PutObjects or CopyObjects
 *  (`failing.method`: GET, PUT or COPY) with `failing.status` and S3's error body (a CopyObject's
 *  with 200: S3's failure during a copy), and counts them by path, keeping the last PutObject's headers. */
async function startFailingProxy (target: URL) {
  const failing = { count: 0, method: 'GET', status: 503, code: 'SlowDown' }
  const counts = { GET: new Map<string, number>(), PUT: new Map<string, number>(), COPY: new Map<string, number>() }
  const lastPut: { headers?: Record<string, unknown> } = {}
  const front = await startS3Front(target, (incoming, answer) => {
    const method = incoming.method === 'PUT' && incoming.headers['x-amz-copy-source'] ? 'COPY' : incoming.method
    if (method !== 'GET' && method !== 'PUT' && method !== 'COPY') return false
    const path = decodeURIComponent(incoming.url!.split('?')[0])
    counts[method].set(path, (counts[method].get(path) ?? 0) + 1)
    if (method === 'PUT') lastPut.headers = incoming.headers
    if (failing.count === 0 || method !== failing.method) return false
    failing.count--
    incoming.resume()
    answer.writeHead(failing.status, { 'content-type': 'application/xml' })
    answer.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${failing.code}</Code><Message>Please reduce your request rate.</Message></Error>`)
    return true
  })
  t.teardown(front.close)
  return { endpoint: front.endpoint, failing, gets: counts.GET, puts: counts.PUT, copies: counts.COPY, lastPut }
}

const proxy = await startFailingProxy(new URL(signatures.s3.endpoint))
const { app, close } = await buildTestApp({ driver: 's3', s3: { ...store, endpoint: proxy.endpoint } })
t.teardown(close)
const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
const alice = bearer(key)
const keyOf = (path: string) => `/${store.bucket}/users/alice/files/${path}`

// Names whose encoding SigV4 and S3 are particular about: spaces, non-ASCII, "+", "%", the
// characters encodeURIComponent leaves alone but RFC 3986 does not, and reserved ones.
const names = ['a b.txt', 'ünï/çødé.txt', 'plus+and%25.txt', "!'()*~.txt", '[x]{y}&=;,@$.txt']

t.test('writes and reads of files of every name are signed as S3 checks them: the write with its payload\'s hash, the reads whole, by range, and before each write', async (t) => {
  const checked = signatures.counts.checked
  const refused = signatures.counts.refused
  const bodies = signatures.counts.bodiesChecked
  for (const name of names) {
    const path = name.split('/').map(encodeURIComponent).join('/')
    const content = `the content of ${name}`
    const put = await app.inject({ method: 'PUT', url: `/api/raw/${path}`, headers: { ...alice, 'content-type': 'text/plain' }, payload: content })
    t.equal(put.statusCode, 200, `PUT ${name}`)
    const whole = await app.inject({ url: `/api/raw/${path}`, headers: alice })
    t.equal(whole.statusCode, 200, `GET ${name}`)
    t.equal(whole.body, content)
    t.equal(whole.headers['content-type'], 'text/plain')
    t.equal(whole.headers.etag, put.headers.etag)
    const range = await app.inject({ url: `/api/raw/${path}`, headers: { ...alice, range: 'bytes=4-10' } })
    t.equal(range.statusCode, 206, `GET ${name}, a range`)
    t.equal(range.body, content.slice(4, 11))
    t.equal(range.headers['content-range'], `bytes 4-10/${Buffer.byteLength(content)}`)
    t.equal(proxy.gets.get(keyOf(name)), 2, `${name}: two GetObjects reached the store`)
    t.equal(proxy.puts.get(keyOf(name)), 1, `${name}: one PutObject reached the store`)
  }
  t.equal(signatures.counts.refused - refused, 0, 'no signature or payload refused')
  t.equal(signatures.counts.bodiesChecked - bodies, names.length, 'each PutObject\'s body checked against the SHA-256 it was signed with')
  // Each name: a HeadObject before its write, its PutObject, two GetObjects.
  t.ok(signatures.counts.checked - checked >= 4 * names.length, `${signatures.counts.checked - checked} signatures checked`)
})

t.test('a read the store refuses for its signature is 503, and the front does check them', async (t) => {
  const refused = signatures.counts.refused
  signatures.checking.secretAccessKey = 'not the secret'
  t.teardown(() => { signatures.checking.secretAccessKey = TEST_S3_CREDENTIALS.secretAccessKey })
  const read = await app.inject({ url: `/api/raw/${encodeURIComponent('a b.txt')}`, headers: alice })
  t.equal(read.statusCode, 503)
  t.same(read.json(), { error: 'the file store is unavailable, try again shortly' })
  t.equal(signatures.counts.refused - refused, 1, 'refused once: a refusal of the signature is not tried again')
})

t.test('a GetObject the store answers with 503 or 500 is tried again, three times in all', async (t) => {
  const path = keyOf('a b.txt')
  const before = proxy.gets.get(path)!
  Object.assign(proxy.failing, { count: 2, status: 503, code: 'SlowDown' })
  const read = await app.inject({ url: `/api/raw/${encodeURIComponent('a b.txt')}`, headers: alice })
  t.equal(read.statusCode, 200, 'the third attempt succeeds')
  t.equal(read.body, 'the content of a b.txt')
  t.equal(proxy.gets.get(path)! - before, 3)

  Object.assign(proxy.failing, { count: 3, status: 500, code: 'InternalError' })
  const failed = await app.inject({ url: `/api/raw/${encodeURIComponent('a b.txt')}`, headers: alice })
  t.equal(failed.statusCode, 503, 'three failures: the store is unavailable')
  t.equal(failed.headers['retry-after'], '5')
  t.equal(proxy.gets.get(path)! - before, 6, 'and not tried a fourth time')
  t.equal(proxy.failing.count, 0)
})

t.test('a PutObject the store answers with 503 or 500 is sent again, three times in all; the file stays as it was', async (t) => {
  const path = keyOf('retried.txt')
  Object.assign(proxy.failing, { count: 2, method: 'PUT', status: 503, code: 'SlowDown' })
  const put = await app.inject({ method: 'PUT', url: '/api/raw/retried.txt', headers: alice, payload: 'first' })
  t.equal(put.statusCode, 200, 'the third attempt succeeds')
  t.equal(proxy.puts.get(path), 3)

  Object.assign(proxy.failing, { count: 3, method: 'PUT', status: 500, code: 'InternalError' })
  const failed = await app.inject({ method: 'PUT', url: '/api/raw/retried.txt', headers: alice, payload: 'second' })
  t.equal(failed.statusCode, 503, 'three failures: the store is unavailable')
  t.equal(failed.headers['retry-after'], '5')
  t.equal(proxy.puts.get(path), 6, 'and not sent a fourth time')
  t.equal((await app.inject({ url: '/api/raw/retried.txt', headers: alice })).body, 'first')
  t.equal(proxy.failing.count, 0)
})

t.test('a conditional write hands its condition to the store, and the store\'s own refusal is 412', async (t) => {
  const created = await app.inject({ method: 'PUT', url: '/api/raw/conditional.txt', headers: { ...alice, 'if-none-match': '*' }, payload: 'one' })
  t.equal(created.statusCode, 200)
  t.equal(proxy.lastPut.headers?.['if-none-match'], '*', 'If-None-Match: * sent with the PutObject')
  const etag = created.headers.etag as string
  // A writer that bypassed Stowage changed the object between the look and the PutObject: S3 refuses it.
  Object.assign(proxy.failing, { count: 1, method: 'PUT', status: 412, code: 'PreconditionFailed' })
  const refused = await app.inject({ method: 'PUT', url: '/api/raw/conditional.txt', headers: { ...alice, 'if-match': etag }, payload: 'two' })
  t.equal(refused.statusCode, 412)
  t.same(refused.json(), { error: 'the file has changed (the store refused the write)' })
  t.equal(proxy.lastPut.headers?.['if-match'], etag, 'If-Match sent with the PutObject')
  t.equal((await app.inject({ url: '/api/raw/conditional.txt', headers: alice })).body, 'one')
  t.equal(proxy.failing.count, 0, 'the refusal was not tried again')
})

t.test('a version kept, a copy, a delete to the trash and its restore, of a name S3 is particular about, pass the signature check', async (t) => {
  const refused = signatures.counts.refused
  const name = 'ünï/kept & copied+1.txt'
  const url = `/api/raw/${name.split('/').map(encodeURIComponent).join('/')}`
  t.equal((await app.inject({ method: 'PUT', url, headers: alice, payload: 'first' })).statusCode, 200)
  const second = await app.inject({ method: 'PUT', url, headers: alice, payload: 'second' })
  t.equal(second.statusCode, 200)
  const { versions } = (await app.inject({ url: `/api/versions?path=${encodeURIComponent(name)}`, headers: alice })).json() as { versions: Array<{ id: string }> }
  t.equal(versions.length, 1, 'the first content kept as a version')
  t.equal((await app.inject({ url: `/api/versions/${versions[0].id}`, headers: alice })).body, 'first')

  const copied = await app.inject({ method: 'POST', url: '/api/copies', headers: alice, payload: { from: name, to: 'a copy.txt' } })
  t.equal(copied.statusCode, 200)
  t.equal(copied.json().etag, second.headers.etag, 'the copy\'s ETag, as the store answered it')
  t.equal((await app.inject({ url: `/api/raw/${encodeURIComponent('a copy.txt')}`, headers: alice })).body, 'second')

  const deleted = await app.inject({ method: 'DELETE', url, headers: alice })
  t.equal(deleted.statusCode, 204)
  t.equal((await app.inject({ url, headers: alice })).statusCode, 404, 'deleted from the store')
  const restored = await app.inject({ method: 'POST', url: `/api/trash/${deleted.headers['stowage-trash-id']}/restore`, headers: alice })
  t.equal(restored.statusCode, 200)
  t.equal((await app.inject({ url, headers: alice })).body, 'second', 'restored from the trash')
  t.ok((proxy.copies.get(keyOf('a copy.txt')) ?? 0) >= 1, 'the copy made by a CopyObject')
  t.equal(signatures.counts.refused - refused, 0, 'no signature refused')
})

t.test('a CopyObject the store answers with 200 and an error is tried again, three times in all; the file it would replace stays', async (t) => {
  t.equal((await app.inject({ method: 'PUT', url: '/api/raw/versioned.txt', headers: alice, payload: 'one' })).statusCode, 200)
  const versionsOf = async () => ((await app.inject({ url: '/api/versions?path=versioned.txt', headers: alice })).json() as { versions: unknown[] }).versions.length
  const copies = () => [...proxy.copies.entries()].filter(([path]) => path.includes('/stowage-versions/')).reduce((sum, [, count]) => sum + count, 0)
  const before = copies()
  Object.assign(proxy.failing, { count: 2, method: 'COPY', status: 200, code: 'InternalError' })
  t.equal((await app.inject({ method: 'PUT', url: '/api/raw/versioned.txt', headers: alice, payload: 'two' })).statusCode, 200, 'the third attempt keeps the version')
  t.equal(copies() - before, 3)
  t.equal(await versionsOf(), 1)

  Object.assign(proxy.failing, { count: 3, method: 'COPY', status: 200, code: 'InternalError' })
  const failed = await app.inject({ method: 'PUT', url: '/api/raw/versioned.txt', headers: alice, payload: 'three' })
  t.equal(failed.statusCode, 503, 'three failures: the store is unavailable')
  t.equal(copies() - before, 6, 'and not tried a fourth time')
  t.equal((await app.inject({ url: '/api/raw/versioned.txt', headers: alice })).body, 'two', 'the file as it was')
  t.equal(await versionsOf(), 1, 'no version recorded')
  t.equal(proxy.failing.count, 0)
})
