import t, { type Test } from 'tap'
import { randomBytes } from 'node:crypto'
import { GetObjectCommand, ListBucketsCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3'
import { bearer, buildTestApp } from './helpers/app.js'
import { base64, team, type Headers } from './helpers/team.js'
import { startIdp } from './helpers/idp.js'
import { startS3Server } from './helpers/s3.js'
import { waitFor } from './helpers/wait.js'
import type { AddressInfo } from 'node:net'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from '../cli/index.js'
import { stowageOf } from '../http/decorators.js'

// What a grantee reaches through a share (DESIGN §13): mounts at the top of their tree, and the
// JSON and raw file routes through the one resolver, as a table of routes × viewer, editor,
// stranger and ex-grantee, on both drivers (and both databases: CI runs this file on PostgreSQL too).
const idp = await startIdp()
t.teardown(() => idp.close())
const s3 = await startS3Server()
t.teardown(() => s3.close())

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: a folder shared is mounted at the top of the grantee's tree, listed, read and renamed; leaving ends it`, async (t) => {
    const { app, ada, bea, dan, put, share, read, everything } = await team(t, { idp, s3, driver })
    await put(ada, 'docs/plan.md', 'the plan')
    await put(ada, 'docs/sub/a.txt')
    await put(bea, 'docs/mine.txt', 'bea\'s own')
    const { id } = await share(ada, { path: 'docs', with: { userId: 'bea' }, role: 'viewer' })

    const received = (await app.inject({ url: '/api/shared', headers: bea })).json().shares
    t.same(received.map(({ createdAt: _, ...rest }: { createdAt: string }) => rest), [{ id, name: 'docs (2)', owner: { userId: 'ada', email: 'ada@acme.example', name: 'ADA' }, role: 'viewer', kind: 'folder' }],
      'named after the folder, with " (2)": bea has a docs/ of her own')
    const top = (await app.inject({ url: '/api/files?delimiter=/', headers: bea })).json()
    t.same(top.folders, ['docs (2)/', 'docs/'], 'among her folders, in order')
    const sorted = (await app.inject({ url: '/api/files?delimiter=/&folders=first', headers: bea })).json()
    t.same(sorted.folders, ['docs (2)/', 'docs/'], 'and in the console\'s order')
    const inside = (await app.inject({ url: '/api/files?delimiter=/&prefix=docs%20(2)/', headers: bea })).json()
    t.same(inside.folders, ['docs (2)/sub/'])
    t.match(inside.files, [{ key: 'docs (2)/plan.md', size: 8, shared: { id, role: 'viewer', owner: 'ada' } }])
    t.equal(await read(bea, 'docs (2)/plan.md'), 'the plan')
    t.equal(await read(bea, 'docs/mine.txt'), 'bea\'s own', 'her own docs/ is hers still')
    const json = await app.inject({ url: '/api/files/docs (2)/sub/a.txt', headers: bea })
    t.equal(Buffer.from(json.json().content, 'base64').toString(), 'docs/sub/a.txt')
    const range = await app.inject({ url: '/api/raw/docs (2)/plan.md', headers: { ...bea, range: 'bytes=4-7' } })
    t.equal(range.statusCode, 206)
    t.equal(range.payload, 'plan')
    const notModified = await app.inject({ url: '/api/raw/docs (2)/plan.md', headers: { ...bea, 'if-none-match': range.headers.etag as string } })
    t.equal(notModified.statusCode, 304)
    const zip = await app.inject({ url: '/api/archive?prefix=docs%20(2)/', headers: bea })
    t.equal(zip.statusCode, 200)
    t.ok(zip.rawPayload.includes(Buffer.from('plan.md')), 'zipped')
    // A search inside the mount is the owner's folder's, shown at the mount's paths.
    await put(ada, 'docs/sub/plan-b.md')
    const found = (await app.inject({ url: '/api/search?q=PLAN&prefix=docs%20(2)/', headers: bea })).json()
    t.match(found.files, [{ key: 'docs (2)/plan.md', shared: { id, role: 'viewer', owner: 'ada' } }, { key: 'docs (2)/sub/plan-b.md' }], 'searched in the owner\'s folder')
    t.equal(found.files.length, 2)
    t.same((await app.inject({ url: '/api/search?q=mine&prefix=docs%20(2)/', headers: bea })).json().files, [], 'her own docs/ is not searched there')
    const foundMine = (await app.inject({ url: '/api/search?q=mine&prefix=docs/', headers: bea })).json().files
    t.match(foundMine, [{ key: 'docs/mine.txt' }], 'nor the mount in her own')
    t.same(await everything(dan), [], 'a stranger sees nothing of it')
    t.equal(await read(dan, 'docs (2)/plan.md'), 404)

    const renamed = await app.inject({ method: 'PATCH', url: `/api/shared/${id}`, headers: bea, payload: { name: 'Ada\'s docs' } })
    t.equal(renamed.statusCode, 200, renamed.payload)
    t.equal(renamed.json().name, 'Ada\'s docs')
    t.equal(await read(bea, 'Ada\'s docs/plan.md'), 'the plan', 'reached by its new name')
    t.equal(await read(bea, 'docs (2)/plan.md'), 404, 'and no longer by the old one')
    const taken = await app.inject({ method: 'PATCH', url: `/api/shared/${id}`, headers: bea, payload: { name: 'docs' } })
    t.equal(taken.statusCode, 409)
    t.match(taken.json().error, /docs is taken at the top of your files/)
    for (const name of ['a/b', '..', '']) {
      const bad = await app.inject({ method: 'PATCH', url: `/api/shared/${id}`, headers: bea, payload: { name } })
      t.equal(bad.statusCode, 400, `name ${JSON.stringify(name)}`)
    }
    t.equal((await app.inject({ method: 'PATCH', url: `/api/shared/${id}`, headers: dan, payload: { name: 'x' } })).statusCode, 404, 'not the stranger\'s to rename')
    t.equal((await app.inject({ method: 'DELETE', url: `/api/shared/${id}`, headers: dan })).statusCode, 404, 'nor to leave')

    // Moving the mount is renaming it; deleting it is leaving: never a change to the owner's files.
    const moved = await app.inject({ method: 'POST', url: '/api/moves', headers: bea, payload: { from: 'Ada\'s docs/', to: 'From Ada/' } })
    t.equal(moved.statusCode, 200, moved.payload)
    t.equal(await read(bea, 'From Ada/plan.md'), 'the plan')
    const owners = await everything(ada)
    t.equal((await app.inject({ method: 'DELETE', url: '/api/folders/From Ada', headers: bea })).statusCode, 204)
    t.same(await everything(ada), owners, 'the owner\'s files stay')
    t.same((await app.inject({ url: '/api/shares', headers: ada })).json().shares, [], 'the share ended for its owner too')
    t.same((await app.inject({ url: '/api/shared', headers: bea })).json().shares, [])
    t.equal(await read(bea, 'From Ada/plan.md'), 404)
  })

  t.test(`${driver}: every file route × viewer, editor, stranger and ex-grantee: a viewer's write is 403 with nothing changed, an editor's is the owner's`, async (t) => {
    const { app, ada, bea, cai, dan, eve, put, share, everything, read } = await team(t, { idp, s3, driver })
    await put(ada, 'docs/plan.md', 'the plan')
    await put(ada, 'docs/sub/a.txt')
    for (const who of ['bea', 'cai', 'dan', 'eve']) await put(ada, `docs/${who}.txt`, `for ${who}`)
    await share(ada, { path: 'docs/', with: { userId: 'bea' }, role: 'viewer' })
    await share(ada, { path: 'docs/', with: { userId: 'cai' }, role: 'editor' })
    const { id: eves } = await share(ada, { path: 'docs/', with: { userId: 'eve' }, role: 'editor' })
    t.equal((await app.inject({ method: 'DELETE', url: `/api/shares/${eves}`, headers: ada })).statusCode, 204)
    for (const headers of [bea, cai, dan, eve]) await put(headers, 'own.txt', 'their own')

    const writes: Array<[string, (headers: Headers, who: string) => Promise<Awaited<ReturnType<typeof app.inject>>>]> = [
      ['JSON PUT', (headers, who) => app.inject({ method: 'PUT', url: `/api/files/docs/new-${who}.txt`, headers, payload: { content: base64('new') } })],
      ['raw PUT', (headers, who) => app.inject({ method: 'PUT', url: `/api/raw/docs/raw-${who}.txt`, headers: { ...headers, 'content-type': 'text/plain' }, payload: 'raw' })],
      ['raw PUT over a file', (headers, who) => app.inject({ method: 'PUT', url: `/api/raw/docs/${who}.txt`, headers: { ...headers, 'content-type': 'text/plain' }, payload: 'replaced' })],
      ['JSON DELETE', (headers) => app.inject({ method: 'DELETE', url: '/api/files/docs/sub/a.txt', headers })],
      ['a folder made', (headers, who) => app.inject({ method: 'POST', url: '/api/folders', headers, payload: { path: `docs/folder-${who}` } })],
      ['a copy into it', (headers, who) => app.inject({ method: 'POST', url: '/api/copies', headers, payload: { from: 'own.txt', to: `docs/copied-${who}.txt` } })],
      ['a move within it', (headers, who) => app.inject({ method: 'POST', url: '/api/moves', headers, payload: { from: 'docs/plan.md', to: `docs/plan-${who}.md` } })],
      ['a move out of it', (headers, who) => app.inject({ method: 'POST', url: '/api/moves', headers, payload: { from: `docs/${who}.txt`, to: `taken-${who}.txt` } })],
      ['a resumable upload into it', (headers, who) => app.inject({ method: 'POST', url: '/api/uploads', headers: { ...headers, 'tus-resumable': '1.0.0', 'upload-length': '3', 'upload-metadata': `filename ${base64(`docs/tus-${who}.txt`)}` } })]
    ]
    const forbidden = /shared with you to view/

    t.test('viewer', async (t) => {
      const before = await everything(ada)
      for (const [name, write] of writes) {
        const refused = await write(bea, 'bea')
        t.equal(refused.statusCode, 403, `${name}: ${refused.payload}`)
        if (name !== 'a resumable upload into it') t.match(refused.json().error, forbidden)
      }
      t.same(await everything(ada), before, 'nothing changed at the owner\'s')
      t.equal(await read(bea, 'docs/plan.md'), 'the plan', 'reads are hers')
      t.same((await app.inject({ url: '/api/versions?path=docs/plan.md', headers: bea })).statusCode, 200, 'and versions\' lists')
      const copiedOut = await app.inject({ method: 'POST', url: '/api/copies', headers: bea, payload: { from: 'docs/plan.md', to: 'my-plan.md' } })
      t.equal(copiedOut.statusCode, 200, 'a copy out to her own files')
      t.equal(await read(bea, 'my-plan.md'), 'the plan')
      const reshared = await app.inject({ method: 'POST', url: '/api/shares', headers: bea, payload: { path: 'docs/plan.md', with: { userId: 'dan' }, role: 'viewer' } })
      t.equal(reshared.statusCode, 403)
      t.match(reshared.json().error, /cannot be shared further/)
      const linked = await app.inject({ method: 'POST', url: '/api/links', headers: bea, payload: { path: 'docs/plan.md', method: 'download' } })
      t.equal(linked.statusCode, 403)
      t.match(linked.json().error, /cannot be linked/)
    })

    t.test('editor', async (t) => {
      for (const [name, write] of writes) {
        const done = await write(cai, 'cai')
        t.ok(done.statusCode < 300, `${name}: ${done.statusCode} ${done.payload}`)
      }
      const owners = (await everything(ada)).map((line) => line.split(' ')[0])
      for (const path of ['docs/new-cai.txt', 'docs/raw-cai.txt', 'docs/folder-cai/', 'docs/copied-cai.txt', 'docs/plan-cai.md']) t.ok(owners.includes(path), `${path} is the owner's`)
      for (const path of ['docs/sub/a.txt', 'docs/plan.md', 'docs/cai.txt']) t.notOk(owners.includes(path), `${path} is gone from the owner's`)
      t.equal(await read(ada, 'docs/cai.txt'), 404)
      t.equal(await read(cai, 'taken-cai.txt'), 'replaced', 'moved out (as the editor replaced it) into the editor\'s own files')
      t.equal(await read(ada, 'docs/raw-cai.txt'), 'raw')
      const trash = (await app.inject({ url: '/api/trash', headers: ada })).json()
      t.ok(JSON.stringify(trash).includes('docs/sub/a.txt'), 'the delete went to the owner\'s trash')
      const versions = (await app.inject({ url: '/api/versions?path=docs/cai.txt', headers: ada })).json()
      t.ok(versions.versions?.length >= 1, 'the file replaced is the owner\'s version')
      const link = await app.inject({ method: 'POST', url: '/api/links', headers: cai, payload: { path: 'docs/new-cai.txt', method: 'download' } })
      t.equal(link.statusCode, 403, 'an editor makes no links either')
    })

    for (const [role, headers] of [['stranger', dan], ['ex-grantee', eve]] as const) {
      t.test(role, async (t) => {
        const before = await everything(ada)
        t.equal(await read(headers, 'docs/plan-cai.md'), 404, 'the owner\'s files are not reached')
        for (const [, write] of writes) await write(headers, role)
        t.same(await everything(ada), before, 'whatever they did, they did to their own files')
        t.equal(await read(headers, `docs/new-${role}.txt`), 'new', 'as their own docs/')
      })
    }
  })
}

t.test('a file shared with an editor; the owner\'s quota; the organization, a newcomer and one who leaves; expiry', async (t) => {
  const { app, ada, bea, cai, put, share, read } = await team(t, { idp, s3, driver: 'fs', env: { QUOTA_BYTES: '2000' } })
  await put(ada, 'notes.txt', 'notes')
  const { id } = await share(ada, { path: 'notes.txt', with: { userId: 'bea' }, role: 'editor' })
  const top = (await app.inject({ url: '/api/files?delimiter=/', headers: bea })).json()
  t.match(top.files, [{ key: 'notes.txt', size: 5, shared: { id, role: 'editor', owner: 'ada' } }], 'a file\'s mount is a file at the top')
  t.equal((await app.inject({ method: 'PUT', url: '/api/raw/notes.txt', headers: { ...bea, 'content-type': 'text/plain' }, payload: 'notes, edited' })).statusCode, 200)
  t.equal(await read(ada, 'notes.txt'), 'notes, edited', 'the owner\'s file')
  t.equal(await read(bea, 'notes.txt/x'), 404, 'nothing is under a file')
  const full = await app.inject({ method: 'PUT', url: '/api/raw/notes.txt', headers: { ...bea, 'content-type': 'text/plain' }, payload: 'x'.repeat(3000) })
  t.equal(full.statusCode, 507)
  t.match(full.json().error, /the storage of ada, who shared notes\.txt with you, is full/)
  t.equal(await read(ada, 'notes.txt'), 'notes, edited', 'and nothing changed')

  await put(ada, 'team/handbook.md', 'welcome')
  const org = await share(ada, { path: 'team', with: { org: true }, role: 'viewer' })
  t.equal(await read(cai, 'team/handbook.md'), 'welcome', 'everyone of the organization')
  const newcomer = bearer(idp.token({ sub: 'fay', org_id: 'acme' }))
  t.equal(await read(newcomer, 'team/handbook.md'), 'welcome', 'one who signs in for the first time after the share, too')
  const outsider = bearer(idp.token({ sub: 'oli', org_id: 'other' }))
  t.equal(await read(outsider, 'team/handbook.md'), 404, 'no one of another organization')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/shared/${org.id}`, headers: cai })).statusCode, 204)
  t.equal(await read(cai, 'team/handbook.md'), 404, 'left: hidden for cai')
  t.equal(await read(newcomer, 'team/handbook.md'), 'welcome', 'and for cai only')
  t.equal((await app.inject({ url: '/api/shares', headers: ada })).json().shares.length, 2, 'the organization\'s share stands')

  // Time enough for the share to be made and read once on a busy machine; then waited for, not slept.
  const soon = new Date(Date.now() + 5000).toISOString()
  await put(ada, 'brief.md', 'brief')
  await share(ada, { path: 'brief.md', with: { userId: 'cai' }, role: 'viewer', expiresAt: soon })
  t.equal(await read(cai, 'brief.md'), 'brief')
  await waitFor(async () => await read(cai, 'brief.md') === 404, { what: 'the share to expire' })
  t.same((await app.inject({ url: '/api/shared', headers: cai })).json().shares, [], 'expired: gone from what cai received')
})

t.test('in key order, mounts share the page with the caller\'s own entries: a page holds its size at most, and the pages hold each entry once, in order', async (t) => {
  const { app, ada, bea, put, share } = await team(t, { idp, s3, driver: 'fs' })
  for (const name of ['b-own', 'd-own', 'f-own']) await put(bea, `${name}/x.txt`)
  await put(bea, 'c-own.txt')
  for (const name of ['a-shared', 'c-shared', 'e-shared', 'g-shared']) {
    await put(ada, `${name}/y.txt`)
    await share(ada, { path: name, with: { userId: 'bea' }, role: 'viewer' })
  }
  await put(ada, 'e-file.txt')
  await share(ada, { path: 'e-file.txt', with: { userId: 'bea' }, role: 'viewer' })
  // Entries as keys sort, a folder's name and "/": "docs (2) notes.txt" < "docs (2)/" < "docs.txt" <
  // "docs/", where by name alone "docs" and "docs (2)" would come first.
  for (const place of ['x', 'y']) {
    await put(ada, `${place}/docs/z.txt`)
    await share(ada, { path: `${place}/docs`, with: { userId: 'bea' }, role: 'viewer' })
  }
  for (const file of ['docs.txt', 'docs (2) notes.txt']) {
    await put(ada, file)
    await share(ada, { path: file, with: { userId: 'bea' }, role: 'viewer' })
  }
  const files = stowageOf(app).stowageFiles
  for (const pageSize of [1, 2, 3, 100]) {
    const seen: string[] = []
    let continuationToken: string | undefined
    let pages = 0
    do {
      const page = await files.list('bea', { delimiter: '/', pageSize, continuationToken })
      const entries = [...page.files.map(({ key }) => key), ...page.folders ?? []]
      t.ok(entries.length <= pageSize, `page size ${pageSize}: ${entries.length} entries`)
      seen.push(...entries.sort())
      continuationToken = page.isTruncated ? page.continuationToken : undefined
      pages++
    } while (continuationToken && pages < 20)
    t.same(seen, ['a-shared/', 'b-own/', 'c-own.txt', 'c-shared/', 'd-own/', 'docs (2) notes.txt', 'docs (2)/', 'docs.txt', 'docs/', 'e-file.txt', 'e-shared/', 'f-own/', 'g-shared/'], `page size ${pageSize}: every entry once, in order`)
  }

  // Without a delimiter, what lies under mounts is listed as under any folder, marked with its share,
  // merged with the caller's own files in key order (the shared folders are folders made on purpose).
  await put(ada, 'c-shared/deeper/z.txt')
  for (const pageSize of [1, 2, 3, 100]) {
    const seen: string[] = []
    const marked: string[] = []
    let continuationToken: string | undefined
    let pages = 0
    do {
      const page = await files.list('bea', { pageSize, continuationToken })
      const entries = [...page.files.map(({ key }) => key), ...page.folders ?? []]
      t.ok(entries.length <= pageSize, `no delimiter, page size ${pageSize}: ${entries.length} entries`)
      seen.push(...entries.sort())
      marked.push(...page.files.filter((file) => 'shared' in file).map(({ key }) => key))
      continuationToken = page.isTruncated ? page.continuationToken : undefined
      pages++
    } while (continuationToken && pages < 40)
    t.same(seen, ['a-shared/', 'a-shared/y.txt', 'b-own/x.txt', 'c-own.txt', 'c-shared/', 'c-shared/deeper/z.txt', 'c-shared/y.txt', 'd-own/x.txt',
      'docs (2) notes.txt', 'docs (2)/', 'docs (2)/z.txt', 'docs.txt', 'docs/', 'docs/z.txt', 'e-file.txt', 'e-shared/', 'e-shared/y.txt', 'f-own/x.txt', 'g-shared/', 'g-shared/y.txt'], `no delimiter, page size ${pageSize}: every entry once, in order`)
    t.same(marked, ['a-shared/y.txt', 'c-shared/deeper/z.txt', 'c-shared/y.txt', 'docs (2) notes.txt', 'docs (2)/z.txt', 'docs.txt', 'docs/z.txt', 'e-file.txt', 'e-shared/y.txt', 'g-shared/y.txt'], 'the shared ones marked')
  }
  // A search at the top looks under mounts too, merged with her own files in the order asked, page by page.
  for (const pageSize of [1, 3, 100]) {
    for (const sort of ['name', 'newest'] as const) {
      const seen: string[] = []
      const times: string[] = []
      let continuationToken: string | undefined
      let pages = 0
      do {
        const page = await files.search('bea', { q: '.TXT', sort, pageSize, continuationToken })
        t.ok(page.files.length <= pageSize)
        seen.push(...page.files.map(({ key }) => key))
        times.push(...page.files.map(({ lastModified }) => lastModified))
        continuationToken = page.isTruncated ? page.continuationToken : undefined
        pages++
      } while (continuationToken && pages < 40)
      const every = ['a-shared/y.txt', 'b-own/x.txt', 'c-own.txt', 'c-shared/deeper/z.txt', 'c-shared/y.txt', 'd-own/x.txt', 'docs (2) notes.txt', 'docs (2)/z.txt', 'docs.txt', 'docs/z.txt', 'e-file.txt', 'e-shared/y.txt', 'f-own/x.txt', 'g-shared/y.txt']
      t.same(sort === 'name' ? seen : [...seen].sort(), every, `search by ${sort}, page size ${pageSize}: every file once`)
      if (sort === 'newest') t.same(times, [...times].sort().reverse(), 'newest first')
    }
  }
  const named = await app.inject({ url: '/api/search?q=shared', headers: bea })
  t.same(named.json().files.map(({ key }: { key: string }) => key), ['a-shared/y.txt', 'c-shared/deeper/z.txt', 'c-shared/y.txt', 'e-shared/y.txt', 'g-shared/y.txt'], 'a mount\'s name is part of its files\' paths')
  const underOne = await app.inject({ url: '/api/files?prefix=c-', headers: bea })
  t.same(underOne.json().files.map(({ key }: { key: string }) => key), ['c-own.txt', 'c-shared/deeper/z.txt', 'c-shared/y.txt'], 'a prefix at the top reaches into the mounts it begins')
})

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: WebDAV and the S3 endpoint reach a mount as the file routes do: a viewer reads and is refused every write, an editor writes the owner's files`, async (t) => {
    const { app, ada, bea, cai, put, share, everything, read } = await team(t, { idp, s3, driver, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY: randomBytes(32).toString('base64') } })
    await put(ada, 'docs/plan.md', 'the plan')
    await share(ada, { path: 'docs', with: { userId: 'bea' }, role: 'viewer' })
    await share(ada, { path: 'docs', with: { userId: 'cai' }, role: 'editor' })
    const dav = async (headers: Headers, method: string, path: string, extra: { headers?: Headers, body?: string } = {}) => {
      const { key } = await app.stowageKeys.create({ userId: headers === bea ? 'bea' : headers === cai ? 'cai' : 'ada', orgId: 'acme' })
      const basic = `Basic ${Buffer.from(`x:${key}`).toString('base64')}`
      return await app.inject({ method: method as 'GET', url: `/dav/${path}`, headers: { authorization: basic, ...extra.headers }, ...(extra.body === undefined ? {} : { payload: extra.body }) })
    }
    const listing = await dav(bea, 'PROPFIND', '', { headers: { depth: '1' } })
    t.equal(listing.statusCode, 207)
    t.match(listing.payload, /<D:href>\/dav\/docs\/<\/D:href>/, 'the mount is a collection at the top')
    t.match(listing.payload, /<D:href>\/dav\/docs\/<\/D:href><D:propstat><D:prop>.*<x:share-role xmlns:x="urn:stowage">viewer<\/x:share-role>/, 'with its share-role (allprop)')
    const roleAsked = '<?xml version="1.0"?><D:propfind xmlns:D="DAV:" xmlns:S="urn:stowage"><D:prop><S:share-role/><D:getetag/></D:prop></D:propfind>'
    const inside = await dav(cai, 'PROPFIND', 'docs/', { headers: { depth: '1' }, body: roleAsked })
    t.equal(inside.statusCode, 207)
    t.equal(inside.payload.match(/<x:share-role xmlns:x="urn:stowage">editor<\/x:share-role>/g)?.length, 2, 'named: the mount and the file under it, with the editor\'s role')
    const own = await dav(cai, 'PROPFIND', '', { headers: { depth: '0' }, body: roleAsked })
    t.match(own.payload, /<D:status>HTTP\/1\.1 404 Not Found<\/D:status>/, 'the top of one\'s own tree has none: 404 for it')
    t.notMatch(own.payload, /editor|viewer/)
    const settingRole = '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:S="urn:stowage"><D:set><D:prop><S:share-role>editor</S:share-role></D:prop></D:set></D:propertyupdate>'
    const protectedRole = await dav(cai, 'PROPPATCH', 'docs/plan.md', { body: settingRole })
    t.match(protectedRole.payload, /403 Forbidden/, 'share-role is live: it cannot be set')
    t.equal((await dav(bea, 'GET', 'docs/plan.md')).payload, 'the plan')
    const before = await everything(ada)
    const proppatch = '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:x"><D:set><D:prop><Z:color>red</Z:color></D:prop></D:set></D:propertyupdate>'
    const lock = '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>'
    const refusals: Array<[string, string, { headers?: Headers, body?: string }]> = [
      ['PUT', 'docs/new.txt', { body: 'new' }],
      ['MKCOL', 'docs/made', {}],
      ['DELETE', 'docs/plan.md', {}],
      ['COPY', 'docs/plan.md', { headers: { destination: '/dav/docs/copy.md' } }],
      ['MOVE', 'docs/plan.md', { headers: { destination: '/dav/docs/moved.md' } }],
      ['PROPPATCH', 'docs/plan.md', { body: proppatch }],
      ['LOCK', 'docs/plan.md', { body: lock }]
    ]
    for (const [method, path, extra] of refusals) {
      const refused = await dav(bea, method, path, extra)
      t.equal(refused.statusCode, 403, `WebDAV ${method} by a viewer: ${refused.payload}`)
    }
    t.same(await everything(ada), before, 'nothing changed at the owner\'s')
    t.equal((await dav(cai, 'PUT', 'docs/from-cai.txt', { body: 'by webdav' })).statusCode, 201, 'an editor\'s PUT')
    t.equal(await read(ada, 'docs/from-cai.txt'), 'by webdav', 'is the owner\'s file')
    // Dead properties an editor sets are the owner's file's: the owner sees them, and they are copied with it.
    t.match((await dav(cai, 'PROPPATCH', 'docs/from-cai.txt', { body: proppatch })).payload, /HTTP\/1\.1 200/, 'an editor\'s PROPPATCH')
    const colorAsked = '<?xml version="1.0"?><D:propfind xmlns:D="DAV:" xmlns:Z="urn:x"><D:prop><Z:color/></D:prop></D:propfind>'
    t.match((await dav(ada, 'PROPFIND', 'docs/from-cai.txt', { headers: { depth: '0' }, body: colorAsked })).payload, />red</, 'the owner sees it')
    t.equal((await dav(cai, 'COPY', 'docs/from-cai.txt', { headers: { destination: '/dav/docs/copied-by-cai.txt' } })).statusCode, 201)
    t.match((await dav(ada, 'PROPFIND', 'docs/copied-by-cai.txt', { headers: { depth: '0' }, body: colorAsked })).payload, />red</, 'and on the copy')
    t.match((await dav(cai, 'PROPFIND', 'docs/', { headers: { depth: '1' }, body: colorAsked })).payload, /copied-by-cai\.txt<\/D:href><D:propstat><D:prop><[^>]*color[^>]*>red</, 'the editor sees it in the folder\'s listing')

    await app.listen({ port: 0, host: '127.0.0.1' })
    const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
    const client = async (headers: Headers) => {
      const made = await app.inject({ method: 'POST', url: '/api/s3-credentials', headers, payload: { name: 'laptop' } })
      t.equal(made.statusCode, 201, made.payload)
      const s3client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: made.json(), maxAttempts: 1 })
      t.teardown(() => s3client.destroy())
      return s3client
    }
    const [viewer, editor] = [await client(bea), await client(cai)]
    t.same((await viewer.send(new ListBucketsCommand({}))).Buckets?.map(({ Name }) => Name), ['docs'], 'the mount is a bucket')
    const got = await viewer.send(new GetObjectCommand({ Bucket: 'docs', Key: 'plan.md' }))
    t.equal(await got.Body!.transformToString(), 'the plan')
    const refused = await viewer.send(new PutObjectCommand({ Bucket: 'docs', Key: 'by-s3.txt', Body: 'no' })).then(() => undefined, (error: unknown) => error)
    t.ok(refused instanceof S3ServiceException && refused.name === 'AccessDenied' && refused.$metadata.httpStatusCode === 403, `AccessDenied: ${String(refused)}`)
    t.equal(await read(ada, 'docs/by-s3.txt'), 404, 'nothing stored')
    await editor.send(new PutObjectCommand({ Bucket: 'docs', Key: 'by-s3.txt', Body: 'yes' }))
    t.equal(await read(ada, 'docs/by-s3.txt'), 'yes', 'an editor\'s PutObject is the owner\'s file')

    // Locks bind across the mount's edge (DESIGN §13): the owner's binds the editor, the editor's the owner.
    await put(ada, 'docs/by-ada.md', 'ada\'s')
    const ownersLock = await dav(ada, 'LOCK', 'docs/by-ada.md', { body: lock })
    t.equal(ownersLock.statusCode, 200, 'the owner locks a file she shares')
    const bound = await dav(cai, 'PUT', 'docs/by-ada.md', { body: 'cai\'s' })
    t.equal(bound.statusCode, 423, 'the owner\'s lock binds the editor')
    t.match(bound.payload, /<D:href>\/dav\/docs\/by-ada\.md<\/D:href>/, 'named at the editor\'s path')
    t.equal((await dav(ada, 'UNLOCK', 'docs/by-ada.md', { headers: { 'lock-token': ownersLock.headers['lock-token'] as string } })).statusCode, 204)
    const held = await dav(cai, 'LOCK', 'docs/plan.md', { body: lock })
    t.equal(held.statusCode, 200, 'an editor locks a file of the mount')
    t.match(held.payload, /<D:lockroot><D:href>\/dav\/docs\/plan\.md<\/D:href><\/D:lockroot>/, 'rooted at her path')
    t.equal((await dav(ada, 'PUT', 'docs/plan.md', { body: 'ada\'s change' })).statusCode, 423, 'the editor\'s lock binds the owner')
    t.equal((await dav(ada, 'DELETE', 'docs/plan.md')).statusCode, 423)
    t.equal(await read(ada, 'docs/plan.md'), 'the plan', 'nothing changed')
    const token = held.headers['lock-token'] as string
    // Her token (which lockdiscovery shows the owner) is no key for anyone else.
    t.equal((await dav(ada, 'PUT', 'docs/plan.md', { body: 'ada\'s change', headers: { if: `(${token})` } })).statusCode, 423, 'the owner cannot write under the editor\'s token')
    t.equal((await dav(ada, 'UNLOCK', 'docs/plan.md', { headers: { 'lock-token': token } })).statusCode, 403, 'nor remove her lock')
    t.equal((await dav(ada, 'LOCK', 'docs/plan.md', { headers: { if: `(${token})` } })).statusCode, 403, 'nor refresh it')
    t.equal((await dav(cai, 'PUT', 'docs/plan.md', { body: 'cai\'s plan', headers: { if: `(${token})` } })).statusCode, 204, 'the editor writes with her token')

    // The mount itself: WebDAV's MOVE renames it, DELETE (by an editor too) leaves it.
    const owners = await everything(ada)
    const moved = await dav(bea, 'MOVE', 'docs/', { headers: { destination: '/dav/From%20Ada/' } })
    t.ok(moved.statusCode === 201 || moved.statusCode === 204, `MOVE of the mount: ${moved.statusCode} ${moved.payload}`)
    t.equal((await dav(bea, 'GET', 'From Ada/plan.md')).payload, 'cai\'s plan', 'renamed')
    t.equal((await dav(cai, 'DELETE', 'docs/')).statusCode, 204)
    t.same(await everything(ada), owners, 'the owner\'s files stay')
    t.equal((await dav(ada, 'PUT', 'docs/plan.md', { body: 'the plan' })).statusCode, 204, 'the editor gone, her lock went with her mount: the owner writes again')
    t.equal((await dav(cai, 'MKCOL', 'docs')).statusCode, 201, 'docs is cai\'s own name again')
    t.equal((await dav(cai, 'PUT', 'docs/plan.md', { body: 'her own' })).statusCode, 201, 'her own file is not locked by the lock she took through the mount')
    t.same((await app.inject({ url: '/api/shares', headers: ada })).json().shares.map((s: { with: { userId: string } }) => s.with.userId), ['bea'], 'cai left; bea still has it')
  })
}

/** A person's `stowage` command, signed in with an API key of theirs to the service at `url`: a
 *  command run to its end (`cli`), or one that goes on until stopped (`running`: --watch). */
async function cliOf (t: Test, app: Awaited<ReturnType<typeof buildTestApp>>['app'], url: string, userId: string) {
  const home = await mkdtemp(join(tmpdir(), 'stowage-home-'))
  t.teardown(() => rm(home, { recursive: true, force: true }))
  const { key } = await app.stowageKeys.create({ userId, orgId: null })
  const env = { HOME: home, XDG_CONFIG_HOME: '' }
  const cli = async (...argv: string[]) => {
    let stdout = ''
    let stderr = ''
    const code = await runCli(argv, { stdout: { write: (chunk) => { stdout += Buffer.from(chunk).toString() } }, stderr: { write: (text) => { stderr += text } }, env })
    return { code, stdout, stderr }
  }
  const running = (...argv: string[]) => {
    let stderr = ''
    const stopping = new AbortController()
    const code = runCli(argv, { stdout: { write: () => {} }, stderr: { write: (text) => { stderr += text } }, env, signal: stopping.signal })
    return { stderr: () => stderr, stop: async () => { stopping.abort(); return await code } }
  }
  t.equal((await cli('login', '--url', url, '--api-key', key)).code, 0)
  return { cli, running, home }
}

t.test('the CLI: stowage shares add, ls and rm; stowage shared, shared rename and shared leave', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const as = (userId: string) => cliOf(t, app, url, userId)
  const ada = await as('ada')
  const bea = await as('bea')
  t.equal((await bea.cli('ls')).code, 0, 'bea has signed in: she can be shared with')
  const local = join(ada.home, 'plan.md')
  await writeFile(local, 'the plan')
  t.equal((await ada.cli('put', local, 'docs/plan.md')).code, 0)

  const added = await ada.cli('shares', 'add', 'docs', '--with', 'bea', '--role', 'editor', '--expires', '7d', '--json')
  t.equal(added.code, 0, added.stderr)
  const share = JSON.parse(added.stdout) as { id: string, path: string, role: string, expiresAt: string }
  t.match(share, { path: 'docs/', role: 'editor', with: { userId: 'bea' } })
  t.ok(Date.parse(share.expiresAt) > Date.now() + 6 * 86_400_000, '--expires 7d is a week from now')
  t.match((await ada.cli('shares', 'ls')).stdout, new RegExp(`^${share.id}  docs/  editor  with bea  until `))
  const refused = await ada.cli('shares', 'add', 'docs', '--role', 'viewer')
  t.not(refused.code, 0)
  t.match(refused.stderr, /--with EMAIL\|USERID or --org/)
  t.match((await ada.cli('shares', 'add', 'docs', '--with', 'bea', '--role', 'owner')).stderr, /--role is viewer or editor/)
  t.match((await ada.cli('shares', 'add', 'nothing', '--with', 'bea')).stderr, /no file or folder nothing/, 'the service\'s refusal, said')

  t.match((await bea.cli('shared')).stdout, new RegExp(`^${share.id}  docs/  editor  from ada  until `))
  t.equal((await bea.cli('get', 'docs/plan.md', '-o', join(bea.home, 'got.md'))).code, 0, 'her CLI reads through the mount')
  const renamed = await bea.cli('shared', 'rename', share.id, 'From Ada')
  t.equal(renamed.code, 0, renamed.stderr)
  t.match(renamed.stdout, /now From Ada/)
  t.match((await bea.cli('ls', 'From Ada/')).stdout, /plan\.md/)
  t.equal((await bea.cli('shared', 'leave', share.id)).code, 0)
  t.equal((await bea.cli('shared')).stdout, '')
  t.equal((await ada.cli('shares', 'ls')).stdout, '', 'left: the share ended')

  const again = JSON.parse((await ada.cli('shares', 'add', 'docs/plan.md', '--with', 'bea', '--json')).stdout) as { id: string, role: string }
  t.equal(again.role, 'viewer', 'viewer unless --role says otherwise')
  t.equal((await ada.cli('shares', 'rm', again.id)).code, 0)
  t.equal((await ada.cli('shares', 'ls')).stdout, '')
  t.not((await ada.cli('shares', 'rm', again.id)).code, 0, 'ended once')
})

t.test('a grantee\'s sync --watch of the top of her tree follows a mount coming and going: its files come down, hers go up to the owner, and when it ends nothing more arrives and nothing here is lost', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const ada = await cliOf(t, app, url, 'ada')
  const bea = await cliOf(t, app, url, 'bea')
  const put = async (who: typeof ada, path: string, text: string) => {
    const local = join(who.home, 'upload.txt')
    await writeFile(local, text)
    t.equal((await who.cli('put', local, path)).code, 0, `put ${path}`)
  }
  const here = join(bea.home, 'here')
  const contents = (path: string) => readFile(join(here, path), 'utf8').catch(() => undefined)
  await put(bea, 'own.txt', 'mine')
  await put(ada, 'docs/plan.md', 'the plan')
  await mkdir(here)
  const watch = bea.running('sync', here, '/', '--watch')
  t.teardown(() => watch.stop())
  await waitFor(async () => await contents('own.txt') === 'mine', { what: 'the first sync' })

  const added = JSON.parse((await ada.cli('shares', 'add', 'docs', '--with', 'bea', '--role', 'editor', '--json')).stdout) as { id: string }
  await waitFor(async () => await contents('docs/plan.md') === 'the plan', { what: 'the mount come: its files fetched' })
  await put(ada, 'docs/later.md', 'later')
  await waitFor(async () => await contents('docs/later.md') === 'later', { what: 'the owner\'s change there fetched' })
  await writeFile(join(here, 'docs', 'from-bea.md'), 'by bea')
  await waitFor(async () => (await ada.cli('get', 'docs/from-bea.md')).stdout === 'by bea', { what: 'her file sent to the owner\'s folder' })

  t.equal((await ada.cli('shares', 'rm', added.id)).code, 0)
  await put(ada, 'docs/after.md', 'after the end')
  // Her own change after the end: once it is here, the watch has heard everything before it.
  await put(bea, 'signal.txt', 'heard')
  await waitFor(async () => await contents('signal.txt') === 'heard', { what: 'a change after the mount went' })
  t.equal(await contents('docs/after.md'), undefined, 'nothing of the owner\'s arrives once the share has ended')
  t.equal(await contents('docs/plan.md'), 'the plan', 'what was fetched stays here (no --delete)')
  t.equal((await ada.cli('get', 'docs/plan.md')).stdout, 'the plan', 'and the owner\'s files are hers, untouched')
  t.equal((await ada.cli('get', 'docs/after.md')).stdout, 'after the end')
  // Without --delete a watch deletes nothing here, and sends what it has that the server lacks: the
  // copies she had become her own files, beside nothing of the owner's (docs/ is her name again).
  await waitFor(async () => (await bea.cli('get', 'docs/plan.md')).stdout === 'the plan', { what: 'her copies sent as her own' })
  t.equal(await watch.stop(), 0, watch.stderr())
})
