import { UNAUTHORIZED } from '../plugins/errors.js'
import t from 'tap'
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3'
import { readdir } from 'node:fs/promises'
import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { createS3Client } from '../storage/s3-store.js'
import { bearer, buildTestApp, IDP_CHALLENGE } from './helpers/app.js'
import { startIdp } from './helpers/idp.js'
import { startS3Server } from './helpers/s3.js'

const idp = await startIdp()
const s3 = await startS3Server()
t.teardown(async () => { await idp.close(); await s3.close() })

const MAX_FILE_BYTES = 4096
const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64')
const url = (path: string) => `/api/files/${path.split('/').map(encodeURIComponent).join('/')}`

for (const driver of ['fs', 's3'] as const) {
  t.test(`file API on the ${driver} driver`, async (t) => {
    const { app, config, close } = await buildTestApp({ driver, s3, idp, env: { MAX_FILE_BYTES: String(MAX_FILE_BYTES) } })
    t.teardown(close)
    const alice = bearer(idp.token({ sub: 'alice' }))
    const bob = bearer(idp.token({ sub: 'bob' }))
    const put = (path: string, body: unknown, headers = alice) =>
      app.inject({ method: 'PUT', url: url(path), headers, payload: body as object })

    t.test('PUT stores a file and GET returns it', async (t) => {
      const written = await put('notes/hello.md', { content: b64('# Hello'), contentType: 'text/markdown' })
      t.equal(written.statusCode, 200)
      const body = written.json()
      t.match(body, { key: 'notes/hello.md', size: 7, contentType: 'text/markdown' })
      t.ok(new Date(body.lastModified).toISOString() === body.lastModified, 'lastModified is ISO 8601 UTC')
      const read = await app.inject({ url: url('notes/hello.md'), headers: alice })
      t.equal(read.statusCode, 200)
      t.same(read.json(), { content: b64('# Hello'), contentType: 'text/markdown' })
    })

    t.test('PUT replaces a file and defaults the content type', async (t) => {
      await put('replace.bin', { content: b64('one') })
      t.equal((await put('replace.bin', { content: b64('second') })).statusCode, 200)
      t.same((await app.inject({ url: url('replace.bin'), headers: alice })).json(),
        { content: b64('second'), contentType: 'application/octet-stream' })
    })

    t.test('an empty file round-trips', async (t) => {
      t.equal((await put('empty.txt', { content: '', contentType: 'text/plain' })).json().size, 0)
      t.same((await app.inject({ url: url('empty.txt'), headers: alice })).json(), { content: '', contentType: 'text/plain' })
    })

    t.test('Unicode names work', async (t) => {
      const path = 'notes/résumé 📄.md'
      t.equal((await put(path, { content: b64('ça va'), contentType: 'text/markdown; charset=utf-8' })).statusCode, 200)
      const read = await app.inject({ url: url(path), headers: alice })
      t.equal(Buffer.from(read.json().content, 'base64').toString(), 'ça va')
      const listed = await app.inject({ url: '/api/files?prefix=' + encodeURIComponent('notes/r'), headers: alice })
      t.same(listed.json().files.map((f: { key: string }) => f.key), [path])
    })

    t.test('GET of a missing file is 404 with an error body', async (t) => {
      const res = await app.inject({ url: url('nope.txt'), headers: alice })
      t.equal(res.statusCode, 404)
      t.type(res.json().error, 'string')
    })

    t.test('a body-less DELETE sent with Content-Type: application/json is 204, and an empty PUT is 400', async (t) => {
      await put('typed.txt', { content: b64('x') })
      const deleted = await app.inject({ method: 'DELETE', url: url('typed.txt'), headers: { ...alice, 'content-type': 'application/json' } })
      t.equal(deleted.statusCode, 204)
      const empty = await app.inject({ method: 'PUT', url: url('typed.txt'), headers: { ...alice, 'content-type': 'application/json' }, payload: '' })
      t.equal(empty.statusCode, 400)
      t.type(empty.json().error, 'string')
    })

    t.test('DELETE answers 204, then the file is gone and a second DELETE is 404', async (t) => {
      await put('doomed.txt', { content: b64('x') })
      const deleted = await app.inject({ method: 'DELETE', url: url('doomed.txt'), headers: alice })
      t.equal(deleted.statusCode, 204)
      t.equal(deleted.body, '')
      t.equal((await app.inject({ url: url('doomed.txt'), headers: alice })).statusCode, 404)
      t.equal((await app.inject({ method: 'DELETE', url: url('doomed.txt'), headers: alice })).statusCode, 404)
    })

    // s3rver keeps objects as files of their own name, so it can test neither of these; S3 allows both.
    if (driver === 'fs') {
      t.test('a name over 253 bytes is 400: the file system cannot hold it', async (t) => {
        const res = await put('x'.repeat(300), { content: b64('x') })
        t.equal(res.statusCode, 400)
        t.match(res.json(), { error: /too long/ })
      })

      t.test('a file and a folder of the same name can both exist, as in S3', async (t) => {
        t.equal((await put('both', { content: b64('file') })).statusCode, 200)
        t.equal((await put('both/inner', { content: b64('inner') })).statusCode, 200)
        t.equal(Buffer.from((await app.inject({ url: url('both'), headers: alice })).json().content, 'base64').toString(), 'file')
        t.equal((await app.inject({ method: 'DELETE', url: url('both'), headers: alice })).statusCode, 204)
        t.equal((await app.inject({ url: url('both/inner'), headers: alice })).statusCode, 200)
      })
    }

    t.test('content that is not strict base64 is refused with 400', async (t) => {
      for (const content of ['abc', 'YQ', 'ab=c', 'YW Jj', 'YWJj\n', 'YR==', 'YWJ=', '====', 'YW_j', 'YW-j']) {
        const res = await put('bad.bin', { content })
        t.equal(res.statusCode, 400, JSON.stringify(content))
        t.match(res.json(), { error: /base64/ })
      }
      t.equal((await app.inject({ url: url('bad.bin'), headers: alice })).statusCode, 404, 'nothing was written')
    })

    t.test('a body that is not valid JSON or not the upload shape is 400', async (t) => {
      const broken = await app.inject({
        method: 'PUT', url: url('x.txt'), headers: { ...alice, 'content-type': 'application/json' }, payload: '{"content": '
      })
      t.equal(broken.statusCode, 400)
      t.type(broken.json().error, 'string')
      t.equal((await put('x.txt', { contentType: 'text/plain' })).statusCode, 400, 'content missing')
      t.equal((await put('x.txt', { content: 5 })).statusCode, 400, 'content not a string')
      t.equal((await put('x.txt', { content: b64('x'), contentType: 'not a type' })).statusCode, 400, 'bad content type')
    })

    t.test('a body that is not JSON is 415', async (t) => {
      for (const contentType of ['text/plain', 'application/octet-stream', 'application/x-www-form-urlencoded']) {
        const res = await app.inject({
          method: 'PUT', url: url('x.txt'), headers: { ...alice, 'content-type': contentType }, payload: 'content=eA=='
        })
        t.equal(res.statusCode, 415, contentType)
        t.type(res.json().error, 'string')
      }
    })

    t.test('a file over MAX_FILE_BYTES is 413 and leaves nothing behind', async (t) => {
      t.equal((await put('limit.bin', { content: b64(Buffer.alloc(MAX_FILE_BYTES)) })).statusCode, 200, 'exactly the limit is fine')
      const over = await put('over.bin', { content: b64(Buffer.alloc(MAX_FILE_BYTES + 1)) })
      t.equal(over.statusCode, 413)
      t.type(over.json().error, 'string')
      const wayOver = await put('over.bin', { content: b64(Buffer.alloc(MAX_FILE_BYTES * 4)) })
      t.equal(wayOver.statusCode, 413, 'a body far past the limit is refused before it is parsed')
      t.equal((await app.inject({ url: url('over.bin'), headers: alice })).statusCode, 404)
      if (driver === 'fs') {
        t.same(await readdir(join(config.STORAGE_DIR, '.tmp')), [], 'no temporary file is left')
      }
    })

    t.test('requests without valid credentials are 401 with WWW-Authenticate', async (t) => {
      for (const headers of [{}, { authorization: 'Bearer' }, { authorization: 'Basic YTpi' }, bearer('not-a-token')]) {
        const res = await app.inject({ url: url('notes/hello.md'), headers })
        t.equal(res.statusCode, 401)
        t.equal(res.headers['www-authenticate'], IDP_CHALLENGE)
        t.same(res.json(), { error: UNAUTHORIZED })
      }
      const upload = await app.inject({ method: 'PUT', url: url('x'), payload: { content: b64('x') } })
      t.equal(upload.statusCode, 401, 'an upload is refused before its body matters')
    })
  })
}

t.test('listing pages: 250 files come back as 100, 100 and 50', async (t) => {
  for (const driver of ['fs', 's3'] as const) {
    await t.test(driver, async (t) => {
      const { app, close } = await buildTestApp({ driver, s3, idp })
      t.teardown(close)
      const headers = bearer(idp.token({ sub: `pager-${driver}` }))
      const names = Array.from({ length: 250 }, (_, i) => `many/file-${String(i).padStart(3, '0')}.txt`)
      for (let i = 0; i < names.length; i += 25) {
        await Promise.all(names.slice(i, i + 25).map((name) =>
          app.inject({ method: 'PUT', url: url(name), headers, payload: { content: b64(name) } })))
      }
      await app.inject({ method: 'PUT', url: url('other/outside.txt'), headers, payload: { content: b64('x') } })

      const pages = []
      let token: string | undefined
      do {
        const query = new URLSearchParams({ prefix: 'many/', ...(token ? { continuationToken: token } : {}) })
        const res = await app.inject({ url: `/api/files?${query}`, headers })
        t.equal(res.statusCode, 200)
        const page = res.json()
        t.equal('continuationToken' in page, page.isTruncated, 'continuationToken present exactly when truncated')
        pages.push(page)
        token = page.continuationToken
      } while (token)

      t.same(pages.map((page) => page.files.length), [100, 100, 50])
      const keys = pages.flatMap((page) => page.files.map((f: { key: string }) => f.key))
      t.same(keys, names, 'every file once, in order')
      t.match(pages[0].files[0], { key: 'many/file-000.txt', size: 'many/file-000.txt'.length, lastModified: /Z$/ })

      const all = (await app.inject({ url: '/api/files', headers })).json()
      t.equal(all.files.length, 100)
      t.equal(all.isTruncated, true)
      const other = (await app.inject({ url: '/api/files?prefix=other/', headers })).json()
      t.same(other, { files: [{ ...other.files[0], key: 'other/outside.txt' }], isTruncated: false }, 'prefix filters')
    })
  }
})

t.test('bad list parameters are 400', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  const headers = bearer(idp.token({ sub: 'alice' }))
  for (const query of ['prefix=%2Fabs', 'prefix=a%2F%2Fb', 'prefix=..%2F', 'prefix=a%2F..%2Fb', 'prefix=a%5Cb', 'prefix=a%00',
    'continuationToken=!!!', 'continuationToken=Li4vZXNjYXBl', 'continuationToken=' + 'A'.repeat(2000),
    'continuationToken=' + Buffer.from([0xff, 0xfe]).toString('base64url')]) {
    const res = await app.inject({ url: `/api/files?${query}`, headers })
    t.equal(res.statusCode, 400, query)
    t.type(res.json().error, 'string')
  }
})

t.test('every path refusal of DESIGN.md §4 is 400 for GET, PUT and DELETE', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  const headers = bearer(idp.token({ sub: 'alice' }))
  const refused = {
    empty: '',
    'leading slash': '%2Fetc/passwd',
    'empty segment': 'a//b',
    'trailing slash': 'a/',
    'encoded slash making dot-dot': 'a%2F..%2Fb',
    backslash: 'a%5C..%5Cb',
    NUL: 'a%00b',
    'control character': 'a%01b',
    DEL: 'a%7Fb',
    'C1 control': 'a%C2%85b',
    'over 1024 bytes': 'x'.repeat(1025),
    'over 1024 bytes in UTF-8': 'é'.repeat(513).split('').map(encodeURIComponent).join('')
  }
  for (const [name, path] of Object.entries(refused)) {
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await app.inject({
        method, url: `/api/files/${path}`, headers, ...(method === 'PUT' ? { payload: { content: b64('x') } } : {})
      })
      t.equal(res.statusCode, 400, `${method} ${name}`)
      t.type(res.json().error, 'string')
    }
  }
  const invalidEncoding = await app.inject({ url: '/api/files/a%ZZb', headers })
  t.equal(invalidEncoding.statusCode, 400, 'malformed percent-encoding')
  const longest = 'abcdefghi/'.repeat(102) + 'abcd'
  t.equal((await app.inject({ method: 'PUT', url: `/api/files/${longest}`, headers, payload: { content: b64('x') } })).statusCode, 200,
    'exactly 1024 bytes is fine')
})

// light-my-request resolves dot segments (even percent-encoded ones) as a browser would; curl
// --path-as-is and hostile clients do not, so these go over a real socket.
t.test('dot segments, raw or percent-encoded, are 400 for GET, PUT and DELETE', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const headers = { ...bearer(idp.token({ sub: 'alice' })), 'content-type': 'application/json' }
  const send = (method: string, path: string) => new Promise<number | undefined>((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', method, path, headers }, (res) => {
      res.resume()
      resolve(res.statusCode)
    })
    req.on('error', reject).end(method === 'PUT' ? JSON.stringify({ content: b64('x') }) : undefined)
  })
  for (const path of ['a/./b', 'a/../b', '../../etc/passwd', '..', '.', 'a/%2E/b', 'a/%2e%2e/b', '%2E%2E/bob/files/x', '%2e%2E']) {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      t.equal(await send(method, `/api/files/${path}`), 400, `${method} ${path}`)
    }
  }
})

t.test('users are isolated from each other', async (t) => {
  for (const driver of ['fs', 's3'] as const) {
    await t.test(driver, async (t) => {
      const { app, close } = await buildTestApp({ driver, s3, idp })
      t.teardown(close)
      const alice = bearer(idp.token({ sub: `alice-${driver}` }))
      const bob = bearer(idp.token({ sub: `bob-${driver}` }))
      await app.inject({ method: 'PUT', url: url('secret.txt'), headers: alice, payload: { content: b64('mine') } })
      t.same((await app.inject({ url: '/api/files', headers: bob })).json(), { files: [], isTruncated: false }, 'cannot list')
      t.equal((await app.inject({ url: url('secret.txt'), headers: bob })).statusCode, 404, 'cannot read')
      t.equal((await app.inject({ method: 'DELETE', url: url('secret.txt'), headers: bob })).statusCode, 404, 'cannot delete')
      t.equal((await app.inject({ url: `/api/files/..%2Falice-${driver}%2Ffiles%2Fsecret.txt`, headers: bob })).statusCode, 400, 'cannot climb out')
      t.equal((await app.inject({ url: url('secret.txt'), headers: alice })).statusCode, 200, 'still there for its owner')
    })
  }
})

t.test('a subject that is not a safe path segment is refused', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  for (const sub of ['../bob', 'a/b', '.', '..', '.hidden', 'a\\b', '', 'x'.repeat(200), 'nul\u0000', 42]) {
    const res = await app.inject({ url: '/api/files', headers: bearer(idp.token({ sub })) })
    t.equal(res.statusCode, 401, JSON.stringify(sub))
  }
})

t.test('the S3 object key is exactly users/{sub}/<root>/{path}', async (t) => {
  const { app, close } = await buildTestApp({ driver: 's3', s3, idp, env: { STORAGE_ROOT: 'docs' } })
  t.teardown(close)
  const headers = bearer(idp.token({ sub: 'key-check' }))
  await app.inject({ method: 'PUT', url: url('notes/résumé 📄.md'), headers, payload: { content: b64('hi'), contentType: 'text/markdown' } })
  const client = createS3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true })
  t.teardown(() => client.destroy())
  const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'users/key-check/' }))
  t.same(listed.Contents?.map((object) => object.Key), ['users/key-check/docs/notes/résumé 📄.md'])
  const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'users/key-check/docs/notes/résumé 📄.md' }))
  t.equal(await object.Body?.transformToString(), 'hi')
  t.equal(object.ContentType, 'text/markdown')
})
