import t from 'tap'
import { INPUT_LIMITS } from '../limits.js'
import { buildTestApp } from './helpers/app.js'

// What an authenticated attacker sends WebDAV: bodies bounded where they are read (bytes, elements,
// depth, properties named), the process answering others meanwhile.

const { app, close } = await buildTestApp()
t.teardown(close)
const base = await app.listen({ port: 0, host: '127.0.0.1' })
const { key } = await app.stowageKeys.create({ userId: 'dav-attacker', orgId: null })
const auth = { authorization: `Basic ${Buffer.from(`attacker:${key}`).toString('base64')}` }
const dav = async (method: string, path: string, body?: string, headers: Record<string, string> = {}) => {
  const answer = await fetch(`${base}/dav/${path}`, { method, headers: { ...auth, ...headers }, body })
  return { status: answer.status, text: await answer.text() }
}

await dav('MKCOL', 'many')
for (let file = 0; file < 20; file++) await dav('PUT', `many/f${file}.txt`, 'x')

const properties = (count: number) => Array.from({ length: count }, (_, index) => `<x:p${index}/>`).join('')

t.test('a PROPFIND may name 256 properties: past it, 400 before any entry is answered', async (t) => {
  const most = await dav('PROPFIND', 'many/', `<D:propfind xmlns:D="DAV:" xmlns:x="urn:x"><D:prop>${properties(INPUT_LIMITS.davProperties)}</D:prop></D:propfind>`, { depth: '1' })
  t.equal(most.status, 207)
  const tooMany = await dav('PROPFIND', 'many/', `<D:propfind xmlns:D="DAV:" xmlns:x="urn:x"><D:prop>${properties(INPUT_LIMITS.davProperties + 1)}</D:prop></D:propfind>`, { depth: '1' })
  t.equal(tooMany.status, 400)
  t.match(tooMany.text, /at most 256 properties/)
  const included = await dav('PROPFIND', 'many/', `<D:propfind xmlns:D="DAV:" xmlns:x="urn:x"><D:allprop/><D:include>${properties(300)}</D:include></D:propfind>`, { depth: '1' })
  t.equal(included.status, 400, 'allprop\'s include the same')
})

t.test('a PROPPATCH may set and remove 256 properties in all: past it, 400 and nothing is kept', async (t) => {
  const set = (count: number) => `<D:propertyupdate xmlns:D="DAV:" xmlns:x="urn:x"><D:set><D:prop>${Array.from({ length: count }, (_, index) => `<x:p${index}>v</x:p${index}>`).join('')}</D:prop></D:set><D:remove><D:prop><x:gone/></D:prop></D:remove></D:propertyupdate>`
  const tooMany = await dav('PROPPATCH', 'many/f0.txt', set(INPUT_LIMITS.davProperties))
  t.equal(tooMany.status, 400)
  t.match(tooMany.text, /at most 256 properties/)
  const kept = await dav('PROPFIND', 'many/f0.txt', '<D:propfind xmlns:D="DAV:" xmlns:x="urn:x"><D:prop><x:p0/></D:prop></D:propfind>', { depth: '0' })
  t.match(kept.text, /404 Not Found/, 'nothing was set')
  t.equal((await dav('PROPPATCH', 'many/f0.txt', set(10))).status, 207)
})

t.test('a body that nests or repeats past its bounds is refused as it is read, the process answering meanwhile', async (t) => {
  const hostile = dav('PROPFIND', 'many/', '<D:propfind xmlns:D="DAV:">' + '<a>'.repeat(300_000), { depth: '1' })
  const started = performance.now()
  t.equal((await fetch(`${base}/health`)).status, 200)
  const healthMs = performance.now() - started
  const refused = await hostile
  t.equal(refused.status, 400)
  t.match(refused.text, /deeper than 32/)
  t.ok(healthMs < 1000, `/health answered in ${Math.round(healthMs)} ms`)
  const wide = await dav('PROPPATCH', 'many/f1.txt', `<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><x:p xmlns:x="urn:x">${'<i/>'.repeat(INPUT_LIMITS.davXmlElements)}</x:p></D:prop></D:set></D:propertyupdate>`)
  t.equal(wide.status, 400)
  t.match(wide.text, /more than 10000 elements/)
  const large = await dav('PROPFIND', 'many/', `<D:propfind xmlns:D="DAV:"><!-- ${'x'.repeat(INPUT_LIMITS.davXmlBytes)} --><D:allprop/></D:propfind>`, { depth: '0' })
  t.equal(large.status, 413)
})

t.test('a body that is not XML is told so once, in words, with where', async (t) => {
  const broken = await dav('PROPFIND', 'many/', '<D:propfind xmlns:D="DAV:"><D:prop></D:propfind>', { depth: '0' })
  t.equal(broken.status, 400)
  t.same(JSON.parse(broken.text), { error: 'the XML body is refused: unexpected close tag (line 1, column 48)' }, 'the parser\'s message once, with where')
})

t.test('oc:checksums, as ownCloud serves it, gives a file\'s MD5 when its ETag is one (rclone compares by it)', async (t) => {
  await dav('PUT', 'many/sum.txt', 'checksum me')
  const answer = await dav('PROPFIND', 'many/sum.txt', '<D:propfind xmlns:D="DAV:" xmlns:oc="http://owncloud.org/ns"><D:prop><oc:checksums/><D:getetag/></D:prop></D:propfind>', { depth: '0' })
  t.equal(answer.status, 207)
  const md5 = (await import('node:crypto')).createHash('md5').update('checksum me').digest('hex')
  t.match(answer.text, `<x:checksums xmlns:x="http://owncloud.org/ns"><x:checksum>MD5:${md5}</x:checksum></x:checksums>`)
})
