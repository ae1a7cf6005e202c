import t, { type Test } from 'tap'
import { bearer, buildTestApp } from './helpers/app.js'
import { startIdp } from './helpers/idp.js'
import { startS3Server } from './helpers/s3.js'
import { tusUpload } from './helpers/tus.js'
import { DRIVERS } from './helpers/db.js'

const idp = await startIdp()
const s3 = await startS3Server()
t.teardown(async () => { await idp.close(); await s3.close() })

interface Version { id: string, size: number, etag: string, contentType: string, lastModified: string }
interface Written { key: string, size: number, etag: string, lastModified: string }

/** A service on `driver`, listening, with helpers for alice (and bob). */
async function serve (t: Test, driver: 'fs' | 's3', env: Record<string, string> = {}) {
  const test = await buildTestApp({ driver, s3, idp, env })
  t.teardown(test.close)
  await test.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = test.app.server.address() as { port: number }
  const base = `http://127.0.0.1:${port}`
  const alice = bearer(idp.token({ sub: 'alice' }))
  const bob = bearer(idp.token({ sub: 'bob' }))
  const put = async (path: string, body: string, headers: Record<string, string> = {}, who = alice) =>
    fetch(`${base}/api/raw/${path}`, { method: 'PUT', headers: { ...who, 'content-type': 'text/plain', ...headers }, body })
  const text = async (path: string, who = alice) => (await fetch(`${base}/api/raw/${path}`, { headers: who })).text()
  const versionsOf = async (path: string, who = alice) => {
    const answer = await fetch(`${base}/api/versions?path=${encodeURIComponent(path)}`, { headers: who })
    t.equal(answer.status, 200)
    return (await answer.json() as { versions: Version[] }).versions
  }
  const post = (url: string, body: object, headers: Record<string, string> = {}, who = alice) =>
    fetch(`${base}${url}`, { method: 'POST', headers: { ...who, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  const usage = async () => await (await fetch(`${base}/api/usage`, { headers: alice })).json() as Record<string, number>
  return { base, alice, bob, put, text, versionsOf, post, usage }
}

for (const driver of DRIVERS) {
  t.test(`${driver}: every replacement keeps the replaced file as a version`, async (t) => {
    const { base, alice, put, text, versionsOf, post } = await serve(t, driver)
    t.equal((await put('notes.txt', 'one')).status, 200)
    t.same(await versionsOf('notes.txt'), [], 'a new file replaces nothing')
    const first = await (await put('notes.txt', 'two')).json() as Written

    // JSON PUT, tus, an upload link, a copy onto it, a move onto it.
    t.equal((await fetch(`${base}/api/files/notes.txt`, { method: 'PUT', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify({ content: Buffer.from('three').toString('base64'), contentType: 'text/plain' }) })).status, 200)
    await tusUpload(Buffer.from('four'), { endpoint: `${base}/api/uploads`, headers: alice, metadata: { path: 'notes.txt', contentType: 'text/plain' } })
    const link = await (await post('/api/links', { path: 'notes.txt', method: 'upload', contentType: 'text/plain' })).json() as { url: string }
    t.equal((await fetch(link.url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'five' })).status, 200)
    await put('other.txt', 'six')
    t.equal((await post('/api/copies', { from: 'other.txt', to: 'notes.txt' })).status, 200)
    await put('moved.txt', 'seven')
    t.equal((await post('/api/moves', { from: 'moved.txt', to: 'notes.txt' })).status, 200)
    t.equal(await text('notes.txt'), 'seven')

    const versions = await versionsOf('notes.txt')
    t.same(versions.map((version) => version.size), [3, 4, 4, 5, 3, 3], 'newest first: six, five, four, three, two, one')
    t.match(versions[4], { etag: first.etag, contentType: 'text/plain', lastModified: first.lastModified }, 'a version keeps its ETag, type and time')

    const one = versions[5]
    const read = await fetch(`${base}/api/versions/${one.id}`, { headers: alice })
    t.equal(read.status, 200)
    t.equal(await read.text(), 'one')
    t.equal(read.headers.get('etag'), one.etag)
    t.equal(read.headers.get('last-modified'), new Date(one.lastModified).toUTCString())
    t.equal(read.headers.get('x-content-type-options'), 'nosniff', 'the raw GET\'s headers')
    const range = await fetch(`${base}/api/versions/${one.id}`, { headers: { ...alice, range: 'bytes=1-' } })
    t.equal(range.status, 206)
    t.equal(await range.text(), 'ne')
    t.equal((await fetch(`${base}/api/versions/${one.id}`, { headers: { ...alice, 'if-none-match': one.etag } })).status, 304)

    const listing = await (await fetch(`${base}/api/files`, { headers: alice })).json() as { files: Array<{ key: string }> }
    t.same(listing.files.map((file) => file.key).sort(), ['notes.txt', 'other.txt'], 'versions are not files')
  })

  t.test(`${driver}: a restored version becomes the file, the file it replaced a version; If-Match decides between two`, async (t) => {
    const { base, alice, put, text, versionsOf, post } = await serve(t, driver)
    await put('draft.md', 'good')
    const bad = await (await put('draft.md', 'bad')).json() as Written
    const [good] = await versionsOf('draft.md')

    const stale = await post(`/api/versions/${good.id}/restore`, {}, { 'if-match': '"00000000000000000000000000000000"' })
    t.equal(stale.status, 412, 'If-Match applies to the file it would replace')
    t.equal(await text('draft.md'), 'bad')

    const restores = await Promise.all([0, 1].map(() => post(`/api/versions/${good.id}/restore`, {}, { 'if-match': bad.etag })))
    t.same(restores.map((answer) => answer.status).sort(), [200, 412], 'of two restores with one If-Match, exactly one wins')
    t.equal(await text('draft.md'), 'good')
    const after = await versionsOf('draft.md')
    t.same(after.map((version) => version.etag), [bad.etag, good.etag], 'the file it replaced is a version, and the restored one still is')

    const elsewhere = await post(`/api/versions/${after[0].id}/restore`, { to: 'copies/draft-bad.md' })
    t.equal(elsewhere.status, 200)
    t.match(await elsewhere.json(), { key: 'copies/draft-bad.md', etag: bad.etag })
    t.equal(await text('copies/draft-bad.md'), 'bad')
    t.equal(await text('draft.md'), 'good', 'restored elsewhere, the file stays')
    t.equal((await post(`/api/versions/${after[0].id}/restore`, { to: '../bob/x.md' })).status, 400)
    t.equal((await fetch(`${base}/api/versions/${after[0].id}`, { method: 'DELETE', headers: alice })).status, 204)
    t.equal((await fetch(`${base}/api/versions/${after[0].id}`, { headers: alice })).status, 404, 'removed for good')
    t.equal((await fetch(`${base}/api/versions/${after[0].id}`, { method: 'DELETE', headers: alice })).status, 404)
  })

  t.test(`${driver}: another user's version is 404 on every route; a bad id or path is 400`, async (t) => {
    const { base, alice, bob, put, versionsOf, post } = await serve(t, driver)
    await put('secret.txt', 'a')
    await put('secret.txt', 'b')
    const [version] = await versionsOf('secret.txt')
    t.same(await versionsOf('secret.txt', bob), [], 'bob sees none of alice\'s')
    t.equal((await fetch(`${base}/api/versions/${version.id}`, { headers: bob })).status, 404)
    t.equal((await post(`/api/versions/${version.id}/restore`, {}, {}, bob)).status, 404)
    t.equal((await fetch(`${base}/api/versions/${version.id}`, { method: 'DELETE', headers: bob })).status, 404)
    t.equal((await fetch(`${base}/api/versions/${version.id}`, { headers: alice })).status, 200, 'still alice\'s')
    t.equal((await fetch(`${base}/api/versions/not-an-id`, { headers: alice })).status, 400)
    t.equal((await fetch(`${base}/api/versions?path=${encodeURIComponent('../bob/secret.txt')}`, { headers: alice })).status, 400)
    t.equal((await fetch(`${base}/api/versions`, { headers: alice })).status, 400, 'path is required')
    t.equal((await fetch(`${base}/api/versions?path=secret.txt`)).status, 401)
  })

  t.test(`${driver}: versions count in usage; a write that needs room removes the oldest versions first, and only then is 507`, async (t) => {
    const { put, versionsOf, usage } = await serve(t, driver, { QUOTA_BYTES: '100' })
    await put('a.txt', 'x'.repeat(30))
    await put('a.txt', 'y'.repeat(30))
    t.match(await usage(), { fileBytes: 30, versionBytes: 30, usedBytes: 60 })
    await put('a.txt', 'z'.repeat(30))
    t.match(await usage(), { fileBytes: 30, versionBytes: 60, usedBytes: 90 })
    t.same((await versionsOf('a.txt')).map((version) => version.size), [30, 30])
    const roomy = await put('b.txt', 'w'.repeat(35))
    t.equal(roomy.status, 200, 'room made by removing versions')
    const left = await versionsOf('a.txt')
    t.equal(left.length, 1, 'the oldest version went, the newer stayed')
    t.match(await usage(), { fileBytes: 65, versionBytes: 30, usedBytes: 95 })
    t.equal((await put('c.txt', 'v'.repeat(40))).status, 507, 'even with every version gone there would be no room')
    t.equal((await versionsOf('a.txt')).length, 1, 'so the version stays')
    t.equal((await put('c.txt', 'v'.repeat(30))).status, 200, 'with the version gone there is')
    t.same(await versionsOf('a.txt'), [], 'and it went first')
    t.match(await usage(), { fileBytes: 95, versionBytes: 0, usedBytes: 95 })
  })

  t.test(`${driver}: a restore under the quota never removes the version it restores: 507 with nothing changed, or 200 within the quota`, async (t) => {
    const { put, text, versionsOf, post, usage } = await serve(t, driver, { QUOTA_BYTES: String(4 * 1024 * 1024) })
    const first = 'a'.repeat(2_000_000)
    t.equal((await put('big.txt', first)).status, 200)
    t.equal((await put('big.txt', 'b'.repeat(1_900_001))).status, 200)
    const [kept] = await versionsOf('big.txt')
    t.equal(kept.size, 2_000_000)
    const before = await usage()
    const refused = await post(`/api/versions/${kept.id}/restore`, {})
    t.equal(refused.status, 507, 'no room but the version itself')
    t.same((await versionsOf('big.txt')).map(({ id }) => id), [kept.id], 'the version is still there')
    t.equal((await text('big.txt')).length, 1_900_001, 'the file is unchanged')
    t.same(await usage(), before)

    t.equal((await put('big.txt', 'c')).status, 200)
    t.equal((await versionsOf('big.txt')).at(-1)?.id, kept.id, 'it is the oldest version')
    const restored = await post(`/api/versions/${kept.id}/restore`, {})
    t.equal(restored.status, 200, 'room made from the other versions')
    t.equal(await text('big.txt'), first)
  })

  t.test(`${driver}: with VERSION_RETENTION_DAYS=0 nothing is kept`, async (t) => {
    const { base, alice, put, versionsOf, usage } = await serve(t, driver, { VERSION_RETENTION_DAYS: '0' })
    await put('plain.txt', 'one')
    await put('plain.txt', 'two')
    t.same(await versionsOf('plain.txt'), [])
    t.match(await usage(), { versionBytes: 0, fileBytes: 3 })
    t.equal((await fetch(`${base}/api/versions/${'0'.repeat(32)}`, { headers: alice })).status, 404)
  })
}
