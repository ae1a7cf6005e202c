import t, { type Test } from 'tap'
import { bearer, buildTestApp } from './helpers/app.js'
import { startIdp } from './helpers/idp.js'

// Shares, as their owners make, see, change and end them (DESIGN §13). What a grantee reaches
// through a share (mounts, rights in every front end) comes with the resolver.
const idp = await startIdp()
t.teardown(() => idp.close())

async function team (t: Test, env: Record<string, string> = {}) {
  const { app, close } = await buildTestApp({ idp, env })
  t.teardown(close)
  const person = async (claims: Record<string, unknown>) => {
    const headers = bearer(idp.token(claims))
    t.equal((await app.inject({ url: '/api/me', headers })).statusCode, 200)
    return headers
  }
  const ada = await person({ sub: 'ada', org_id: 'acme', email: 'ada@acme.example', name: 'Ada Lovelace' })
  const bea = await person({ sub: 'bea', org_id: 'acme', email: 'Bea@acme.example', name: 'Bea' })
  const oli = await person({ sub: 'oli', org_id: 'other', email: 'oli@other.example' })
  const lone = await person({ sub: 'lone' })
  const put = async (headers: Record<string, string>, path: string, text = path) =>
    t.equal((await app.inject({ method: 'PUT', url: `/api/files/${path}`, headers, payload: { content: Buffer.from(text).toString('base64') } })).statusCode, 200, `put ${path}`)
  const share = (headers: Record<string, string>, body: unknown) => app.inject({ method: 'POST', url: '/api/shares', headers, payload: body as object })
  const shares = async (headers: Record<string, string>, path?: string) =>
    (await app.inject({ url: `/api/shares${path === undefined ? '' : `?path=${encodeURIComponent(path)}`}`, headers })).json().shares as Array<{ id: string, path: string, role: string }>
  return { app, ada, bea, oli, lone, put, share, shares }
}

t.test('an owner shares a folder or a file with a person, by id or email, or with the organization, and sees the shares', async (t) => {
  const { app, ada, put, share, shares } = await team(t)
  await put(ada, 'docs/plan.md')
  await put(ada, 'notes.txt')
  const made = await share(ada, { path: 'docs', with: { userId: 'bea' }, role: 'viewer' })
  t.equal(made.statusCode, 201, made.payload)
  t.match(made.json(), { id: /^[\w-]{16}$/, path: 'docs/', with: { userId: 'bea', email: 'Bea@acme.example', name: 'Bea' }, role: 'viewer', createdAt: String })
  t.notOk('expiresAt' in made.json())
  const byEmail = await share(ada, { path: 'notes.txt', with: { email: 'BEA@acme.example' }, role: 'editor', expiresAt: '2099-01-01T00:00:00Z' })
  t.equal(byEmail.statusCode, 201, byEmail.payload)
  t.match(byEmail.json(), { path: 'notes.txt', with: { userId: 'bea' }, role: 'editor', expiresAt: '2099-01-01T00:00:00.000Z' })
  const org = await share(ada, { path: 'docs/', with: { org: true }, role: 'viewer' })
  t.equal(org.statusCode, 201)
  t.same(org.json().with, { org: true })

  t.same((await shares(ada)).map((s) => s.path), ['docs/', 'docs/', 'notes.txt'])
  t.same((await shares(ada, 'docs/')).map((s) => s.path), ['docs/', 'docs/'], 'under a path')

  // A folder shared is a folder made on purpose: it stays when its last file goes.
  t.equal((await app.inject({ method: 'DELETE', url: '/api/files/docs/plan.md', headers: ada })).statusCode, 204)
  const listed = (await app.inject({ url: '/api/files?delimiter=/', headers: ada })).json()
  t.ok(listed.folders.includes('docs/'), 'docs/ is still there, empty')
  t.equal((await shares(ada)).length, 3, 'and still shared')
})

t.test('a share refused says why, and changes nothing', async (t) => {
  const { ada, lone, oli, put, share, shares } = await team(t)
  await put(ada, 'docs/plan.md')
  const refusals: Array<[unknown, number, RegExp]> = [
    [{ path: 'docs', with: { userId: 'ada' }, role: 'viewer' }, 400, /that is you/],
    [{ path: 'docs', with: { email: 'ada@acme.example' }, role: 'viewer' }, 400, /that is you/],
    [{ path: 'docs', with: { userId: 'bea' }, role: 'viewer', expiresAt: '2001-01-01T00:00:00Z' }, 400, /expiresAt has passed/],
    [{ path: 'docs', with: { userId: 'bea' }, role: 'viewer', expiresAt: 'soon' }, 400, /expiresAt is not a date/],
    [{ path: 'docs', with: { userId: 'bea' }, role: 'owner' }, 400, /role/],
    [{ path: 'docs', with: {}, role: 'viewer' }, 400, /with/],
    [{ path: '../x', with: { userId: 'bea' }, role: 'viewer' }, 400, /./],
    [{ path: 'nothing', with: { userId: 'bea' }, role: 'viewer' }, 404, /no file or folder nothing/],
    [{ path: 'docs', with: { userId: 'nobody' }, role: 'viewer' }, 404, /no person nobody in your organization/],
    [{ path: 'docs', with: { userId: 'oli' }, role: 'viewer' }, 404, /no person oli in your organization/],
    [{ path: 'docs', with: { email: 'oli@other.example' }, role: 'viewer' }, 404, /no person with the email/]
  ]
  for (const [body, status, said] of refusals) {
    const refused = await share(ada, body)
    t.equal(refused.statusCode, status, JSON.stringify(body))
    t.match(refused.json().error, said)
    t.notMatch(refused.json().error, /#\/|must match/, 'said in words, not a schema path')
  }
  t.same(await shares(ada), [], 'nothing shared')

  const org = await share(lone, { path: 'anything', with: { org: true }, role: 'viewer' })
  t.equal(org.statusCode, 400)
  t.match(org.json().error, /no organization/)
  t.equal((await share(oli, { path: 'x', with: { userId: 'ada' }, role: 'viewer' })).statusCode, 404, 'nor across organizations')

  t.equal((await share(ada, { path: 'docs/', with: { userId: 'bea' }, role: 'viewer' })).statusCode, 201)
  const twice = await share(ada, { path: 'docs', with: { email: 'bea@acme.example' }, role: 'editor' })
  t.equal(twice.statusCode, 409)
  t.match(twice.json().error, /shared with them already/)
  const { app } = await team(t)
  t.equal((await app.inject({ method: 'POST', url: '/api/shares', payload: { path: 'docs', with: { userId: 'bea' }, role: 'viewer' } })).statusCode, 401)
})

t.test('SHARES_ACROSS_ORGS=true reaches people of other organizations', async (t) => {
  const { ada, put, share } = await team(t, { SHARES_ACROSS_ORGS: 'true' })
  await put(ada, 'docs/plan.md')
  const made = await share(ada, { path: 'docs', with: { email: 'oli@other.example' }, role: 'viewer' })
  t.equal(made.statusCode, 201, made.payload)
  t.match(made.json().with, { userId: 'oli' })
})

t.test('an owner changes and ends a share; no one else can', async (t) => {
  const { app, ada, bea, put, share, shares } = await team(t)
  await put(ada, 'docs/plan.md')
  const { id } = (await share(ada, { path: 'docs', with: { userId: 'bea' }, role: 'viewer', expiresAt: '2099-01-01T00:00:00Z' })).json()
  const patch = (headers: Record<string, string>, payload: object, shareId = id) => app.inject({ method: 'PATCH', url: `/api/shares/${shareId}`, headers, payload })
  const changed = await patch(ada, { role: 'editor', expiresAt: null })
  t.equal(changed.statusCode, 200, changed.payload)
  t.match(changed.json(), { id, role: 'editor' })
  t.notOk('expiresAt' in changed.json(), 'no longer expires')
  t.equal((await patch(ada, {})).statusCode, 400, 'nothing to change')
  t.match((await patch(ada, { expiresAt: '2001-01-01T00:00:00Z' })).json().error, /has passed/)
  t.equal((await patch(bea, { role: 'editor' })).statusCode, 404, 'the grantee cannot change it')
  t.equal((await patch(ada, { role: 'viewer' }, 'nope')).statusCode, 404)

  t.equal((await app.inject({ method: 'DELETE', url: `/api/shares/${id}`, headers: bea })).statusCode, 404, 'nor end it here')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/shares/${id}`, headers: ada })).statusCode, 204)
  t.equal((await app.inject({ method: 'DELETE', url: `/api/shares/${id}`, headers: ada })).statusCode, 404)
  t.same(await shares(ada), [])
})

t.test('a share follows its file or folder when the owner moves it, and ends when the owner deletes it', async (t) => {
  const { app, ada, put, share, shares } = await team(t)
  await put(ada, 'docs/plan.md')
  await put(ada, 'docs/inner/deep.md')
  await put(ada, 'report.pdf')
  for (const path of ['docs', 'docs/inner', 'report.pdf']) t.equal((await share(ada, { path, with: { userId: 'bea' }, role: 'viewer' })).statusCode, 201)
  const move = async (from: string, to: string) => t.equal((await app.inject({ method: 'POST', url: '/api/moves', headers: ada, payload: { from, to } })).statusCode, 200, `move ${from} to ${to}`)

  await move('report.pdf', 'archive/report-2026.pdf')
  await move('docs/', 'projects/docs/')
  t.same((await shares(ada)).map((s) => s.path).sort(), ['archive/report-2026.pdf', 'projects/docs/', 'projects/docs/inner/'])

  t.equal((await app.inject({ method: 'DELETE', url: '/api/files/archive/report-2026.pdf', headers: ada })).statusCode, 204)
  t.same((await shares(ada)).map((s) => s.path).sort(), ['projects/docs/', 'projects/docs/inner/'], 'a deleted file\'s share ends')
  const trashed = (await app.inject({ url: '/api/trash', headers: ada })).json()
  const item = trashed.items.find((entry: { key: string }) => entry.key === 'archive/report-2026.pdf')
  t.equal((await app.inject({ method: 'POST', url: `/api/trash/${item.id}/restore`, headers: ada })).statusCode, 200)
  t.equal((await shares(ada)).length, 2, 'a restore does not bring it back')

  t.equal((await app.inject({ method: 'DELETE', url: '/api/files/projects/docs/inner/deep.md', headers: ada })).statusCode, 204)
  t.equal((await app.inject({ method: 'DELETE', url: '/api/folders/projects/docs/inner', headers: ada })).statusCode, 204)
  t.same((await shares(ada)).map((s) => s.path), ['projects/docs/'], 'a deleted folder\'s share ends')

  await put(ada, 'spare/x.md')
  t.equal((await share(ada, { path: 'spare', with: { userId: 'bea' }, role: 'editor' })).statusCode, 201)
  await move('spare/', 'projects/docs/')
  t.same((await shares(ada)).map((s) => [s.path, s.role]), [['projects/docs/', 'viewer']], 'moved into a folder shared with them: the share there stands')

  const moved = await app.inject({ method: 'MOVE', url: '/dav/projects/docs', headers: { ...ada, destination: '/dav/kept' } })
  t.equal(moved.statusCode, 201, `WebDAV MOVE: ${moved.payload}`)
  t.same((await shares(ada)).map((s) => s.path), ['kept/'], 'a folder moved through WebDAV keeps its share')
})
