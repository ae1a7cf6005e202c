import t from 'tap'
import { bearer, buildTestApp } from './helpers/app.js'
import { createTestDatabase, DRIVERS } from './helpers/db.js'
import { startS3Server } from './helpers/s3.js'

const s3 = await startS3Server()
t.teardown(() => s3.close())

const pad = (n: number) => String(n).padStart(3, '0')

for (const driver of DRIVERS) {
  t.test(`${driver}: delimiter=/ lists one level, files and folders in key order sharing the 100-entry page`, async (t) => {
    const { app, close } = await buildTestApp({ driver, s3 })
    t.teardown(close)
    const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
    const headers = bearer(key)
    const put = (path: string) => app.inject({ method: 'PUT', url: `/api/raw/${path}`, headers: { ...headers, 'content-type': 'text/plain' }, payload: path })
    const paths = [
      // '-' sorts before '/': this file comes before the folder d0/.
      'd0-x.txt',
      ...Array.from({ length: 150 }, (_, i) => `f${pad(i)}.txt`),
      ...[0, 1, 2].flatMap((d) => Array.from({ length: 100 }, (_, i) => `d${d}/${pad(i)}.txt`)),
      // 99 files and two folders: the first page ends on a folder.
      ...Array.from({ length: 99 }, (_, i) => `g/a${pad(i)}.txt`), 'g/x/one.txt', 'g/y/two.txt', 'g/y/deeper/three.txt',
      // A folder that holds only a folder.
      'h/only/four.txt'
    ]
    // Eight at a time: each S3 upload holds three part buffers of the upload memory budget.
    for (let i = 0; i < paths.length; i += 8) {
      const statuses = (await Promise.all(paths.slice(i, i + 8).map(put))).map((res) => res.statusCode)
      if (statuses.some((status) => status !== 200)) throw new Error(`uploads answered ${statuses}`)
    }
    const list = async (query: Record<string, string>) => {
      const res = await app.inject({ url: `/api/files?${new URLSearchParams({ delimiter: '/', ...query })}`, headers })
      t.equal(res.statusCode, 200, res.payload)
      return res.json() as { files: Array<{ key: string }>, folders: string[], isTruncated: boolean, continuationToken?: string }
    }

    const first = await list({})
    t.equal(first.files[0].key, 'd0-x.txt')
    t.same(first.folders, ['d0/', 'd1/', 'd2/'], 'each folder once, whatever lies below it')
    t.equal(first.files.length + first.folders.length, 100, 'files and folders share the page')
    t.equal(first.files.at(-1)!.key, 'f095.txt')
    t.ok(first.isTruncated)
    const second = await list({ continuationToken: first.continuationToken! })
    t.same(second.folders, ['g/', 'h/'], 'a folder that sorts after the files comes after them; one holding only folders is named too')
    t.same(second.files.map((file) => file.key), Array.from({ length: 54 }, (_, i) => `f${pad(i + 96)}.txt`))
    t.equal(second.isTruncated, false)
    t.notOk('continuationToken' in second)

    const inside = await list({ prefix: 'd1/' })
    t.equal(inside.files.length, 100)
    t.same(inside.folders, [])
    t.equal(inside.isTruncated, false, 'exactly a page')

    const endsOnFolder = await list({ prefix: 'g/' })
    t.equal(endsOnFolder.files.length, 99)
    t.same(endsOnFolder.folders, ['g/x/'])
    t.ok(endsOnFolder.isTruncated)
    const afterFolder = await list({ prefix: 'g/', continuationToken: endsOnFolder.continuationToken! })
    t.same(afterFolder.folders, ['g/y/'], 'after a folder, the next folder, not that one again')
    t.same(afterFolder.files, [])
    t.equal(afterFolder.isTruncated, false)

    const narrowed = await list({ prefix: 'd' })
    t.same(narrowed.folders, ['d0/', 'd1/', 'd2/'], 'a prefix that is not a folder narrows the level')
    t.same(narrowed.files.map((file) => file.key), ['d0-x.txt'])

    const flat = await app.inject({ url: '/api/files?prefix=g/y/', headers })
    t.same(flat.json().files.map((file: { key: string }) => file.key), ['g/y/deeper/three.txt', 'g/y/two.txt'], 'without a delimiter, every file below')
    t.notOk('folders' in flat.json(), 'and no folders field')

    const refused = await app.inject({ url: '/api/files?delimiter=%2C', headers })
    t.equal(refused.statusCode, 400, 'a delimiter other than /')
    t.match(refused.json(), { error: /delimiter/ })
  })
}

for (const driver of DRIVERS) {
  t.test(`${driver}: a folder made on purpose exists while empty, costs no quota, survives its last file and is seen by another instance, and goes along when copied, moved or zipped`, async (t) => {
    // One database for the service and its restart, as a deployment keeps it.
    const database = await createTestDatabase({ shared: true })
    t.teardown(database.drop)
    const { app, close, config } = await buildTestApp({ driver, s3, env: { QUOTA_BYTES: '1000', DATABASE_URL: database.url } })
    t.teardown(close)
    const { key } = await app.stowageKeys.create({ userId: 'maker', orgId: null })
    const headers = bearer(key)
    const make = (path: string) => app.inject({ method: 'POST', url: '/api/folders', headers, payload: { path } })
    const remove = (path: string) => app.inject({ method: 'DELETE', url: `/api/folders/${path}`, headers })
    const level = async (prefix = '') => (await app.inject({ url: `/api/files?${new URLSearchParams({ delimiter: '/', prefix })}`, headers })).json() as { files: Array<{ key: string }>, folders: string[] }
    const put = (path: string, body = 'x') => app.inject({ method: 'PUT', url: `/api/raw/${path}`, headers: { ...headers, 'content-type': 'text/plain' }, payload: body })

    const made = await make('projects/empty')
    t.equal(made.statusCode, 201)
    t.same(made.json(), { path: 'projects/empty/' })
    t.equal((await make('projects/empty/')).statusCode, 201, 'making it again changes nothing')
    t.same((await level()).folders, ['projects/'])
    t.same(await level('projects/'), { files: [], folders: ['projects/empty/'], isTruncated: false }, 'listed, and not as a file')
    t.same((await level('projects/empty/')).files, [], 'an empty folder holds no file, not even its marker')
    t.match((await app.inject({ url: '/api/usage', headers })).json(), { usedBytes: 0, fileCount: 0 }, 'no quota')

    await put('notes.txt')
    t.equal((await make('notes.txt')).statusCode, 409, 'a file has that name')
    t.equal((await make('../bob')).statusCode, 400)

    t.equal((await put('projects/empty/last.txt')).statusCode, 200)
    t.equal((await app.inject({ method: 'DELETE', url: '/api/raw/projects/empty/last.txt', headers })).statusCode, 204)
    t.same((await level('projects/')).folders, ['projects/empty/'], 'it stays when its last file is deleted')

    await put('projects/full/a.txt')
    t.equal((await remove('projects/full')).statusCode, 409, 'not empty')
    t.equal((await remove('nothing-here')).statusCode, 404)

    await make('projects/empty/deeper')
    t.equal((await app.inject({ method: 'POST', url: '/api/copies', headers, payload: { from: 'projects/', to: 'copied/' } })).statusCode, 200)
    t.same((await level('copied/')).folders, ['copied/empty/', 'copied/full/'], 'a copy takes the empty folders along')
    t.same((await level('copied/empty/')).folders, ['copied/empty/deeper/'])
    t.equal((await app.inject({ method: 'POST', url: '/api/moves', headers, payload: { from: 'copied/', to: 'moved/' } })).statusCode, 200)
    t.same((await level('moved/empty/')).folders, ['moved/empty/deeper/'], 'and so does a move')
    t.same((await level()).folders, ['moved/', 'projects/'], 'nothing is left where it moved from')

    const zip = await app.inject({ url: '/api/archive?prefix=projects/', headers })
    t.equal(zip.statusCode, 200)
    const names = zip.rawPayload.toString('latin1')
    t.ok(names.includes('empty/deeper/'), 'the zip names the empty folder as a folder\'s entry')

    // Another instance (or this one restarted) on the same store and database.
    const again = await buildTestApp({ driver, s3, env: { STORAGE_DIR: config.STORAGE_DIR, DATABASE_URL: database.url } })
    t.teardown(again.close)
    const listed = await again.app.inject({ url: '/api/files?delimiter=/&prefix=projects/empty/', headers })
    t.equal(listed.statusCode, 200, listed.payload)
    const still = listed.json() as { folders: string[] }
    t.same(still.folders, ['projects/empty/deeper/'], 'another instance sees it')

    t.equal((await remove('projects/empty/deeper')).statusCode, 204)
    t.equal((await remove('projects/empty/')).statusCode, 204)
    t.same((await level('projects/')).folders, ['projects/full/'])
    t.equal((await remove('projects/empty')).statusCode, 404, 'gone')
  })
}

for (const driver of DRIVERS) {
  t.test(`${driver}: a file cannot take the name of a folder made on purpose: a PUT there is 409 on every route`, async (t) => {
    const { app, close } = await buildTestApp({ driver, s3 })
    t.teardown(close)
    const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
    const headers = bearer(key)
    t.equal((await app.inject({ method: 'POST', url: '/api/folders', headers, payload: { path: 't/fo/made' } })).statusCode, 201)
    const raw = await app.inject({ method: 'PUT', url: '/api/raw/t/fo/made', headers: { ...headers, 'content-type': 'text/plain' }, payload: 'x' })
    t.equal(raw.statusCode, 409)
    t.match(raw.json(), { error: 'a folder has that name: t/fo/made' })
    const json = await app.inject({ method: 'PUT', url: '/api/files/t/fo/made', headers, payload: { content: Buffer.from('x').toString('base64'), contentType: 'text/plain' } })
    t.equal(json.statusCode, 409)
    const listed = (await app.inject({ url: '/api/files?prefix=t/fo/&delimiter=/', headers })).json() as { files: unknown[], folders: string[] }
    t.same(listed, { files: [], folders: ['t/fo/made/'], isTruncated: false }, 'the folder alone, no file of its name')
    t.equal((await app.inject({ method: 'PUT', url: '/api/raw/t/fo/made2', headers: { ...headers, 'content-type': 'text/plain' }, payload: 'x' })).statusCode, 200, 'a name beside it is free')
  })
}

for (const driver of DRIVERS) {
  t.test(`${driver}: a folder that holds only deeper folders is listed one level up, through the file API and WebDAV`, async (t) => {
    const { app, close } = await buildTestApp({ driver, s3 })
    t.teardown(close)
    const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
    const headers = bearer(key)
    t.equal((await app.inject({ method: 'PUT', url: '/api/raw/p/deep/x/y/z.txt', headers: { ...headers, 'content-type': 'text/plain' }, payload: 'z' })).statusCode, 200)
    t.equal((await app.inject({ method: 'POST', url: '/api/folders', headers, payload: { path: 'p/empty/inner' } })).statusCode, 201)
    const listed = (await app.inject({ url: '/api/files?prefix=p/&delimiter=/', headers })).json() as { files: unknown[], folders: string[] }
    t.same(listed.folders, ['p/deep/', 'p/empty/'])
    const inner = (await app.inject({ url: '/api/files?prefix=p/empty/&delimiter=/', headers })).json() as { folders: string[] }
    t.same(inner.folders, ['p/empty/inner/'])
    const dav = await app.inject({ method: 'PROPFIND' as 'GET', url: '/dav/p/', headers: { ...headers, depth: '1' } })
    t.equal(dav.statusCode, 207)
    t.same([...dav.body.matchAll(/<D:href>([^<]*)<\/D:href>/g)].map(([, href]) => href), ['/dav/p/', '/dav/p/deep/', '/dav/p/empty/'])
  })
}
