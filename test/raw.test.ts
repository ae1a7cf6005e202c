import t from 'tap'
import { Readable } from 'node:stream'
import { bearer, buildTestApp, IDP_CHALLENGE } from './helpers/app.js'
import { startIdp } from './helpers/idp.js'
import { startS3Server } from './helpers/s3.js'
import { DRIVERS } from './helpers/db.js'

const idp = await startIdp()
const s3 = await startS3Server()
t.teardown(async () => { await idp.close(); await s3.close() })

const MAX_UPLOAD_BYTES = 64 * 1024
const raw = (path: string) => `/api/raw/${path.split('/').map(encodeURIComponent).join('/')}`
const json = (path: string) => `/api/files/${path.split('/').map(encodeURIComponent).join('/')}`
const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7) % 256))

for (const driver of DRIVERS) {
  t.test(`raw file routes on the ${driver} driver`, async (t) => {
    const { app, close } = await buildTestApp({ driver, s3, idp, env: { MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES) } })
    t.teardown(close)
    const alice = bearer(idp.token({ sub: 'alice' }))
    const put = (path: string, payload: Buffer | string | Readable, headers: Record<string, string> = {}) =>
      app.inject({ method: 'PUT', url: raw(path), headers: { ...alice, ...headers }, payload })
    const get = (path: string, headers: Record<string, string> = {}) => app.inject({ url: raw(path), headers: { ...alice, ...headers } })

    t.test('PUT stores the body as it is and answers what PUT /api/files answers, with its ETag', async (t) => {
      const body = bytes(1000)
      const written = await put('media/clip.bin', body, { 'content-type': 'video/mp4' })
      t.equal(written.statusCode, 200)
      const answer = written.json()
      t.match(answer, { key: 'media/clip.bin', size: 1000, contentType: 'video/mp4' })
      t.match(answer.etag, /^"[^"]+"$/, 'a quoted, strong ETag')
      t.equal(written.headers.etag, answer.etag)

      const read = await get('media/clip.bin')
      t.equal(read.statusCode, 200)
      t.same(read.rawPayload, body, 'the same bytes')
      t.equal(read.headers['content-type'], 'video/mp4')
      t.equal(read.headers['content-length'], '1000')
      t.equal(read.headers.etag, answer.etag)
      t.equal(read.headers['last-modified'], new Date(answer.lastModified).toUTCString())
      t.equal(read.headers['accept-ranges'], 'bytes')

      const listed = await app.inject({ url: '/api/files?prefix=media/', headers: alice })
      t.same(listed.json().files.map((f: { etag: string }) => f.etag), [answer.etag], 'list items carry the ETag')
      const viaJson = await app.inject({ url: json('media/clip.bin'), headers: alice })
      t.equal(viaJson.headers.etag, answer.etag, 'the JSON form has the same ETag')
      t.same(Buffer.from(viaJson.json().content, 'base64'), body)
    })

    t.test('the ETag changes when the content does, whichever route wrote it', async (t) => {
      const first = (await put('versions.txt', 'one')).json().etag
      const second = (await app.inject({ method: 'PUT', url: json('versions.txt'), headers: alice, payload: { content: Buffer.from('two').toString('base64') } })).json().etag
      t.not(first, second)
      t.equal((await get('versions.txt')).headers.etag, second)
    })

    t.test('PUT without Content-Type stores application/octet-stream; one that is no media type is 415, a malformed one 400', async (t) => {
      const written = await app.inject({ method: 'PUT', url: raw('untyped'), headers: alice, payload: 'abc' })
      t.equal(written.json().contentType, 'application/octet-stream')
      const unparsable = await put('badly-typed', 'abc', { 'content-type': 'not a type' })
      t.equal(unparsable.statusCode, 415)
      t.match(unparsable.json().error, /Content-Type/)
      const tooLong = await put('badly-typed', 'abc', { 'content-type': 'text/' + 'x'.repeat(300) })
      t.equal(tooLong.statusCode, 400)
      t.match(tooLong.json().error, /Content-Type/)
      t.equal((await get('badly-typed')).statusCode, 404)
    })

    t.test('an empty body makes an empty file', async (t) => {
      t.equal((await put('empty', '')).json().size, 0)
      const read = await get('empty')
      t.equal(read.statusCode, 200)
      t.equal(read.rawPayload.length, 0)
      t.equal(read.headers['content-length'], '0')
    })

    t.test('HEAD answers the headers of a GET without the body', async (t) => {
      await put('head.txt', 'hello', { 'content-type': 'text/plain' })
      const head = await app.inject({ method: 'HEAD', url: raw('head.txt'), headers: alice })
      t.equal(head.statusCode, 200)
      t.equal(head.headers['content-length'], '5')
      t.equal(head.headers['content-type'], 'text/plain')
      t.equal(head.headers.etag, (await get('head.txt')).headers.etag)
      t.equal(head.rawPayload.length, 0)
      t.equal((await app.inject({ method: 'HEAD', url: raw('nothing-here'), headers: alice })).statusCode, 404)
    })

    t.test('ranges: first byte, last byte, suffix, open end, a middle, an end past the file', async (t) => {
      const body = bytes(100)
      await put('ranged.bin', body)
      const cases: Array<[string, number, number]> = [['bytes=0-0', 0, 0], ['bytes=-1', 99, 99], ['bytes=-10', 90, 99], ['bytes=95-', 95, 99], ['bytes=10-19', 10, 19], ['bytes=90-1000', 90, 99]]
      for (const [range, start, end] of cases) {
        const read = await get('ranged.bin', { range })
        t.equal(read.statusCode, 206, range)
        t.equal(read.headers['content-range'], `bytes ${start}-${end}/100`, range)
        t.equal(read.headers['content-length'], String(end - start + 1), range)
        t.same(read.rawPayload, body.subarray(start, end + 1), range)
      }
    })

    t.test('a range past the end is 416 with Content-Range: bytes */size', async (t) => {
      await put('short.bin', bytes(10))
      for (const range of ['bytes=10-', 'bytes=50-60', 'bytes=-0']) {
        const read = await get('short.bin', { range })
        t.equal(read.statusCode, 416, range)
        t.equal(read.headers['content-range'], 'bytes */10', range)
        t.type(read.json().error, 'string')
      }
    })

    t.test('several ranges, another unit or a malformed Range are answered 200 whole', async (t) => {
      await put('whole.bin', bytes(10))
      for (const range of ['bytes=0-1,3-4', 'items=0-1', 'bytes=5-2', 'bytes=x-']) {
        const read = await get('whole.bin', { range })
        t.equal(read.statusCode, 200, range)
        t.equal(read.rawPayload.length, 10, range)
      }
    })

    t.test('If-Range: a stale ETag gets the whole file, the current one the range', async (t) => {
      const stale = (await put('if-range.bin', bytes(10))).json().etag
      const current = (await put('if-range.bin', bytes(20))).json().etag
      const whole = await get('if-range.bin', { range: 'bytes=0-4', 'if-range': stale })
      t.equal(whole.statusCode, 200)
      t.equal(whole.rawPayload.length, 20)
      const part = await get('if-range.bin', { range: 'bytes=0-4', 'if-range': current })
      t.equal(part.statusCode, 206)
      t.equal(part.rawPayload.length, 5)
    })

    t.test('304 for a matching If-None-Match or an If-Modified-Since not before the last change; GET, HEAD and JSON alike', async (t) => {
      const etag = (await put('cached.txt', 'v1')).json().etag
      for (const [method, url] of [['GET', raw('cached.txt')], ['HEAD', raw('cached.txt')], ['GET', json('cached.txt')]] as const) {
        const fresh = await app.inject({ method, url, headers: { ...alice, 'if-none-match': etag } })
        t.equal(fresh.statusCode, 304, `${method} ${url}`)
        t.equal(fresh.rawPayload.length, 0)
        t.equal(fresh.headers.etag, etag)
        const weak = await app.inject({ method, url, headers: { ...alice, 'if-none-match': `"other", W/${etag}` } })
        t.equal(weak.statusCode, 304, 'a weak or listed ETag matches too')
        t.equal((await app.inject({ method, url, headers: { ...alice, 'if-none-match': '"other"' } })).statusCode, 200)
      }
      const later = new Date(Date.now() + 60_000).toUTCString()
      const earlier = new Date(Date.now() - 3600_000).toUTCString()
      t.equal((await get('cached.txt', { 'if-modified-since': later })).statusCode, 304)
      t.equal((await get('cached.txt', { 'if-modified-since': earlier })).statusCode, 200)
      t.equal((await get('cached.txt', { 'if-modified-since': later, 'if-none-match': '"other"' })).statusCode, 200, 'If-None-Match wins over If-Modified-Since')
    })

    t.test('every failing precondition is 412 and changes nothing', async (t) => {
      const etag = (await put('guarded.txt', 'original')).json().etag
      const unchanged = async () => t.equal((await get('guarded.txt')).payload, 'original')
      const refusals: Array<[string, string, Record<string, string>]> = [
        ['PUT', raw('guarded.txt'), { 'if-match': '"stale"' }],
        ['PUT', raw('guarded.txt'), { 'if-match': 'W/' + etag }],
        ['PUT', raw('guarded.txt'), { 'if-none-match': '*' }],
        ['PUT', json('guarded.txt'), { 'if-match': '"stale"' }],
        ['PUT', json('guarded.txt'), { 'if-none-match': '*' }],
        ['DELETE', raw('guarded.txt'), { 'if-match': '"stale"' }],
        ['DELETE', json('guarded.txt'), { 'if-match': '"stale"' }],
        ['PUT', raw('absent.txt'), { 'if-match': '*' }],
        ['DELETE', raw('absent.txt'), { 'if-match': etag }]
      ]
      for (const [method, url, conditions] of refusals) {
        const payload = url.startsWith('/api/files') && method === 'PUT' ? { content: Buffer.from('changed').toString('base64') } : method === 'PUT' ? 'changed' : undefined
        const answer = await app.inject({ method, url, headers: { ...alice, ...conditions }, payload })
        t.equal(answer.statusCode, 412, `${method} ${url} ${JSON.stringify(conditions)}`)
        t.type(answer.json().error, 'string')
      }
      await unchanged()
      t.equal((await get('absent.txt')).statusCode, 404, 'If-Match: * created nothing')
    })

    t.test('a precondition that holds lets the write through', async (t) => {
      const etag = (await put('cas.txt', 'one', { 'if-none-match': '*' })).json().etag
      const next = await put('cas.txt', 'two', { 'if-match': etag })
      t.equal(next.statusCode, 200)
      t.equal((await put('cas.txt', 'three', { 'if-match': '*' })).statusCode, 200)
      const current = (await get('cas.txt')).headers.etag as string
      t.equal((await app.inject({ method: 'DELETE', url: raw('cas.txt'), headers: { ...alice, 'if-match': current } })).statusCode, 204)
      t.equal((await get('cas.txt')).statusCode, 404)
    })

    t.test('a malformed If-Match or If-None-Match is 400', async (t) => {
      const answer = await put('cas-bad.txt', 'x', { 'if-match': 'no-quotes' })
      t.equal(answer.statusCode, 400)
      t.match(answer.json().error, /If-Match/)
      const creator = await put('cas-bad.txt', 'x', { 'if-none-match': 'no-quotes' })
      t.equal(creator.statusCode, 400)
      t.match(creator.json().error, /If-None-Match/)
      t.equal((await get('cas-bad.txt')).statusCode, 404, 'nothing was written')
    })

    t.test('of concurrent writers holding the same ETag, exactly one wins', async (t) => {
      const etag = (await put('race.txt', 'start')).json().etag
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => put('race.txt', `writer ${i}`, { 'if-match': etag })))
      const statuses = answers.map((answer) => answer.statusCode).sort()
      t.same(statuses, [200, 412, 412, 412, 412, 412, 412, 412])
      const winner = answers.find((answer) => answer.statusCode === 200)!.json()
      t.equal((await get('race.txt')).headers.etag, winner.etag, 'the winner\'s write is the one stored')
    })

    t.test('of concurrent If-None-Match: * creators, exactly one wins', async (t) => {
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => put('created-once.txt', `creator ${i}`, { 'if-none-match': '*' })))
      t.same(answers.map((answer) => answer.statusCode).sort(), [200, 412, 412, 412, 412, 412, 412, 412])
    })

    t.test('over MAX_UPLOAD_BYTES: 413 by the declared length, and as the bytes pass it; the old file stays', async (t) => {
      await put('limited.bin', 'old')
      const declared = await put('limited.bin', Buffer.alloc(MAX_UPLOAD_BYTES + 1))
      t.equal(declared.statusCode, 413)
      t.type(declared.json().error, 'string')
      // A stream has no declared length: light-my-request sends it chunked.
      const streamed = await put('limited.bin', Readable.from([Buffer.alloc(MAX_UPLOAD_BYTES), Buffer.alloc(10)]))
      t.equal(streamed.statusCode, 413)
      t.equal((await get('limited.bin')).payload, 'old')
      t.equal((await put('limited.bin', Buffer.alloc(MAX_UPLOAD_BYTES))).statusCode, 200, 'exactly the limit is accepted')
    })

    t.test('raw answers never run in the browser: nosniff, a sandbox, and active types as attachments', async (t) => {
      await put('page.html', '<script>alert(1)</script>', { 'content-type': 'text/html; charset=utf-8' })
      const page = await get('page.html')
      t.equal(page.headers['x-content-type-options'], 'nosniff')
      t.match(page.headers['content-security-policy'], /sandbox/)
      t.match(page.headers['content-security-policy'], /default-src 'none'/)
      t.equal(page.headers['content-disposition'], 'attachment; filename="page.html"; filename*=UTF-8\'\'page.html')
      for (const type of ['image/svg+xml', 'application/xml', 'application/javascript', 'text/javascript', 'application/xhtml+xml', 'application/atom+xml']) {
        await put('active', '<x/>', { 'content-type': type })
        t.match((await get('active')).headers['content-disposition'], /^attachment/, type)
      }
      await put('photo 📷.png', 'png', { 'content-type': 'image/png' })
      const photo = await get('photo 📷.png')
      t.equal(photo.headers['content-disposition'], undefined, 'a passive type is shown inline')
      t.equal(photo.headers['x-content-type-options'], 'nosniff')
      await put('résumé.svg', '<svg/>', { 'content-type': 'image/svg+xml' })
      t.equal((await get('résumé.svg')).headers['content-disposition'], 'attachment; filename="r_sum_.svg"; filename*=UTF-8\'\'r%C3%A9sum%C3%A9.svg')
    })

    t.test('only inert types are shown inline: pictures but SVG, audio, video, PDF, plain text; any other type is a download', async (t) => {
      for (const type of ['image/png', 'image/jpeg', 'image/webp', 'audio/mpeg', 'video/mp4', 'application/pdf', 'text/plain', 'text/plain; charset=utf-8', 'TEXT/PLAIN']) {
        await put('inert', 'x', { 'content-type': type })
        t.equal((await get('inert')).headers['content-disposition'], undefined, `${type} inline`)
      }
      for (const type of ['text/markdown', 'text/css', 'application/json', 'text/csv', 'application/octet-stream', 'image/svg+xml', 'image/x-unknown', 'multipart/x-mixed-replace; boundary=b']) {
        await put('other', 'x', { 'content-type': type })
        t.match((await get('other')).headers['content-disposition'], /^attachment; filename="other"/, `${type} downloaded`)
      }
    })

    t.test('a content type is one type/subtype with token or quoted parameters: a comma list, which a browser reads as its last type, is 400', async (t) => {
      // A bare list is no media type at all, which Fastify answers 415 (as 'not a type' above).
      for (const [type, status] of [['text/plain; x=1, text/html', 400], ['text/plain, text/html', 415], ['text/plain; x="a, text/html"', 400], ['text/plain; x', 400], ['text/plain; x=<b>', 400]] as const) {
        const refused = await put('evil.txt', '<h1>Sign in</h1>', { 'content-type': type })
        t.equal(refused.statusCode, status, type)
        t.match(refused.json(), { error: /Content-Type must be a media type/ })
        const viaJson = await app.inject({ method: 'PUT', url: json('evil.txt'), headers: alice, payload: { content: 'eA==', contentType: type } })
        t.equal(viaJson.statusCode, 400, `JSON: ${type}`)
      }
      t.equal((await get('evil.txt')).statusCode, 404, 'nothing stored')
      for (const type of ['text/plain;charset="utf-8"', 'application/json; charset=utf-8; profile="a\\"b"', 'multipart/mixed; boundary=----x']) {
        t.equal((await put('fine.txt', 'x', { 'content-type': type })).statusCode, 200, type)
      }
    })

    t.test('a file stored with a comma list before types were checked is served as a download of no type', async (t) => {
      const smuggled = 'text/plain; x=1, text/html'
      await app.stowageFiles.write({ userId: 'alice', orgId: null }, 'old.txt', Readable.from([Buffer.from('<h1>Sign in</h1>')]), { contentType: smuggled })
      const served = await get('old.txt')
      t.equal(served.statusCode, 200)
      t.equal(served.headers['content-type'], 'application/octet-stream')
      t.match(served.headers['content-disposition'], /^attachment/)
    })

    t.test('paths follow the same rules, and users stay apart', async (t) => {
      // Encoded dot segments are 400 over a real socket (test/files.test.ts); inject resolves them first.
      for (const url of ['/api/raw/a//b', '/api/raw/a/%2E', '/api/raw/a%5Cb', '/api/raw/a%00b']) {
        t.equal((await app.inject({ method: 'PUT', url, headers: alice, payload: 'x' })).statusCode, 400, url)
        for (const method of ['GET', 'HEAD', 'DELETE'] as const) {
          t.equal((await app.inject({ method, url, headers: alice })).statusCode, 400, `${method} ${url}`)
        }
      }
      await put('private.txt', 'alice only')
      const bob = bearer(idp.token({ sub: 'bob' }))
      t.equal((await app.inject({ url: raw('private.txt'), headers: bob })).statusCode, 404)
      t.equal((await app.inject({ method: 'DELETE', url: raw('private.txt'), headers: bob })).statusCode, 404)
      t.equal((await get('private.txt')).payload, 'alice only')
    })

    t.test('without credentials every raw route is 401', async (t) => {
      for (const method of ['GET', 'HEAD', 'PUT', 'DELETE'] as const) {
        const answer = await app.inject({ method, url: raw('x'), payload: method === 'PUT' ? 'x' : undefined })
        t.equal(answer.statusCode, 401, method)
        t.equal(answer.headers['www-authenticate'], IDP_CHALLENGE)
      }
    })

    t.test('a missing file is 404 for GET and DELETE', async (t) => {
      t.equal((await get('never.txt')).statusCode, 404)
      t.equal((await app.inject({ method: 'DELETE', url: raw('never.txt'), headers: alice })).statusCode, 404)
    })
  })
}
