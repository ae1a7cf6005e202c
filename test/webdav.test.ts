import t, { type Test } from 'tap'
import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { bearer, buildTestApp } from './helpers/app.js'
import { createTestDatabase, DRIVERS } from './helpers/db.js'
import { startIdp } from './helpers/idp.js'
import { startS3Server } from './helpers/s3.js'
import { captureLogs, waitFor } from './helpers/wait.js'
import { keyChecksum } from '../keys/api-key.js'

// WebDAV's contract, request by request: every refusal of DESIGN §12 and RFC 4918 that the server
// makes, isolation, the quota, versions, the trash, the journal, dead properties and locks.

const idp = await startIdp()
const s3 = await startS3Server()
t.teardown(async () => { await idp.close(); await s3.close() })

const basic = (key: string, user = 'alice') => ({ authorization: `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}` })

async function setup (t: Test, { driver = 'fs', env = {} }: { driver?: 'fs' | 's3', env?: Record<string, string> } = {}) {
  const logs = captureLogs()
  const test = await buildTestApp({ driver, s3, idp, env: { LOG_LEVEL: 'info', ...env }, logStream: logs.stream })
  t.teardown(test.close)
  const { app } = test
  const user = `dav-${driver}-${Math.random().toString(36).slice(2, 8)}`
  const { key } = await app.stowageKeys.create({ userId: user, orgId: null })
  const { key: otherKey } = await app.stowageKeys.create({ userId: `${user}-bob`, orgId: null })
  /** A WebDAV request as alice (or with `headers`' own authorization). */
  const dav = async (method: string, path: string, { headers = {}, body }: { headers?: Record<string, string>, body?: string | Buffer } = {}) =>
    await app.inject({ method: method as 'GET', url: `/dav/${path}`, headers: { ...basic(key), ...headers }, ...body === undefined ? {} : { payload: body } })
  const api = async (url: string) => (await app.inject({ url, headers: bearer(key) })).json()
  return { ...test, logs, key, otherKey, user, dav, api }
}

/** A request whose path goes out as written (node:http does not resolve dot segments). */
function rawRequest (app: Awaited<ReturnType<typeof setup>>['app'], method: string, path: string, headers: Record<string, string>, body?: string) {
  const { port } = app.server.address() as AddressInfo
  return new Promise<{ status: number, body: string }>((resolve, reject) => {
    request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      let text = ''
      response.setEncoding('utf8').on('data', (chunk: string) => { text += chunk }).on('end', () => resolve({ status: response.statusCode!, body: text }))
    }).on('error', reject).end(body)
  })
}

const PROPFIND_ALL = '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>'
const lockBody = (scope: 'exclusive' | 'shared', owner = 'tester') =>
  `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:${scope}/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>${owner}</D:owner></D:lockinfo>`
const tokenOf = (headers: Record<string, unknown>) => /^<(.+)>$/.exec(String(headers['lock-token']))![1]

t.test('authentication: OPTIONS answers anyone; a 401 offers Basic beside Bearer; Basic with an API key and a JWT both work; wrong Basic passwords count against the address and never reach the log', async (t) => {
  const { app, dav, key, logs } = await setup(t, { env: { AUTH_FAILURES_PER_ADDRESS: '3', METRICS_PORT: '0' } })
  const options = await app.inject({ method: 'OPTIONS', url: '/dav/' })
  t.equal(options.statusCode, 200)
  t.match(options.headers, { dav: '1, 2', 'ms-author-via': 'DAV', allow: /PROPFIND.*LOCK/ })
  const anonymous = await app.inject({ method: 'PROPFIND' as 'GET', url: '/dav/', headers: { depth: '0' } })
  t.equal(anonymous.statusCode, 401)
  t.same(anonymous.headers['www-authenticate'], ['Basic realm="Stowage", charset="UTF-8"', 'Bearer'])
  t.equal((await dav('PROPFIND', '', { headers: { depth: '0' } })).statusCode, 207, 'Basic, an API key as the password')
  t.equal((await dav('PROPFIND', '', { headers: { depth: '0', ...bearer(key) } })).statusCode, 207, 'Bearer')
  t.equal((await app.inject({ url: '/api/files', headers: basic(key) })).statusCode, 401, 'Basic is WebDAV\'s only')
  const wrong = `stow_${key.slice(5, 15)}${'x'.repeat(32)}${keyChecksum('stow', key.slice(5, 15), 'x'.repeat(32))}`
  for (let attempt = 0; attempt < 3; attempt++) t.equal((await dav('PROPFIND', '', { headers: { depth: '0', ...basic(wrong) } })).statusCode, 401)
  const another = `stow_${key.slice(5, 15)}${'w'.repeat(32)}${keyChecksum('stow', key.slice(5, 15), 'w'.repeat(32))}`
  t.equal((await dav('PROPFIND', '', { headers: { depth: '0', ...basic(another) } })).statusCode, 429, 'the address waits')
  t.equal((await dav('PROPFIND', '', { headers: { depth: '0' } })).statusCode, 207, 'a key verified before still works')
  t.notOk(logs.text().includes(wrong.slice(15)) || logs.text().includes(key.slice(15)), 'no password in the log')
  t.notOk(logs.text().includes(Buffer.from(`alice:${wrong}`).toString('base64')), 'nor the header')
  const metrics = await app.stowageMetrics!.registry.metrics()
  t.match(metrics, /stowage_http_requests_total\{route="\/dav\/",method="PROPFIND",status="207"\} 3/, 'WebDAV\'s requests are counted')
  t.match(metrics, /stowage_auth_attempts_total\{method="basic",result="refused"\} 3/)
})

t.test('PROPFIND: Depth 0 and 1, allprop, prop, propname, quota; infinity refused; malformed bodies 400', async (t) => {
  const { dav } = await setup(t, { env: { QUOTA_BYTES: '1000000' } })
  t.equal((await dav('MKCOL', 'docs')).statusCode, 201)
  t.equal((await dav('PUT', 'docs/a b.txt', { body: 'hello', headers: { 'content-type': 'text/plain' } })).statusCode, 201)
  t.equal((await dav('MKCOL', 'docs/empty')).statusCode, 201)
  const infinity = await dav('PROPFIND', 'docs', { headers: { depth: 'infinity' } })
  t.equal(infinity.statusCode, 403)
  t.match(infinity.body, /<D:propfind-finite-depth/)
  t.equal((await dav('PROPFIND', 'docs', {})).statusCode, 403, 'no Depth is infinity')
  t.equal((await dav('PROPFIND', 'docs', { headers: { depth: '1' }, body: '<foo>' })).statusCode, 400)
  t.equal((await dav('PROPFIND', 'docs', { headers: { depth: '1' }, body: '<D:propfind xmlns:D="DAV:"><D:prop><bar:foo xmlns:bar=""/></D:prop></D:propfind>' })).statusCode, 400)
  t.equal((await dav('PROPFIND', 'docs', { headers: { depth: '1' }, body: '<!DOCTYPE x [<!ENTITY a "b">]><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>' })).statusCode, 400, 'no DOCTYPE')
  t.equal((await dav('PROPFIND', 'nothing', { headers: { depth: '0' } })).statusCode, 404)
  const listing = await dav('PROPFIND', 'docs', { headers: { depth: '1' }, body: PROPFIND_ALL })
  t.equal(listing.statusCode, 207)
  t.match(listing.headers['content-type'], /application\/xml/)
  t.same([...listing.body.matchAll(/<D:href>([^<]+)<\/D:href>/g)].map((match) => match[1]), ['/dav/docs/', '/dav/docs/empty/', '/dav/docs/a%20b.txt'])
  t.match(listing.body, /<D:getcontentlength>5<\/D:getcontentlength>/)
  t.equal([...listing.body.matchAll(/<D:getlastmodified>(?!Thu, 01 Jan 1970)[^<]+<\/D:getlastmodified>/g)].length, 3, 'folders are dated (clients show 1970 for none)')
  const file = await dav('PROPFIND', 'docs/a%20b.txt', { headers: { depth: '0' } })
  t.match(file.body, /<D:getcontenttype>text\/plain<\/D:getcontenttype>/)
  t.match(file.body, /<D:getetag>"[0-9a-f]+"<\/D:getetag>/)
  t.match(file.body, /<D:resourcetype\/>/)
  const names = await dav('PROPFIND', 'docs', { headers: { depth: '0' }, body: '<D:propfind xmlns:D="DAV:"><D:propname/></D:propfind>' })
  t.match(names.body, /<D:resourcetype\/><D:creationdate\/><D:getlastmodified\/><D:supportedlock\/>/)
  const quota = await dav('PROPFIND', '', { headers: { depth: '0' }, body: '<D:propfind xmlns:D="DAV:"><D:prop><D:quota-used-bytes/><D:quota-available-bytes/><D:nope/></D:prop></D:propfind>' })
  t.match(quota.body, /<D:quota-used-bytes>5<\/D:quota-used-bytes><D:quota-available-bytes>999995<\/D:quota-available-bytes>.*200 OK.*<D:nope\/>.*404 Not Found/)
})

for (const driver of DRIVERS) {
  t.test(`${driver}: PUT, GET, MKCOL, DELETE: the file API's rules, versions for overwrites, the trash for deletes, the journal for every change`, async (t) => {
    const { dav, api, app, key } = await setup(t, { driver })
    const cursor = (await api('/api/changes/latest') as { cursor: string }).cursor
    t.equal((await dav('PUT', 'missing/a.txt', { body: 'x' })).statusCode, 409, 'no parent folder')
    t.equal((await dav('PUT', 'a.txt', { body: 'first' })).statusCode, 201)
    t.equal((await dav('PUT', 'a.txt', { body: 'second' })).statusCode, 204)
    t.equal((await api('/api/versions?path=a.txt') as { versions: unknown[] }).versions.length, 1, 'the replaced file is a version')
    t.equal((await dav('PUT', 'a.txt', { body: 'third', headers: { 'if-match': '"0123"' } })).statusCode, 412)
    const range = await dav('GET', 'a.txt', { headers: { range: 'bytes=1-3' } })
    t.equal(range.statusCode, 206)
    t.equal(range.body, 'eco')
    const head = await dav('HEAD', 'a.txt')
    t.equal(head.statusCode, 200)
    t.equal(head.headers['content-length'], '6')
    t.equal((await dav('GET', 'a.txt', { headers: { 'if-none-match': String(head.headers.etag) } })).statusCode, 304)
    t.equal((await dav('MKCOL', 'folder')).statusCode, 201)
    t.equal((await dav('MKCOL', 'folder')).statusCode, 405, 'it exists')
    t.equal((await dav('MKCOL', 'a.txt')).statusCode, 405, 'a file has the name')
    t.equal((await dav('MKCOL', 'no/such')).statusCode, 409)
    t.equal((await dav('MKCOL', 'bodied', { body: '<x/>', headers: { 'content-type': 'text/xml' } })).statusCode, 415)
    t.equal((await dav('PUT', 'folder', { body: 'x' })).statusCode, 405, 'a folder is not replaced by a file')
    t.equal((await dav('GET', 'folder')).statusCode, 405)
    t.equal((await dav('PUT', 'folder/inner/b.txt', { body: 'x' })).statusCode, 409)
    t.equal((await dav('MKCOL', 'folder/inner')).statusCode, 201)
    t.equal((await dav('PUT', 'folder/inner/b.txt', { body: 'bee' })).statusCode, 201)
    t.equal((await dav('DELETE', 'folder')).statusCode, 204, 'a folder, recursively')
    t.equal((await dav('PROPFIND', 'folder', { headers: { depth: '0' } })).statusCode, 404)
    t.equal((await dav('DELETE', 'a.txt')).statusCode, 204)
    t.equal((await dav('DELETE', 'a.txt')).statusCode, 404)
    t.equal((await dav('DELETE', '')).statusCode, 403, 'the root stays')
    const trash = await api('/api/trash') as { items: Array<{ key: string }> }
    t.same(trash.items.map((item) => item.key).sort(), ['a.txt', 'folder/inner/b.txt'])
    const changes = await app.inject({ url: `/api/changes?cursor=${cursor}`, headers: bearer(key) })
    // A file refused for its folder (or for a folder of its name) is refused before it is written: nothing journaled.
    t.same((changes.json() as { changes: Array<{ op: string, key: string }> }).changes.map(({ op, key }) => `${op} ${key}`), [
      'put a.txt', 'put a.txt', 'folder folder/', 'folder folder/inner/', 'put folder/inner/b.txt', 'delete folder/inner/b.txt', 'folder-delete folder/', 'folder-delete folder/inner/', 'delete a.txt'
    ])
    // A folder that only holds a file (never made) has that name too.
    t.equal((await app.inject({ method: 'PUT', url: '/api/raw/held/in.txt', headers: bearer(key), payload: 'in' })).statusCode, 200)
    t.equal((await dav('PUT', 'held', { body: 'x' })).statusCode, 405)
    t.equal((await dav('PUT', 'held/in.txt/deeper.txt', { body: 'x' })).statusCode, 409, 'a file is no folder')
  })
}

t.test('the quota: a PUT past it is 507 and leaves the file as it was', async (t) => {
  const { dav } = await setup(t, { env: { QUOTA_BYTES: '100', VERSION_RETENTION_DAYS: '0' } })
  t.equal((await dav('PUT', 'a.txt', { body: 'small' })).statusCode, 201)
  t.equal((await dav('PUT', 'a.txt', { body: 'x'.repeat(200) })).statusCode, 507)
  t.equal((await dav('GET', 'a.txt')).body, 'small')
  t.equal((await dav('COPY', 'a.txt', { headers: { destination: '/dav/b.txt' } })).statusCode, 201, 'room for a copy')
})

t.test('isolation: no URL form and no Destination reaches another user or leaves the root', async (t) => {
  const { app, key, dav, otherKey } = await setup(t)
  t.equal((await dav('PUT', 'secret.txt', { body: 'mine' })).statusCode, 201)
  t.equal((await dav('GET', 'secret.txt', { headers: basic(otherKey, 'bob') })).statusCode, 404, 'bob\'s root is his own')
  // Sent as written, over a socket: a URL parser would resolve the dots before they left.
  await app.listen({ port: 0, host: '127.0.0.1' })
  for (const path of ['%2e%2e/x', 'a/%2e%2e/%2e%2e/x', '%2E%2E/%2E%2E/bob/x', 'a%2F..%2Fb', '..%2Fx', 'a//b', '../x']) {
    t.equal((await rawRequest(app, 'PUT', `/dav/${path}`, { ...basic(key), 'content-length': '1' }, 'x')).status, 400, `PUT /dav/${path}`)
  }
  const destinations: Array<[string, number]> = [
    ['http://elsewhere.example/dav/copy.txt', 502],
    ['/api/raw/copy.txt', 400],
    ['/dav/../users/bob/files/copy.txt', 400],
    ['/dav/%2e%2e/%2e%2e/bob/copy.txt', 400],
    ['http://localhost:80/dav/a%2F..%2F..%2Fx', 400]
  ]
  for (const [destination, status] of destinations) {
    t.equal((await dav('COPY', 'secret.txt', { headers: { destination } })).statusCode, status, `Destination ${destination}`)
    t.equal((await dav('MOVE', 'secret.txt', { headers: { destination } })).statusCode, status, `MOVE to ${destination}`)
  }
  t.equal((await dav('COPY', 'secret.txt')).statusCode, 400, 'no Destination')
  t.equal((await dav('GET', 'secret.txt')).body, 'mine', 'the file stays')
})

t.test('COPY and MOVE: Overwrite, Depth, folders, and dead properties that follow their file by any route', async (t) => {
  const { dav, app, key, api } = await setup(t)
  const setColor = (path: string, color: string) => dav('PROPPATCH', path, { body: `<D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:colors"><D:set><D:prop><Z:color>${color}</Z:color></D:prop></D:set></D:propertyupdate>` })
  const colorOf = async (path: string) => /<x:color xmlns:x="urn:colors">([^<]*)<\/x:color>/.exec((await dav('PROPFIND', path, { headers: { depth: '0' }, body: '<D:propfind xmlns:D="DAV:"><D:prop><Z:color xmlns:Z="urn:colors"/></D:prop></D:propfind>' })).body)?.[1]
  await dav('PUT', 'a.txt', { body: 'alpha' })
  await dav('PUT', 'b.txt', { body: 'beta' })
  t.equal((await setColor('a.txt', 'red')).statusCode, 207)
  t.equal((await dav('COPY', 'a.txt', { headers: { destination: '/dav/b.txt', overwrite: 'F' } })).statusCode, 412)
  t.equal((await dav('COPY', 'a.txt', { headers: { destination: '/dav/b.txt' } })).statusCode, 204)
  t.equal((await dav('GET', 'b.txt')).body, 'alpha')
  t.equal((await api('/api/versions?path=b.txt') as { versions: unknown[] }).versions.length, 1, 'the overwritten file is a version')
  t.equal(await colorOf('b.txt'), 'red', 'a copy has its properties')
  t.equal((await dav('COPY', 'a.txt', { headers: { destination: '/dav/a.txt' } })).statusCode, 403, 'onto itself')
  t.equal((await dav('COPY', 'a.txt', { headers: { destination: '/dav/none/a.txt' } })).statusCode, 409, 'no parent')
  t.equal((await dav('COPY', 'nothing', { headers: { destination: '/dav/x' } })).statusCode, 404)
  t.equal((await dav('MOVE', 'a.txt', { headers: { destination: `http://${'localhost:80'}/dav/moved.txt` } })).statusCode, 201)
  t.equal(await colorOf('moved.txt'), 'red', 'a move carries them')
  // Moved by the file API: they follow; deleted by it: they go.
  t.equal((await app.inject({ method: 'POST', url: '/api/moves', headers: bearer(key), payload: { from: 'moved.txt', to: 'api-moved.txt' } })).statusCode, 200)
  t.equal(await colorOf('api-moved.txt'), 'red')
  t.equal((await app.inject({ method: 'DELETE', url: '/api/raw/api-moved.txt', headers: bearer(key) })).statusCode, 204)
  await dav('PUT', 'api-moved.txt', { body: 'new' })
  t.equal(await colorOf('api-moved.txt'), undefined, 'a new file at the path has none')

  await dav('MKCOL', 'tree')
  await dav('MKCOL', 'tree/sub')
  await dav('PUT', 'tree/sub/c.txt', { body: 'see' })
  await setColor('tree/sub', 'green')
  t.equal((await dav('COPY', 'tree', { headers: { destination: '/dav/shallow', depth: '0' } })).statusCode, 201)
  t.equal((await dav('PROPFIND', 'shallow', { headers: { depth: '1' } })).body.match(/<D:response>/g)?.length, 1, 'Depth 0: the folder alone')
  t.equal((await dav('COPY', 'tree', { headers: { destination: '/dav/deep' } })).statusCode, 201)
  t.equal((await dav('GET', 'deep/sub/c.txt')).body, 'see')
  t.equal(await colorOf('deep/sub'), 'green', 'a folder\'s properties copied')
  t.equal((await dav('MOVE', 'tree', { headers: { destination: '/dav/tree/sub/inside' } })).statusCode, 403, 'not inside itself')
  t.equal((await dav('MOVE', 'tree', { headers: { destination: '/dav/deep', overwrite: 'F' } })).statusCode, 412)
  t.equal((await dav('MOVE', 'tree', { headers: { destination: '/dav/deep' } })).statusCode, 204, 'onto a folder: it is replaced')
  t.equal((await dav('PROPFIND', 'tree', { headers: { depth: '0' } })).statusCode, 404)
  t.equal((await dav('GET', 'deep/sub/c.txt')).body, 'see')
  t.equal(await colorOf('deep/sub'), 'green', 'a moved folder\'s properties go with it')
})

t.test('PROPPATCH: properties with namespaces and XML values kept as sent, protected ones refused, at most 64 KiB a file', async (t) => {
  const { dav } = await setup(t)
  await dav('PUT', 'a.txt', { body: 'a' })
  const value = '<x:inner xmlns:x="urn:other">text &amp; <x:deep attr="1"/></x:inner>'
  const set = await dav('PROPPATCH', 'a.txt', { body: `<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><P:note xmlns:P="urn:notes">${value}</P:note></D:prop></D:set></D:propertyupdate>` })
  t.equal(set.statusCode, 207)
  t.match(set.body, /200 OK/)
  const got = await dav('PROPFIND', 'a.txt', { headers: { depth: '0' }, body: PROPFIND_ALL })
  t.match(got.body, '<x:note xmlns:x="urn:notes"><x:inner xmlns:x="urn:other">text &amp; <x:deep attr="1"/></x:inner></x:note>')
  const protectedOne = await dav('PROPPATCH', 'a.txt', { body: '<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><D:getetag>"x"</D:getetag><P:other xmlns:P="urn:notes">1</P:other></D:prop></D:set></D:propertyupdate>' })
  t.match(protectedOne.body, /<D:getetag\/>.*403 Forbidden.*other.*424 Failed Dependency/)
  const big = 'v'.repeat(40 * 1024)
  t.match((await dav('PROPPATCH', 'a.txt', { body: `<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><P:big1 xmlns:P="urn:b">${big}</P:big1></D:prop></D:set></D:propertyupdate>` })).body, /200 OK/)
  const over = await dav('PROPPATCH', 'a.txt', { body: `<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><P:big2 xmlns:P="urn:b">${big}</P:big2></D:prop></D:set></D:propertyupdate>` })
  t.match(over.body, /507 Insufficient Storage/, 'past 64 KiB')
  t.notMatch((await dav('PROPFIND', 'a.txt', { headers: { depth: '0' }, body: PROPFIND_ALL })).body, /big2/, 'nothing of it kept')
  t.equal((await dav('PROPPATCH', 'none.txt', { body: '<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><P:a xmlns:P="urn:b">1</P:a></D:prop></D:set></D:propertyupdate>' })).statusCode, 404)
})

t.test('locks: exclusive and shared, depth infinity on a folder, If headers, unmapped URLs, Timeout at most an hour, expiry, and every instance honouring them', async (t) => {
  const database = await createTestDatabase({ shared: true })
  t.teardown(database.drop)
  const one = await setup(t, { env: { DATABASE_URL: database.url } })
  const other = await buildTestApp({ idp, env: { DATABASE_URL: database.url } })
  t.teardown(other.close)
  const { dav } = one
  await dav('PUT', 'a.txt', { body: 'a' })
  const locked = await dav('LOCK', 'a.txt', { headers: { depth: '0', timeout: 'Second-99999' }, body: lockBody('exclusive') })
  t.equal(locked.statusCode, 200)
  t.match(locked.body, /<D:timeout>Second-3600<\/D:timeout>/, 'an hour at most')
  t.match(locked.body, /<D:owner>tester<\/D:owner>/)
  const token = tokenOf(locked.headers)
  const refused = await dav('PUT', 'a.txt', { body: 'b' })
  t.equal(refused.statusCode, 423)
  t.match(refused.body, /<D:lock-token-submitted><D:href>\/dav\/a.txt<\/D:href>/)
  const elsewhere = await other.app.inject({ method: 'PUT', url: '/dav/a.txt', headers: basic(one.key), payload: 'b' })
  t.equal(elsewhere.statusCode, 423, 'another instance honours the lock')
  t.equal((await dav('DELETE', 'a.txt')).statusCode, 423)
  t.equal((await dav('MOVE', 'a.txt', { headers: { destination: '/dav/b.txt' } })).statusCode, 423)
  t.equal((await dav('LOCK', 'a.txt', { headers: { depth: '0' }, body: lockBody('shared') })).statusCode, 423, 'no second lock on an exclusive one')
  t.equal((await dav('PUT', 'a.txt', { body: 'b', headers: { if: '(<urn:uuid:wrong>)' } })).statusCode, 412, 'an If that does not hold')
  t.equal((await dav('PUT', 'a.txt', { body: 'b', headers: { if: `(<${token}>)` } })).statusCode, 204, 'with its token')
  t.equal((await dav('PUT', 'a.txt', { body: 'c', headers: { if: `<http://localhost:80/dav/a.txt> (<${token}>)` } })).statusCode, 204, 'a tagged list')
  t.equal((await dav('PUT', 'a.txt', { body: 'd', headers: { if: '(<' } })).statusCode, 400, 'an If that does not parse')
  t.equal((await dav('UNLOCK', 'a.txt', { headers: { 'lock-token': '<urn:uuid:wrong>' } })).statusCode, 409)
  t.equal((await dav('UNLOCK', 'a.txt')).statusCode, 400, 'no Lock-Token')
  t.equal((await dav('UNLOCK', 'a.txt', { headers: { 'lock-token': `<${token}>` } })).statusCode, 204)
  t.equal((await dav('PUT', 'a.txt', { body: 'e' })).statusCode, 204, 'unlocked')

  const shared = tokenOf((await dav('LOCK', 'a.txt', { headers: { depth: '0', timeout: 'Infinite' }, body: lockBody('shared') })).headers)
  t.equal((await dav('LOCK', 'a.txt', { headers: { depth: '0' }, body: lockBody('shared') })).statusCode, 200, 'shared beside shared')
  t.equal((await dav('LOCK', 'a.txt', { headers: { depth: '0' }, body: lockBody('exclusive') })).statusCode, 423)
  t.equal((await dav('PUT', 'a.txt', { body: 'f', headers: { if: `(<${shared}>)` } })).statusCode, 423, 'every lock\'s token is needed')
  const refreshed = await dav('LOCK', 'a.txt', { headers: { timeout: 'Second-60', if: `(<${shared}>)` } })
  t.equal(refreshed.statusCode, 200)
  t.match(refreshed.body, /Second-60/)

  await dav('MKCOL', 'tree')
  const folderLock = tokenOf((await dav('LOCK', 'tree', { headers: { depth: 'infinity' }, body: lockBody('exclusive') })).headers)
  t.equal((await dav('PUT', 'tree/new.txt', { body: 'x' })).statusCode, 423, 'a new member of a locked folder')
  t.equal((await dav('PUT', 'tree/new.txt', { body: 'x', headers: { if: `(<${folderLock}>)` } })).statusCode, 201)
  t.equal((await dav('MKCOL', 'tree/sub')).statusCode, 423)
  t.equal((await dav('DELETE', 'tree')).statusCode, 423)
  t.match((await dav('PROPFIND', 'tree/new.txt', { headers: { depth: '0' }, body: '<D:propfind xmlns:D="DAV:"><D:prop><D:lockdiscovery/></D:prop></D:propfind>' })).body, folderLock, 'the folder\'s lock shows on its members')
  t.match((await dav('PROPFIND', 'tree', { headers: { depth: '0' }, body: '<D:propfind xmlns:D="DAV:"><D:prop><D:lockdiscovery/></D:prop></D:propfind>' })).body, folderLock, 'and on the folder')
  t.equal((await dav('DELETE', 'tree', { headers: { if: `(<${folderLock}>)` } })).statusCode, 204, 'gone, and its lock with it')
  t.equal((await dav('MKCOL', 'tree')).statusCode, 201)

  // A locked member stays, the rest of its folder goes: 207 naming it.
  await dav('MKCOL', 'mixed')
  await dav('PUT', 'mixed/free.txt', { body: 'free' })
  await dav('PUT', 'mixed/held.txt', { body: 'held' })
  t.equal((await dav('LOCK', 'mixed/held.txt', { headers: { depth: '0' }, body: lockBody('exclusive') })).statusCode, 200)
  const partial = await dav('DELETE', 'mixed')
  t.equal(partial.statusCode, 207)
  t.match(partial.body, /<D:href>\/dav\/mixed\/held.txt<\/D:href><D:status>HTTP\/1.1 423 Locked<\/D:status>/)
  t.equal((await dav('GET', 'mixed/free.txt')).statusCode, 404, 'the rest went')
  t.equal((await dav('GET', 'mixed/held.txt')).body, 'held', 'the locked one stayed, and its folder with it')

  const unmapped = await dav('LOCK', 'fresh.txt', { headers: { depth: '0', timeout: 'Second-1' }, body: lockBody('exclusive') })
  t.equal(unmapped.statusCode, 201, 'a lock on an unmapped URL makes an empty file')
  t.equal((await dav('GET', 'fresh.txt')).body, '')
  t.equal((await dav('LOCK', 'nowhere/fresh.txt', { headers: { depth: '0' }, body: lockBody('exclusive') })).statusCode, 409)
  t.equal((await dav('LOCK', 'a.txt', { headers: { depth: '0' }, body: lockBody('exclusive', 'o'.repeat(5000)) })).statusCode, 400, 'an owner past 4 KiB')
  await waitFor(async () => (await dav('PUT', 'fresh.txt', { body: 'after' })).statusCode === 204, { what: 'the lock to expire' })
  t.pass('a lock ends at its time')
})
