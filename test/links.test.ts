import t, { type Test } from 'tap'
import { bearer, buildTestApp } from './helpers/app.js'
import { captureLogs } from './helpers/wait.js'
import { startS3Server } from './helpers/s3.js'
import { startSignatureCheckingS3 } from './helpers/s3-signatures.js'

// Presigned links go through a front that checks their signatures, as a real S3 does.
const store = await startS3Server()
const signatures = await startSignatureCheckingS3(store)
const { s3 } = signatures
t.teardown(async () => { await signatures.close(); await store.close() })

async function serve (t: Test, driver: 'fs' | 's3', env: Record<string, string> = {}) {
  const logs = captureLogs()
  const test = await buildTestApp({ driver, s3, env: { LOG_LEVEL: 'info', ...env }, logStream: logs.stream })
  t.teardown(test.close)
  await test.app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(test.app.server.address() as { port: number }).port}`
  const { key } = await test.app.stowageKeys.create({ userId: 'alice', orgId: null })
  const link = (body: object) => fetch(`${base}/api/links`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const created = async (body: object) => {
    const res = await link(body)
    if (res.status !== 201) throw new Error(`POST /api/links: ${res.status} ${await res.text()}`)
    return await res.json() as { url: string, method: string, expiresAt: string }
  }
  const put = (path: string, body: string, contentType = 'text/plain') =>
    fetch(`${base}/api/raw/${path}`, { method: 'PUT', headers: { ...bearer(key), 'content-type': contentType }, body })
  return { ...test, base, key, link, created, put, logs }
}

/** The token of a link Stowage serves, and a copy with its grant edited but its signature kept. */
function edited (url: string, change: (grant: Record<string, unknown>) => void) {
  const [, token] = /\/links\/([^/?]+)$/.exec(url)!
  const [payload, signature] = token.split('.')
  const grant = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>
  change(grant)
  return url.replace(token, `${Buffer.from(JSON.stringify(grant)).toString('base64url')}.${signature}`)
}

for (const [driver, via] of [['fs', 'stowage'], ['s3', 'stowage'], ['s3', 'store']] as const) {
  t.test(`${driver}, links via ${via}: a download link reads one file without credentials, ranges included, and nothing else`, async (t) => {
    const { created, put, logs } = await serve(t, driver, { LINKS_VIA: via })
    await put('docs/report.txt', 'the quarterly report')
    await put('docs/secret.txt', 'not shared')
    const { url, method, expiresAt } = await created({ path: 'docs/report.txt', method: 'download', expiresIn: 600 })
    t.equal(method, 'download')
    t.ok(Math.abs(new Date(expiresAt).getTime() - Date.now() - 600_000) < 60_000, 'expires in 10 minutes')
    if (via === 'store') t.ok(url.startsWith(s3.endpoint), 'a presigned URL straight to the store')
    const got = await fetch(url)
    t.equal(got.status, 200)
    t.equal(await got.text(), 'the quarterly report')
    const range = await fetch(url, { headers: { range: 'bytes=4-12' } })
    t.equal(range.status, 206)
    t.equal(await range.text(), 'quarterly')

    if (via === 'store') {
      const signed = new URL(url)
      t.equal(decodeURIComponent(signed.pathname), `/${s3.bucket}/users/alice/files/docs/report.txt`, 'the one key')
      const refusedBefore = signatures.counts.refused
      const otherFile = new URL(url)
      otherFile.pathname = otherFile.pathname.replace('report.txt', 'secret.txt')
      const refused = await fetch(otherFile)
      t.equal(refused.status, 403, 'edited to another file: refused by the store')
      t.match(await refused.text(), /SignatureDoesNotMatch/)
      const longer = new URL(url)
      longer.searchParams.set('X-Amz-Expires', '86400')
      t.equal((await fetch(longer)).status, 403, 'edited to live longer: refused by the store')
      t.equal((await fetch(url, { method: 'PUT', body: 'overwrite' })).status, 403, 'a download link takes no upload')
      t.equal(signatures.counts.refused - refusedBefore, 3, 'each refused for its signature')
      return
    }
    const head = await fetch(url, { method: 'HEAD' })
    t.equal(head.status, 200, 'HEAD answers the headers of the download')
    t.equal(head.headers.get('content-length'), String('the quarterly report'.length))
    t.equal(await head.text(), '')
    t.equal((await fetch(edited(url, (grant) => { grant.p = 'docs/secret.txt' }), { method: 'HEAD' })).status, 403, 'HEAD of an edited link: refused')
    t.equal((await fetch(edited(url, (grant) => { grant.p = 'docs/secret.txt' }))).status, 403, 'edited to another file: refused')
    {
      t.equal((await fetch(edited(url, (grant) => { grant.e = (grant.e as number) + 86_400 }))).status, 403, 'edited to live longer: refused')
      t.equal((await fetch(edited(url, (grant) => { grant.u = 'bob' }))).status, 403, 'edited to another user: refused')
      t.equal((await fetch(url, { method: 'PUT', body: 'overwrite' })).status, 403, 'a download link takes no upload')
      t.notOk(logs.text().includes(url.slice(url.lastIndexOf('/') + 1)), 'the token never reaches the log')
    }
  })

  t.test(`${driver}, links via ${via}: an upload link takes one PUT of the file, of the type and length it names`, async (t) => {
    const { created, base, key } = await serve(t, driver, { LINKS_VIA: via })
    const { url } = await created({ path: 'inbox/photo.jpg', method: 'upload', contentType: 'image/jpeg', size: 5 })
    if (via === 'store') {
      const signed = new URL(url).searchParams
      t.notOk([...signed.keys()].some((name) => name.startsWith('x-amz-checksum')), 'no checksum of an empty body that a real S3 would hold the upload to')
    }
    t.equal((await fetch(url, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: 'hello' })).status, 403, 'another type: refused')
    t.equal((await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: 'hello, world' })).status, 403, 'another length: refused')
    t.equal((await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: 'hello' })).status, 200)
    const read = await fetch(`${base}/api/raw/inbox/photo.jpg`, { headers: bearer(key) })
    t.equal(await read.text(), 'hello')
    t.equal(read.headers.get('content-type'), 'image/jpeg')
    if (via === 'stowage') t.equal((await fetch(url)).status, 403, 'an upload link reads nothing')
  })
}

t.test('a link expires', async (t) => {
  for (const via of ['stowage', 'store']) {
    const { created, put } = await serve(t, 's3', { LINKS_VIA: via })
    await put('short.txt', 'brief')
    // Seconds enough for a busy machine to use it before it expires.
    const { url, expiresAt } = await created({ path: 'short.txt', method: 'download', expiresIn: 4 })
    t.equal((await fetch(url)).status, 200, `${via}: works at first`)
    // Past its time, with a second more for the store's clock rounding.
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) + 1100 - Date.now()))
    t.equal((await fetch(url)).status, 403, `${via}: refused once expired`)
    if (via === 'stowage') {
      const opened = await fetch(url, { headers: { accept: 'text/html,application/xhtml+xml' } })
      t.equal(opened.status, 403)
      t.match(opened.headers.get('content-type'), /^text\/html/, 'a browser gets a page, not JSON')
      t.match(await opened.text(), /<h1>This link does not work<\/h1><p>This link has expired\.<\/p>/)
      t.match((await (await fetch(url)).json()) as object, { error: 'this link has expired' }, 'a program still gets JSON')
    }
  }
})

t.test('creating a link needs the rights of the operation, within the configured limits', async (t) => {
  const { link, base } = await serve(t, 'fs', { LINK_MAX_SECONDS: '3600' })
  t.equal((await fetch(`${base}/api/links`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"path":"a.txt","method":"download"}' })).status, 401)
  t.equal((await link({ path: 'missing.txt', method: 'download' })).status, 404, 'a download link of a file that does not exist')
  t.equal((await link({ path: '../bob/a.txt', method: 'upload' })).status, 400, 'a path outside the caller\'s files')
  const tooLong = await link({ path: 'a.txt', method: 'upload', expiresIn: 3601 })
  t.equal(tooLong.status, 400)
  t.match(await tooLong.json(), { error: /LINK_MAX_SECONDS/ })
  t.equal((await link({ path: 'a.txt', method: 'share' })).status, 400, 'an unknown method')
  t.equal((await link({ path: 'a.txt', method: 'upload', size: 6 * 1024 * 1024 * 1024 })).status, 400, 'a size over MAX_UPLOAD_BYTES')
  t.equal((await fetch(`${base}/links/not-a-token`)).status, 403)
})

t.test('links Stowage serves are signed with LINK_SECRET when set: the same on every instance', async (t) => {
  const secret = 'x'.repeat(40)
  const one = await serve(t, 'fs', { LINK_SECRET: secret })
  const two = await serve(t, 'fs', { LINK_SECRET: secret, STORAGE_DIR: one.config.STORAGE_DIR, DATABASE_URL: one.config.DATABASE_URL })
  await one.put('shared.txt', 'from one')
  const { url } = await one.created({ path: 'shared.txt', method: 'download' })
  t.equal(await (await fetch(url.replace(one.base, two.base))).text(), 'from one', 'a link made by one instance works on the other')
})
