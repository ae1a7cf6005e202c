import { randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import t, { type Test } from 'tap'
import { bearer, buildTestApp } from './helpers/app.js'
import { startS3Server } from './helpers/s3.js'
import { waitFor } from './helpers/wait.js'
import { DRIVERS } from './helpers/db.js'

const s3 = await startS3Server()
t.teardown(() => s3.close())

type Inject = Awaited<ReturnType<typeof buildTestApp>>['app']['inject']

/** A user's files through the routes: put, read, and the two operations. */
async function userOf (t: Test, driver: 'fs' | 's3', env: Record<string, string> = {}) {
  const { app, close } = await buildTestApp({ driver, s3, env })
  t.teardown(close)
  // A user of its own: the tests share one bucket.
  const { key } = await app.stowageKeys.create({ userId: `user-${randomUUID()}`, orgId: null })
  const headers = bearer(key)
  const inject = app.inject.bind(app) as Inject
  return {
    app,
    headers,
    put: async (path: string, body: string) => {
      const res = await inject({ method: 'PUT', url: `/api/raw/${path}`, headers: { ...headers, 'content-type': 'text/plain' }, payload: body })
      if (res.statusCode !== 200) throw new Error(`PUT ${path}: ${res.statusCode} ${res.payload}`)
      return res.json().etag as string
    },
    read: async (path: string) => {
      const res = await inject({ url: `/api/raw/${path}`, headers })
      return res.statusCode === 200 ? res.payload : res.statusCode
    },
    operate: (operation: 'copies' | 'moves', body: object, conditions: Record<string, string> = {}) =>
      inject({ method: 'POST', url: `/api/${operation}`, headers: { ...headers, ...conditions }, payload: body })
  }
}

for (const driver of DRIVERS) {
  t.test(`${driver}: copy of a file, on the store's side, with its preconditions`, async (t) => {
    const user = await userOf(t, driver)
    const etag = await user.put('a.txt', 'alpha')
    const copied = await user.operate('copies', { from: 'a.txt', to: 'dir/b.txt' })
    t.equal(copied.statusCode, 200, copied.payload)
    t.match(copied.json(), { key: 'dir/b.txt', size: 5, contentType: 'text/plain', etag })
    t.equal(copied.headers.etag, etag)
    t.equal(await user.read('dir/b.txt'), 'alpha')
    t.equal(await user.read('a.txt'), 'alpha', 'the source stays')

    const stale = await user.operate('copies', { from: 'a.txt', to: 'c.txt' }, { 'if-match': '"0123456789abcdef0123456789abcdef"' })
    t.equal(stale.statusCode, 412, 'If-Match is the source\'s')
    t.equal(await user.read('c.txt'), 404, 'nothing copied')
    t.equal((await user.operate('copies', { from: 'a.txt', to: 'c.txt' }, { 'if-match': etag })).statusCode, 200)

    await user.put('d.txt', 'delta')
    const taken = await user.operate('copies', { from: 'a.txt', to: 'd.txt' }, { 'if-none-match': '*' })
    t.equal(taken.statusCode, 412, 'If-None-Match: * is the destination\'s')
    t.equal(await user.read('d.txt'), 'delta', 'the destination is left as it was')
    t.equal((await user.operate('copies', { from: 'a.txt', to: 'd.txt' })).statusCode, 200, 'without it, a copy replaces')
    t.equal(await user.read('d.txt'), 'alpha')

    t.equal((await user.operate('copies', { from: 'missing.txt', to: 'e.txt' })).statusCode, 404)
    t.equal((await user.operate('copies', { from: 'a.txt', to: 'a.txt' })).statusCode, 409, 'onto itself')
    t.equal((await user.operate('copies', { from: 'a.txt', to: '../escape.txt' })).statusCode, 400)
    t.equal((await user.operate('copies', { from: 'a.txt' })).statusCode, 400, 'no destination')
    t.equal((await user.operate('copies', { from: 'a.txt', to: 'x' }, { 'if-match': 'no quotes' })).statusCode, 400)
    const anonymous = await user.app.inject({ method: 'POST', url: '/api/copies', payload: { from: 'a.txt', to: 'z.txt' } })
    t.equal(anonymous.statusCode, 401)
  })

  t.test(`${driver}: move of a file: the source is gone exactly when the destination holds it`, async (t) => {
    const user = await userOf(t, driver)
    const etag = await user.put('from/a.txt', 'alpha')
    await user.put('taken.txt', 'taken')

    const stale = await user.operate('moves', { from: 'from/a.txt', to: 'b.txt' }, { 'if-match': '"0123456789abcdef0123456789abcdef"' })
    t.equal(stale.statusCode, 412)
    const taken = await user.operate('moves', { from: 'from/a.txt', to: 'taken.txt' }, { 'if-none-match': '*' })
    t.equal(taken.statusCode, 412)
    t.equal(await user.read('from/a.txt'), 'alpha', 'a refused move leaves the source')
    t.equal(await user.read('taken.txt'), 'taken', 'and the destination')
    t.equal(await user.read('b.txt'), 404)

    const moved = await user.operate('moves', { from: 'from/a.txt', to: 'to/b.txt' }, { 'if-match': etag, 'if-none-match': '*' })
    t.equal(moved.statusCode, 200, moved.payload)
    t.match(moved.json(), { key: 'to/b.txt', size: 5, etag })
    t.equal(await user.read('to/b.txt'), 'alpha')
    t.equal(await user.read('from/a.txt'), 404, 'the source is gone')
    const trash = await user.app.inject({ url: '/api/trash', headers: user.headers })
    t.same(trash.json().items, [], 'a move\'s source does not go to the trash')
    const folders = await user.app.inject({ url: '/api/files?delimiter=/', headers: user.headers })
    t.same(folders.json().folders, ['to/'], 'the emptied folder is gone')

    t.equal((await user.operate('moves', { from: 'from/a.txt', to: 'c.txt' })).statusCode, 404, 'moved already')
    t.equal((await user.operate('moves', { from: 'to/b.txt', to: 'to/b.txt' })).statusCode, 409)
  })

  t.test(`${driver}: a write to the source during its move is not lost`, async (t) => {
    const user = await userOf(t, driver)
    const body = (round: number) => `${round}`.repeat(256 * 1024)
    for (let round = 0; round < 5; round++) {
      await user.put(`${round}.txt`, 'before')
      const [moved, written] = await Promise.all([user.operate('moves', { from: `${round}.txt`, to: `${round}-moved.txt` }), user.put(`${round}.txt`, body(round))])
      t.equal(moved.statusCode, 200)
      t.ok(written)
      const [source, destination] = await Promise.all([user.read(`${round}.txt`), user.read(`${round}-moved.txt`)])
      t.ok(source === body(round) || destination === body(round), `round ${round}: the write is ${source === body(round) ? 'at the source' : 'moved'}`)
    }
  })

  t.test(`${driver}: folders copied and moved whole; refusals`, async (t) => {
    const user = await userOf(t, driver)
    for (const path of ['docs/a.txt', 'docs/sub/b.txt', 'docs/sub/deeper/c.txt', 'docsx.txt']) await user.put(path, path)

    const copied = await user.operate('copies', { from: 'docs/', to: 'backup/docs/' })
    t.equal(copied.statusCode, 200, copied.payload)
    t.same(copied.json(), { files: 3, bytes: 'docs/a.txt'.length + 'docs/sub/b.txt'.length + 'docs/sub/deeper/c.txt'.length, isTruncated: false })
    t.equal(await user.read('backup/docs/sub/deeper/c.txt'), 'docs/sub/deeper/c.txt')
    t.equal(await user.read('docs/a.txt'), 'docs/a.txt', 'a copy leaves the folder')

    const moved = await user.operate('moves', { from: 'docs/', to: '' })
    t.equal(moved.statusCode, 200, moved.payload)
    t.equal(moved.json().files, 3)
    t.equal(await user.read('sub/deeper/c.txt'), 'docs/sub/deeper/c.txt', 'moved to the root')
    t.equal(await user.read('docs/a.txt'), 404)
    t.equal(await user.read('docsx.txt'), 'docsx.txt', 'a file beside the folder, sharing its name\'s start, stays')

    t.equal((await user.operate('moves', { from: 'docs/', to: 'elsewhere/' })).statusCode, 404, 'nothing left under it')
    t.equal((await user.operate('moves', { from: 'backup/', to: 'backup/inner/' })).statusCode, 409, 'into itself')
    t.equal((await user.operate('copies', { from: 'backup/', to: 'backup/' })).statusCode, 409, 'onto itself')
    t.equal((await user.operate('moves', { from: 'backup/', to: 'file.txt' })).statusCode, 400, 'a folder goes to a folder')
    t.equal((await user.operate('moves', { from: 'backup/', to: 'b/' }, { 'if-match': '"0123456789abcdef0123456789abcdef"' })).statusCode, 400, 'a folder has no ETag')

    await user.put('other/docs/a.txt', 'there already')
    const taken = await user.operate('copies', { from: 'backup/', to: 'other/' }, { 'if-none-match': '*' })
    t.equal(taken.statusCode, 412, 'If-None-Match: * holds for each file')
    t.equal(await user.read('other/docs/a.txt'), 'there already')
  })

  t.test(`${driver}: a folder of 250 files (three pages) moved over several requests, then the same request again does nothing more`, async (t) => {
    // The shortest budget: each request moves a page or two and stops, as one cut short would.
    const user = await userOf(t, driver, { FOLDER_OPERATION_BUDGET_MS: '100' })
    const paths = Array.from({ length: 250 }, (_, i) => `big/${String(i).padStart(4, '0')}.txt`)
    for (let i = 0; i < paths.length; i += 8) await Promise.all(paths.slice(i, i + 8).map((path) => user.put(path, path)))
    let requests = 0
    let files = 0
    for (let truncated = true; truncated; requests++) {
      const res = await user.operate('moves', { from: 'big/', to: 'moved/' })
      t.equal(res.statusCode, 200, res.payload)
      files += res.json().files
      truncated = res.json().isTruncated
    }
    t.ok(requests > 1, `stopped part-way and went on (${requests} requests)`)
    t.equal(files, 250, 'each file moved once')
    const again = await user.operate('moves', { from: 'big/', to: 'moved/' })
    t.equal(again.statusCode, 404, 'nothing left to move')
    let listed = 0
    for (let token: string | undefined, more = true; more;) {
      const page = (await user.app.inject({ url: `/api/files?prefix=moved/${token ? `&continuationToken=${token}` : ''}`, headers: user.headers })).json()
      listed += page.files.length
      more = page.isTruncated
      token = page.continuationToken
    }
    t.equal(listed, 250)
    t.equal(await user.read('moved/0249.txt'), 'big/0249.txt')
  })
}

t.test('fs: a client that leaves a folder copy of 2,000 files: the copying stops within a second', async (t) => {
  const user = await userOf(t, 'fs', { FOLDER_OPERATION_BUDGET_MS: '600000' })
  const owner = { userId: (await user.app.inject({ url: '/api/auth/credentials', headers: user.headers })).json().userId, orgId: null }
  for (let i = 0; i < 2000; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, j) => user.app.stowageFiles.write(owner, `many/${String(i + j).padStart(4, '0')}.txt`, Readable.from([Buffer.from('x')]))))
  }
  const base = await user.app.listen({ port: 0, host: '127.0.0.1' })
  const copied = async () => {
    let count = 0
    for (let token: string | undefined, more = true; more;) {
      const page = await user.app.stowageFiles.list(owner.userId, { prefix: 'copy/', continuationToken: token })
      count += page.files.length
      more = page.isTruncated
      token = page.continuationToken
    }
    return count
  }
  const leaving = new AbortController()
  const request = fetch(`${base}/api/copies`, { method: 'POST', headers: { ...user.headers, 'content-type': 'application/json' }, body: JSON.stringify({ from: 'many/', to: 'copy/' }), signal: leaving.signal })
  request.catch(() => {})
  await waitFor(async () => await copied() > 0, { what: 'the copy to begin' })
  leaving.abort()
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const soonAfter = await copied()
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const later = await copied()
  t.equal(later, soonAfter, `no file copied after the first second (${soonAfter} copied)`)
  t.ok(later < 2000, 'the copy did not run to its end')
})
