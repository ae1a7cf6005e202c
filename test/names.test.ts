import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { stowageOptions } from '../stowage-options.js'
import { openDatabase } from '../db/dialect.js'
import { createNameRepository } from '../db/names.js'
import { createNameIndex } from '../storage/names.js'
import { createPublisher } from '../storage/publisher.js'
import { createStore } from '../storage/store.js'
import { bearer, buildTestApp } from './helpers/app.js'
import { createTestDatabase, DRIVERS } from './helpers/db.js'
import { startS3Server } from './helpers/s3.js'
import { putBytes } from './helpers/store.js'

const s3 = await startS3Server()
t.teardown(() => s3.close())

type App = Awaited<ReturnType<typeof buildTestApp>>['app']

/** A user of `app` with an API key, and their one-level listings. */
async function userOf (app: App, userId: string) {
  const headers = bearer((await app.stowageKeys.create({ userId, orgId: null })).key)
  return {
    headers,
    put: (path: string, body = path, type = 'text/plain') => app.inject({ method: 'PUT', url: `/api/raw/${path}`, headers: { ...headers, 'content-type': type }, payload: body }),
    async list (prefix = '', query: Record<string, string> = {}) {
      const answer = await app.inject({ url: `/api/files?${new URLSearchParams({ prefix, delimiter: '/', ...query })}`, headers })
      if (answer.statusCode !== 200) throw new Error(answer.body)
      const { files, folders } = answer.json() as { files: Array<{ key: string }>, folders: string[] }
      return { files: files.map(({ key }) => key), folders }
    }
  }
}

/** The store behind `app`, reached as the service does not: straight. */
async function storeOf (config: Awaited<ReturnType<typeof buildTestApp>>['config']) {
  const { storage } = stowageOptions(config)
  return await createStore({ driver: config.STORAGE_DRIVER, ...storage }, config.MAX_UPLOAD_BYTES)
}

for (const driver of DRIVERS) {
  t.test(`${driver}: a folder is listed while it holds anything or was made on purpose; listings read the index, not the store`, async (t) => {
    const { app, config, close } = await buildTestApp({ driver, s3 })
    t.teardown(close)
    const alice = await userOf(app, `names-${driver}`)
    for (const path of ['a.txt', 'docs/b.txt', 'docs/deep/er/c.txt']) t.equal((await alice.put(path)).statusCode, 200)
    t.equal((await app.inject({ method: 'POST', url: '/api/folders', headers: alice.headers, payload: { path: 'made' } })).statusCode, 201)
    t.same(await alice.list(), { files: ['a.txt'], folders: ['docs/', 'made/'] })
    t.same(await alice.list('docs/'), { files: ['docs/b.txt'], folders: ['docs/deep/'] })
    t.same(await alice.list('docs/deep/'), { files: [], folders: ['docs/deep/er/'] }, 'a folder that holds only a folder')

    t.equal((await app.inject({ method: 'DELETE', url: '/api/raw/docs/deep/er/c.txt', headers: alice.headers })).statusCode, 204)
    t.same(await alice.list('docs/'), { files: ['docs/b.txt'], folders: [] }, 'the folders it alone held are gone')
    t.equal((await app.inject({ method: 'PUT', url: '/api/raw/made/in.txt', headers: alice.headers, payload: 'x' })).statusCode, 200)
    t.equal((await app.inject({ method: 'DELETE', url: '/api/raw/made/in.txt', headers: alice.headers })).statusCode, 204)
    t.same((await alice.list()).folders, ['docs/', 'made/'], 'a folder made on purpose stays empty')
    t.equal((await app.inject({ method: 'POST', url: '/api/moves', headers: alice.headers, payload: { from: 'docs/b.txt', to: 'moved/b.txt' } })).statusCode, 200)
    t.same(await alice.list(), { files: ['a.txt'], folders: ['made/', 'moved/'] }, 'a move takes its folder with it')
    t.equal((await app.inject({ method: 'DELETE', url: '/api/folders/made', headers: alice.headers })).statusCode, 204)
    t.same((await alice.list()).folders, ['moved/'])

    // Written into the store behind the service's back: the index does not know it until a reindex.
    const store = await storeOf(config)
    t.teardown(() => store.close?.())
    const root = `users/names-${driver}/${config.STORAGE_ROOT}/`
    await putBytes(createPublisher({ store }), `${root}sneaked/in.txt`, Buffer.from('sneaked'), 'text/csv')
    t.same(await alice.list(), { files: ['a.txt'], folders: ['moved/'] }, 'listed from the index')
    t.same(await app.stowageNames.reindex(`names-${driver}`), { added: 1, removed: 0, changed: 0 })
    t.same(await alice.list(), { files: ['a.txt'], folders: ['moved/', 'sneaked/'] })
    const head = await app.inject({ method: 'HEAD', url: '/api/raw/sneaked/in.txt', headers: alice.headers })
    t.match(head.headers, { 'content-length': '7', 'content-type': /^text\/csv/ }, 'a content type the listing did not give is asked of the store')

    // Gone from the store behind its back: a read finds it and takes it out of the index.
    await store.delete(`${root}a.txt`)
    t.equal((await app.inject({ url: '/api/raw/a.txt', headers: alice.headers })).statusCode, 404)
    t.same((await alice.list()).files, [], 'the read mended the index')
    t.same(await app.stowageNames.reindex(`names-${driver}`), { added: 0, removed: 0, changed: 0 }, 'nothing left to mend')
  })

  t.test(`${driver}: a deployment's first start with the index builds it from the store, a user at a time; a stopped build goes on where it stopped`, async (t) => {
    const database = await createTestDatabase({ shared: true })
    const storageDir = await mkdtemp(join(tmpdir(), 'stowage-names-'))
    t.teardown(async () => {
      await database.drop()
      await rm(storageDir, { recursive: true, force: true })
    })
    const env = { DATABASE_URL: database.url, STORAGE_DIR: storageDir, STORAGE_ROOT: `built-${driver}` }
    const first = await buildTestApp({ driver, s3, env })
    const users = await Promise.all(['ann', 'ben'].map((name) => userOf(first.app, `${name}-${driver}`)))
    for (const [index, user] of users.entries()) {
      for (let file = 0; file < 5; file++) t.equal((await user.put(`f${file}.txt`, `${index}${file}`)).statusCode, 200)
      t.equal((await user.put('in/a/folder.md', 'deep', 'text/markdown')).statusCode, 200)
    }
    const etagOf = async (path: string) => (await first.app.inject({ method: 'HEAD', url: `/api/raw/${path}`, headers: users[0].headers })).headers.etag as string
    const f0 = await etagOf('f0.txt')
    await first.close()

    // As a deployment from before the index: its rows were never written.
    const db = openDatabase(database.url)
    t.teardown(() => db.destroy())
    await db.deleteFrom('names').execute()
    await db.deleteFrom('name_builds').execute()
    // ...which kept x-amz-meta-* in a table of their own: for this content of f0, and for other content of f1.
    await db.insertInto('s3_metadata').values([
      { user_id: `ann-${driver}`, path: 'f0.txt', etag: f0, metadata: '{"mtime":"1700000000"}' },
      { user_id: `ann-${driver}`, path: 'f1.txt', etag: '"00000000000000000000000000000000"', metadata: '{"mtime":"1"}' }
    ]).execute()

    // An instance that stops after its first batch of two names...
    const store = await storeOf(first.config)
    t.teardown(() => store.close?.())
    const repository = createNameRepository(db)
    const stopping = new AbortController()
    const rootOf = (userId: string) => `users/${userId}/${env.STORAGE_ROOT}/`
    const stopped = createNameIndex({
      repository: { ...repository, addListed: async (...args) => { await repository.addListed(...args); stopping.abort() } },
      store, rootOf, batch: 2, claimMs: 1
    })
    t.equal(await stopped.build(stopping.signal), false, 'stopped before it was done')
    const left = await db.selectFrom('name_builds').selectAll().where('done', '=', 0).execute()
    t.ok(users.every((_, index) => left.some((row) => row.user_id === `${['ann', 'ben'][index]}-${driver}`)), 'both users are still to build')
    t.ok(left.some((row) => row.after !== null), 'one of them part way')

    // ...and the service, started again, goes on from there (its claim has lapsed).
    const listed: Array<string | undefined> = []
    const watched = { ...store, list: async (...args: Parameters<typeof store.list>) => { listed.push(args[1].startAfter); return await store.list(...args) } }
    t.equal(await createNameIndex({ repository, store: watched, rootOf }).build(), true)
    t.ok(listed.includes(left.find((row) => row.after !== null)!.after!), 'the build went on after the last name indexed')
    const second = await buildTestApp({ driver, s3, env })
    t.teardown(second.close)
    for (const user of users) {
      const list = async (prefix = '') => (await second.app.inject({ url: `/api/files?${new URLSearchParams({ prefix, delimiter: '/' })}`, headers: user.headers })).json()
      t.match(await list(), { files: ['f0.txt', 'f1.txt', 'f2.txt', 'f3.txt', 'f4.txt'].map((key) => ({ key })), folders: ['in/'] })
      t.match(await list('in/'), { files: [], folders: ['in/a/'] })
      const head = await second.app.inject({ method: 'HEAD', url: '/api/raw/in/a/folder.md', headers: user.headers })
      t.match(head.headers, { 'content-type': /^text\/markdown/, 'content-length': '4' })
    }
    t.same(await db.selectFrom('name_builds').select('user_id').where('done', '=', 0).execute(), [], 'every build done')
    t.same((await repository.head(`${rootOf(`ann-${driver}`)}f0.txt`))?.metadata, { mtime: '1700000000' }, 'metadata kept before the index is in it')
    t.same((await repository.head(`${rootOf(`ann-${driver}`)}f1.txt`))?.metadata, {}, 'metadata kept for other content is not')
    const deepest = (await repository.head(`${rootOf(`ann-${driver}`)}in/a/folder.md`))!.lastModified
    const dates = await repository.folders([`${rootOf(`ann-${driver}`)}in/`, `${rootOf(`ann-${driver}`)}in/a/`])
    t.same([...dates.values()].map((date) => date?.toISOString()), [deepest.toISOString(), deepest.toISOString()], 'folders dated by the earliest file they hold')
  })
}

t.test('a folder sorted by size or time is sorted whole, folders first, page after page; search finds paths by any part of them, in any case', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  const user = await userOf(app, 'sorter')
  // 150 files of sizes that do not follow their names, and two folders.
  const sizeOf = (index: number) => (index * 37) % 151
  for (let index = 0; index < 150; index += 10) {
    await Promise.all(Array.from({ length: 10 }, (_, i) => user.put(`f${String(index + i).padStart(3, '0')}.txt`, 'x'.repeat(sizeOf(index + i)))))
  }
  for (const path of ['zeta/in.txt', 'alpha/Holiday Photo.JPG', 'alpha/deeper/holiday-notes.md']) t.equal((await user.put(path)).statusCode, 200)
  // Named on a Mac (its é decomposed, NFD), and found by a name typed elsewhere (NFC), in capitals.
  t.equal((await user.put(`alpha/${encodeURIComponent('Re\u0301sume\u0301.pdf')}`)).statusCode, 200)

  const all = async (query: Record<string, string>) => {
    const seen: { files: Array<{ key: string, size: number }>, folders: string[] } = { files: [], folders: [] }
    let continuationToken: string | undefined
    do {
      const answer = await app.inject({ url: `/api/files?${new URLSearchParams({ delimiter: '/', ...query, ...continuationToken ? { continuationToken } : {} })}`, headers: user.headers })
      t.equal(answer.statusCode, 200, answer.body)
      const page = answer.json()
      seen.files.push(...page.files)
      seen.folders.push(...page.folders)
      continuationToken = page.continuationToken
    } while (continuationToken)
    return seen
  }
  const bySize = await all({ sort: 'size' })
  t.same(bySize.folders, ['alpha/', 'zeta/'])
  t.same(bySize.files.map((file) => file.size), [...bySize.files.map((file) => file.size)].sort((a, b) => a - b), 'ascending by size over every page')
  t.equal(bySize.files.length, 150)
  const largestFirst = await all({ sort: 'size', order: 'desc' })
  t.same(largestFirst.folders, ['zeta/', 'alpha/'])
  t.equal(largestFirst.files[0].size, 150)
  t.same((await all({ sort: 'name', order: 'desc' })).files.slice(0, 2).map((file) => file.key), ['f149.txt', 'f148.txt'])
  t.same((await all({ sort: 'lastModified' })).files.length, 150)

  // Key order puts zeta/ after every file; a file browser asks for the folders first.
  t.same((await app.inject({ url: '/api/files?delimiter=/', headers: user.headers })).json().folders, ['alpha/'], 'key order: zeta/ is on the second page')
  const browsed = (await app.inject({ url: '/api/files?delimiter=/&folders=first', headers: user.headers })).json()
  t.same(browsed.folders, ['alpha/', 'zeta/'], 'folders=first: every folder on the first page')
  t.same(browsed.files.slice(0, 2).map((file: { key: string }) => file.key), ['f000.txt', 'f001.txt'])
  t.equal(browsed.files.length, 98, 'sharing the page of 100')
  t.same((await all({ folders: 'first' })).files.length, 150, 'and every file once over the pages')
  t.match((await app.inject({ url: '/api/files?folders=first', headers: user.headers })).json(), { error: /delimiter=\// })
  t.equal((await app.inject({ url: '/api/files?delimiter=/&folders=last', headers: user.headers })).statusCode, 400)

  const first = await app.inject({ url: '/api/files?delimiter=/&sort=size', headers: user.headers })
  const token = first.json().continuationToken as string
  const mixed = await app.inject({ url: `/api/files?delimiter=/&sort=lastModified&continuationToken=${token}`, headers: user.headers })
  t.match(mixed, { statusCode: 400 })
  t.match(mixed.json(), { error: /not one this service issued for this sort/ })
  t.match((await app.inject({ url: '/api/files?sort=size', headers: user.headers })).json(), { error: /delimiter=\// })

  const search = async (query: Record<string, string>) => await app.inject({ url: `/api/search?${new URLSearchParams(query)}`, headers: user.headers })
  t.same((await search({ q: 'HOLIDAY' })).json().files.map((file: { key: string }) => file.key), ['alpha/Holiday Photo.JPG', 'alpha/deeper/holiday-notes.md'])
  t.same((await search({ q: 'notes', prefix: 'alpha/deeper/' })).json().files.map((file: { key: string }) => file.key), ['alpha/deeper/holiday-notes.md'])
  t.same((await search({ q: '%' })).json(), { error: 'q must be at least 2 characters: the text to look for in your files\' paths' })
  t.same((await search({ q: '_.' })).json().files, [], 'wildcards are plain text')
  const pages = [await search({ q: '.txt' })]
  t.equal(pages[0].json().files.length, 100)
  pages.push(await search({ q: '.txt', continuationToken: pages[0].json().continuationToken }))
  t.same(pages[1].json().files.map((file: { key: string }) => file.key), [...Array.from({ length: 50 }, (_, i) => `f${String(100 + i).padStart(3, '0')}.txt`), 'zeta/in.txt'])
  t.same((await search({ q: 'R\u00c9SUM\u00c9' })).json().files.map((file: { key: string }) => file.key), ['alpha/Re\u0301sume\u0301.pdf'], 'any case, either Unicode form')

  const newest = [await search({ q: '.txt', sort: 'newest' })]
  newest.push(await search({ q: '.txt', sort: 'newest', continuationToken: newest[0].json().continuationToken }))
  const found = newest.flatMap((page) => page.json().files as Array<{ key: string, lastModified: string }>)
  t.equal(found.length, 151, 'every file once over the pages')
  t.equal(new Set(found.map((file) => file.key)).size, 151)
  t.same(found.map((file) => file.lastModified), found.map((file) => file.lastModified).sort().reverse(), 'newest first')
  t.equal(found[0].key, 'zeta/in.txt')
  t.match((await search({ q: '.txt', continuationToken: newest[0].json().continuationToken })).json(), { error: /continuationToken/ }, 'a token of one order is refused in the other')

  const other = await userOf(app, 'someone-else')
  t.same((await app.inject({ url: '/api/search?q=holiday', headers: other.headers })).json().files, [], 'only the caller\'s own files')
})
