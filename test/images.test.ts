import t, { type Test } from 'tap'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { runCli } from '../cli/index.js'
import { bearer, buildTestApp } from './helpers/app.js'
import { startIdp } from './helpers/idp.js'
import { startS3Server } from './helpers/s3.js'
import { startService } from './helpers/service.js'
import { waitFor } from './helpers/wait.js'
import { DRIVERS } from './helpers/db.js'

const idp = await startIdp()
const s3 = await startS3Server()
t.teardown(async () => { await idp.close(); await s3.close() })

const alice = bearer(idp.token({ sub: 'alice' }))
const bob = bearer(idp.token({ sub: 'bob' }))

/** A 300 × 200 picture with some detail, in `format`; a JPEG's EXIF says to turn it a quarter (orientation 6). */
async function picture (format: 'jpeg' | 'png' | 'webp' | 'avif' | 'gif' | 'tiff', { width = 300, height = 200 } = {}) {
  const image = sharp({ create: { width, height, channels: 4, background: { r: 200, g: 80, b: 20, alpha: 0.8 } } })
    .composite([{ input: { create: { width: Math.floor(width / 2), height: Math.floor(height / 2), channels: 3, background: { r: 10, g: 120, b: 240 } } }, top: 0, left: 0 }])
  if (format === 'jpeg') return await image.jpeg().withMetadata({ orientation: 6 }).toBuffer()
  return await image.toFormat(format).toBuffer()
}

/** A service on `driver`, listening, with helpers. */
async function serve (t: Test, driver: 'fs' | 's3', env: Record<string, string> = {}) {
  const test = await buildTestApp({ driver, s3, idp, env })
  t.teardown(test.close)
  await test.app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(test.app.server.address() as { port: number }).port}`
  const put = async (path: string, body: Buffer | string, contentType = 'application/octet-stream', who = alice) => {
    const answer = await fetch(`${base}/api/raw/${path}`, { method: 'PUT', headers: { ...who, 'content-type': contentType }, body: body as BodyInit })
    t.equal(answer.status, 200, `PUT ${path}`)
  }
  const image = async (path: string, query = '', headers: Record<string, string> = {}, who = alice) => {
    const answer = await fetch(`${base}/api/images/${path}${query ? `?${query}` : ''}`, { headers: { ...who, ...headers } })
    return { answer, bytes: Buffer.from(await answer.arrayBuffer()) }
  }
  const cached = async () => await test.app.stowageDb.selectFrom('image_cache').selectAll().orderBy('made_at').execute()
  return { ...test, base, put, image, cached }
}

// The transform reads its source as a raw GET does, whatever the driver: formats, fits and refusals
// on one; the cache, which the store keeps, on both.
t.test('fs: each format in and out, upright and without metadata', async (t) => {
  const { put, image } = await serve(t, 'fs')
  const sources = ['jpeg', 'png', 'webp', 'avif', 'gif', 'tiff'] as const
  const sentByDefault = { jpeg: 'jpeg', png: 'png', webp: 'webp', avif: 'heif', gif: 'png', tiff: 'png' }
  for (const format of sources) {
    await put(`pics/p.${format}`, await picture(format))
    for (const out of ['webp', 'avif', 'jpeg', 'png', undefined] as const) {
      const { answer, bytes } = await image(`pics/p.${format}`, `width=100${out ? `&format=${out}` : ''}`)
      t.equal(answer.status, 200, `${format} → ${out ?? 'its own'}`)
      const read = await sharp(bytes).metadata()
      const expected = out === undefined ? sentByDefault[format] : out === 'avif' ? 'heif' : out
      t.equal(read.format, expected, `${format} → ${out ?? 'its own'} is ${expected}`)
      t.equal(answer.headers.get('content-type'), `image/${expected === 'heif' ? 'avif' : expected}`)
      t.equal(read.width, 100)
      // The JPEG stood on its side: turned upright, it is taller than wide.
      t.equal(read.height, format === 'jpeg' ? 150 : 67, `${format}: its height`)
      t.notOk(read.exif, 'no EXIF')
      t.notOk(read.orientation, 'no orientation left to apply')
    }
  }
})

t.test('fs: fits, quality, ETags and 304', async (t) => {
  const { put, image } = await serve(t, 'fs')
  await put('p.png', await picture('png'))
  const size = async (query: string) => {
    const { answer, bytes } = await image('p.png', query)
    t.equal(answer.status, 200, query)
    const { width, height } = await sharp(bytes).metadata()
    return [width, height]
  }
  t.same(await size('width=100&height=100&fit=cover'), [100, 100], 'cover fills the box')
  t.same(await size('width=100&height=30&fit=contain'), [100, 30], 'contain fills it, letterboxed')
  t.same(await size('width=100&height=100'), [100, 67], 'inside by default')
  t.same(await size('width=2000'), [300, 200], 'inside never enlarges')
  t.same(await size('height=50'), [75, 50], 'a height alone')
  t.same(await size(''), [300, 200], 'no box: the same size')
  const small = (await image('p.png', 'width=200&format=jpeg&quality=5')).bytes.length
  const fine = (await image('p.png', 'width=200&format=jpeg&quality=95')).bytes.length
  t.ok(small < fine, `quality counts (${small} < ${fine} bytes)`)

  const first = await image('p.png', 'width=64')
  const etag = first.answer.headers.get('etag')!
  t.match(etag, /^"[0-9a-f]{32}"$/, 'a strong ETag')
  t.equal(first.answer.headers.get('cache-control'), 'private, no-cache')
  t.equal(first.answer.headers.get('x-content-type-options'), 'nosniff')
  t.equal((await image('p.png', 'width=64', { 'if-none-match': etag })).answer.status, 304)
  t.not((await image('p.png', 'width=65')).answer.headers.get('etag'), etag, 'another transform, another ETag')
  await put('p.png', await picture('png', { width: 400 }))
  const after = await image('p.png', 'width=64', { 'if-none-match': etag })
  t.equal(after.answer.status, 200, 'the source changed: a new image')
  t.not(after.answer.headers.get('etag'), etag)
})

t.test('fs: refusals, each with nothing made', async (t) => {
  const { put, image, cached, base } = await serve(t, 'fs', { IMAGE_MAX_PIXELS: '50000' })
  await put('p.png', await picture('png'))
  for (const [query, words] of [
    ['width=0', /width/], ['width=2501', /width/], ['height=2501', /height/], ['width=abc', /width/],
    ['quality=0', /quality/], ['quality=101', /quality/], ['fit=fill', /fit/], ['format=gif', /format/]
  ] as const) {
    const { answer, bytes } = await image('p.png', query)
    t.equal(answer.status, 400, query)
    const { error } = JSON.parse(bytes.toString()) as { error: string }
    t.match(error, words, `${query}: ${error}`)
  }
  t.equal((await image('none.png', 'width=10')).answer.status, 404, 'no such file')
  await put('notes.txt', 'just words', 'text/plain')
  const text = await image('notes.txt', 'width=10')
  t.equal(text.answer.status, 415, 'a text file')
  t.match(JSON.parse(text.bytes.toString()).error, /not an image/)
  await put('logo.svg', '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>', 'image/svg+xml')
  t.equal((await image('logo.svg', 'width=10')).answer.status, 415, 'SVG is not decoded')
  await put('big.png', await picture('png', { width: 300, height: 300 }))
  const big = await image('big.png', 'width=10')
  t.equal(big.answer.status, 422, 'past IMAGE_MAX_PIXELS')
  t.match(JSON.parse(big.bytes.toString()).error, /90000 pixels, more than the 50000/)
  await put('huge.png', Buffer.alloc(64 * 1024 * 1024 + 1))
  const huge = await image('huge.png', 'width=10')
  t.equal(huge.answer.status, 422, 'a file past 64 MiB is not read')
  t.match(JSON.parse(huge.bytes.toString()).error, /larger than 67108864 bytes/)
  t.equal((await image('p.png', 'width=10', {}, bob)).answer.status, 404, 'another user has no such file')
  t.equal((await fetch(`${base}/api/images/p.png?width=10`)).status, 401, 'no credentials')
  t.same(await cached(), [], 'nothing was made')
})

for (const driver of DRIVERS) {
  t.test(`${driver}: made once, kept outside the user's files, dropped when the source changes or goes`, async (t) => {
    const { put, image, cached, base } = await serve(t, driver)
    await put('a.png', await picture('png'))
    const usage = async () => await (await fetch(`${base}/api/usage`, { headers: alice })).json() as { fileBytes: number }
    const before = await usage()
    const first = await image('a.png', 'width=50')
    const kept = await cached()
    t.equal(kept.length, 1, 'one image kept')
    t.equal(Number(kept[0].bytes), first.bytes.length)
    t.match(kept[0].object_key, /^stowage-images\/[0-9a-f]{64}$/)
    const again = await image('a.png', 'width=50')
    t.same(again.bytes, first.bytes, 'the same bytes')
    t.same((await cached()).map((row) => row.made_at), [kept[0].made_at], 'not made again')
    t.same(await usage(), before, 'not counted in the quota')
    const listed = await (await fetch(`${base}/api/files`, { headers: alice })).json() as { files: Array<{ key: string }> }
    t.same(listed.files.map((file) => file.key), ['a.png'], 'not among the user\'s files')

    await put('a.png', await picture('png', { width: 320 }))
    await waitFor(async () => (await cached()).length === 0, { what: 'the overwritten source\'s images dropped' })
    await image('a.png', 'width=50')
    t.equal((await fetch(`${base}/api/moves`, { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify({ from: 'a.png', to: 'b.png' }) })).status, 200)
    await waitFor(async () => (await cached()).length === 0, { what: 'the moved source\'s images dropped' })
    await image('b.png', 'width=50')
    t.equal((await fetch(`${base}/api/raw/b.png`, { method: 'DELETE', headers: alice })).status, 204)
    await waitFor(async () => (await cached()).length === 0, { what: 'the deleted source\'s images dropped' })
  })

  t.test(`${driver}: past IMAGE_CACHE_BYTES the oldest go`, async (t) => {
    const { put, image, cached } = await serve(t, driver, { IMAGE_CACHE_BYTES: '2000' })
    await put('a.png', await picture('png'))
    const sizes: number[] = []
    for (const width of [20, 21, 22, 23, 24, 25]) {
      sizes.push((await image('a.png', `width=${width}&format=jpeg`)).bytes.length)
      const rows = await cached()
      t.ok(rows.reduce((sum, row) => sum + Number(row.bytes), 0) <= 2000, `within 2,000 bytes after width ${width}`)
    }
    t.ok(sizes.reduce((a, b) => a + b) > 2000, 'more was made than is kept')
    const rows = await cached()
    t.ok(rows.length > 0 && rows.length < 6, `the newest kept (${rows.length})`)
  })

  t.test(`${driver}: a download link carries a transform`, async (t) => {
    const { put, base } = await serve(t, driver)
    await put('p.png', await picture('png'))
    const post = (body: object) => fetch(`${base}/api/links`, { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const made = await post({ path: 'p.png', method: 'download', transform: { width: 30, format: 'webp' } })
    t.equal(made.status, 201)
    const { url } = await made.json() as { url: string }
    t.match(url, `${base}/links/`, 'served by Stowage, which makes the image')
    const opened = await fetch(url)
    t.equal(opened.status, 200)
    const read = await sharp(Buffer.from(await opened.arrayBuffer())).metadata()
    t.match(read, { format: 'webp', width: 30 })
    t.equal((await post({ path: 'p.png', method: 'upload', transform: { width: 30 } })).status, 400, 'not for an upload link')
    t.equal((await post({ path: 'p.png', method: 'download', transform: { width: 3000 } })).status, 400, 'out of range')
  })
}

t.test('two instances: one makes an image, the other finds it, and drops it when the source changes', async (t) => {
  const service = await startService(t, { instances: 2 })
  const [one, two] = service.servers
  const headers = service.auth
  t.equal((await fetch(`${one.url}/api/raw/p.png`, { method: 'PUT', headers, body: await picture('png') as BodyInit })).status, 200)
  const made = await fetch(`${one.url}/api/images/p.png?width=40`, { headers })
  t.equal(made.status, 200)
  // The folder may go while it is read (the store removes an emptied folder): read it again.
  const storedImages = async (): Promise<string[]> => {
    try {
      return (await readdir(service.storageDir, { recursive: true })).filter((path) => /stowage-images.*[0-9a-f]{64}/.test(path))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return await storedImages()
      throw error
    }
  }
  t.equal((await storedImages()).length, 1, 'kept in the store')
  const found = await fetch(`${two.url}/api/images/p.png?width=40`, { headers: { ...headers, 'if-none-match': made.headers.get('etag')! } })
  t.equal(found.status, 304, 'the other instance knows it')
  t.same(Buffer.from(await (await fetch(`${two.url}/api/images/p.png?width=40`, { headers })).arrayBuffer()), Buffer.from(await made.arrayBuffer()))
  t.equal((await storedImages()).length, 1, 'found, not made again')
  t.equal((await fetch(`${two.url}/api/raw/p.png`, { method: 'PUT', headers, body: await picture('png', { width: 100 }) as BodyInit })).status, 200)
  await waitFor(async () => (await storedImages()).length === 0, { what: 'the image dropped from the store' })
  const remade = await sharp(Buffer.from(await (await fetch(`${one.url}/api/images/p.png?width=40`, { headers })).arrayBuffer())).metadata()
  t.match(remade, { width: 40, height: 80 }, 'the new source, made anew')
})

t.test('the CLI gets an image resized and converted', async (t) => {
  const { put, app, base } = await serve(t, 'fs')
  await put('p.png', await picture('png'))
  const home = await mkdtemp(join(tmpdir(), 'stowage-home-'))
  t.teardown(() => rm(home, { recursive: true, force: true }))
  const env = { HOME: home, XDG_CONFIG_HOME: '' }
  const io = { stdout: { write: () => {} }, stderr: { write: () => {} }, env }
  const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
  t.equal(await runCli(['login', '--url', base, '--api-key', key], io), 0)
  const output = join(home, 'thumb.webp')
  t.equal(await runCli(['get', 'p.png', '--width', '64', '--format', 'webp', '-o', output], io), 0)
  t.match(await sharp(await readFile(output)).metadata(), { format: 'webp', width: 64 })
  let stderr = ''
  t.equal(await runCli(['get', 'p.png', '--width', '9999', '-o', output], { ...io, stderr: { write: (text: string) => { stderr += text } } }), 1)
  t.match(stderr, /width/, 'the service\'s refusal, said')
})
