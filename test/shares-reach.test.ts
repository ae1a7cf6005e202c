import t from 'tap'
import { randomBytes } from 'node:crypto'
import { request } from 'node:http'
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { startIdp } from './helpers/idp.js'
import { startS3Server } from './helpers/s3.js'
import { base64, team, type Headers } from './helpers/team.js'

// What a grantee reaches besides paths (DESIGN §13): ids of versions, trash items and uploads only
// through paths they can see, no path form that leads out of a mount, a viewer's restores refused
// like its other writes, and presigned S3 URLs into a mount that stop working when the share ends;
// on both drivers (and both databases: CI runs this file on PostgreSQL too).
const idp = await startIdp()
t.teardown(() => idp.close())
const s3 = await startS3Server()
t.teardown(() => s3.close())

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: ids, odd paths, restores and presigned URLs × owner, viewer, editor and stranger`, async (t) => {
    const { app, ada, bea, cai, dan, put, read } = await team(t, { idp, s3, driver, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY: randomBytes(32).toString('base64') } })
    const versionsOf = async (headers: Headers, path: string) => {
      const listed = await app.inject({ url: `/api/versions?path=${encodeURIComponent(path)}`, headers })
      t.equal(listed.statusCode, 200, listed.payload)
      return (listed.json().versions as Array<{ id: string }>).map(({ id }) => id)
    }

    for (const [path, text] of [['docs/plan.md', 'first plan'], ['docs/plan.md', 'the plan'], ['secret/key.txt', 'first secret'], ['secret/key.txt', 'the secret'], ['docs/old.txt', 'old'], ['secret/gone.txt', 'gone']]) await put(ada, path, text)
    for (const path of ['docs/old.txt', 'secret/gone.txt']) t.equal((await app.inject({ method: 'DELETE', url: `/api/files/${path}`, headers: ada })).statusCode, 204)
    for (const [userId, role] of [['bea', 'viewer'], ['cai', 'editor']]) {
      t.equal((await app.inject({ method: 'POST', url: '/api/shares', headers: ada, payload: { path: 'docs/', with: { userId }, role } })).statusCode, 201)
    }
    const [docsVersion] = await versionsOf(ada, 'docs/plan.md')
    const [secretVersion] = await versionsOf(ada, 'secret/key.txt')
    const trash = (await app.inject({ url: '/api/trash', headers: ada })).json().items as Array<{ id: string, key: string }>
    const docsTrash = trash.find(({ key }) => key === 'docs/old.txt')!.id
    const secretTrash = trash.find(({ key }) => key === 'secret/gone.txt')!.id
    const begun = await app.inject({ method: 'POST', url: '/api/uploads', headers: { ...ada, 'tus-resumable': '1.0.0', 'upload-length': '6', 'upload-metadata': `filename ${base64('docs/slow.bin')}` } })
    t.equal(begun.statusCode, 201, begun.payload)
    const adasUpload = String(begun.headers.location)

    t.test('versions: a grantee reaches those of the files she sees, by their ids; a viewer cannot restore them', async (t) => {
      t.same(await versionsOf(bea, 'docs/plan.md'), await versionsOf(ada, 'docs/plan.md'), 'the viewer lists the owner\'s versions, ids and all')
      t.equal((await app.inject({ url: `/api/versions/${docsVersion}`, headers: bea })).payload, 'first plan', 'and reads one by its id')
      const refused = await app.inject({ method: 'POST', url: `/api/versions/${docsVersion}/restore`, headers: bea, payload: {} })
      t.equal(refused.statusCode, 403, refused.payload)
      t.match(refused.json().error, /shared with you to view/)
      t.equal((await app.inject({ method: 'DELETE', url: `/api/versions/${docsVersion}`, headers: bea })).statusCode, 403, 'nor delete one')
      t.equal(await read(ada, 'docs/plan.md'), 'the plan', 'nothing changed')
      for (const [who, headers] of [['viewer', bea], ['editor', cai], ['stranger', dan]] as const) {
        t.equal((await app.inject({ url: `/api/versions/${secretVersion}`, headers })).statusCode, 404, `${who}: a version of a file not shared is not there`)
        t.equal((await app.inject({ method: 'POST', url: `/api/versions/${secretVersion}/restore`, headers, payload: {} })).statusCode, 404, `${who}: nor restored`)
        t.equal((await app.inject({ method: 'DELETE', url: `/api/versions/${secretVersion}`, headers })).statusCode, 404, `${who}: nor deleted`)
      }
      t.equal((await app.inject({ url: `/api/versions/${docsVersion}`, headers: dan })).statusCode, 404, 'a stranger does not reach a shared file\'s version either')
      t.equal(await read(ada, 'secret/key.txt'), 'the secret')
      t.same(await versionsOf(ada, 'secret/key.txt'), [secretVersion], 'the owner\'s versions are as they were')
      const restored = await app.inject({ method: 'POST', url: `/api/versions/${docsVersion}/restore`, headers: cai, payload: {} })
      t.equal(restored.statusCode, 200, `an editor restores: ${restored.payload}`)
      t.equal(await read(ada, 'docs/plan.md'), 'first plan', 'the owner\'s file')
    })

    t.test('trash items and uploads: the owner\'s ids are no one else\'s', async (t) => {
      for (const [who, headers] of [['viewer', bea], ['editor', cai], ['stranger', dan]] as const) {
        t.notMatch((await app.inject({ url: '/api/trash', headers })).payload, /old\.txt|gone\.txt/, `${who}: the owner's trash is not listed`)
        for (const id of [docsTrash, secretTrash]) {
          t.equal((await app.inject({ method: 'POST', url: `/api/trash/${id}/restore`, headers, payload: {} })).statusCode, 404, `${who}: an item is not restored by its id`)
          t.equal((await app.inject({ method: 'DELETE', url: `/api/trash/${id}`, headers })).statusCode, 404, `${who}: nor deleted`)
        }
        const tus = { 'tus-resumable': '1.0.0' }
        t.equal((await app.inject({ method: 'HEAD', url: adasUpload, headers: { ...headers, ...tus } })).statusCode, 404, `${who}: the owner's upload is not found`)
        t.equal((await app.inject({ method: 'PATCH', url: adasUpload, headers: { ...headers, ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, payload: 'theirs' })).statusCode, 404, `${who}: nor written`)
        t.equal((await app.inject({ method: 'DELETE', url: adasUpload, headers: { ...headers, ...tus } })).statusCode, 404, `${who}: nor dropped`)
      }
      t.equal((await app.inject({ method: 'HEAD', url: adasUpload, headers: { ...ada, 'tus-resumable': '1.0.0' } })).headers['upload-offset'], '0', 'the owner\'s upload is as it was')
      // One's own trash item or version restored into a mount: a write there like any other.
      for (const [who, headers] of [['viewer', bea], ['editor', cai]] as const) {
        await put(headers, 'mine.txt', `${who}'s first`)
        await put(headers, 'mine.txt', `${who}'s`)
        const [ownVersion] = await versionsOf(headers, 'mine.txt')
        t.equal((await app.inject({ method: 'DELETE', url: '/api/files/mine.txt', headers })).statusCode, 204)
        const item = ((await app.inject({ url: '/api/trash', headers })).json().items as Array<{ id: string, key: string }>).find(({ key }) => key === 'mine.txt')!.id
        const fromTrash = await app.inject({ method: 'POST', url: `/api/trash/${item}/restore`, headers, payload: { to: `docs/from-${who}-trash.txt` } })
        const fromVersion = await app.inject({ method: 'POST', url: `/api/versions/${ownVersion}/restore`, headers, payload: { to: `docs/from-${who}-version.txt` } })
        if (who === 'viewer') {
          t.equal(fromTrash.statusCode, 403, `a viewer's trash restore into the mount: ${fromTrash.payload}`)
          t.equal(fromVersion.statusCode, 403, `a viewer's version restore into the mount: ${fromVersion.payload}`)
        } else {
          t.equal(fromTrash.statusCode, 200, fromTrash.payload)
          t.equal(fromVersion.statusCode, 200, fromVersion.payload)
        }
        t.equal(await read(ada, `docs/from-${who}-trash.txt`), who === 'viewer' ? 404 : 'editor\'s', `${who}: the owner's file from a trash restore`)
        t.equal(await read(ada, `docs/from-${who}-version.txt`), who === 'viewer' ? 404 : 'editor\'s first', `${who}: and from a version restore`)
      }
      const restored = await app.inject({ method: 'POST', url: `/api/trash/${docsTrash}/restore`, headers: ada, payload: {} })
      t.equal(restored.statusCode, 200, 'the owner restores her item')
      t.equal(await read(bea, 'docs/old.txt'), 'old', 'and the viewer sees it back')
    })

    t.test('no path form leads out of a mount into the owner\'s other files', async (t) => {
      // Sent as they are written, over a socket (inject and fetch would resolve the dots first).
      const base = await app.listen({ port: 0, host: '127.0.0.1' })
      const send = async (method: string, path: string, headers: Headers, body?: string) => await new Promise<{ status: number, text: string }>((resolve, reject) => {
        const sent = request(`${base}${path}`, { method, path, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'text/plain' }) } }, (answer) => {
          let text = ''
          answer.setEncoding('utf8').on('data', (chunk: string) => { text += chunk }).on('end', () => resolve({ status: answer.statusCode!, text }))
        })
        sent.on('error', reject).end(body)
      })
      const forms = ['docs/../secret/key.txt', 'docs/%2e%2e/secret/key.txt', 'docs/%2E%2E%2Fsecret%2Fkey.txt', 'docs%2F..%2Fsecret%2Fkey.txt', 'docs/./../secret/key.txt',
        'docs/..%5Csecret%5Ckey.txt', 'docs/%00/../secret/key.txt', 'docs//../secret/key.txt', '../ada/secret/key.txt', '..%2F..%2Fusers%2Fada%2Fsecret%2Fkey.txt']
      for (const [who, headers] of [['viewer', bea], ['editor', cai]] as const) {
        for (const form of forms) {
          for (const route of ['/api/raw/', '/api/files/']) {
            const got = await send('GET', route + form, headers)
            t.ok([400, 404].includes(got.status), `${who}: GET ${route}${form} is ${got.status}`)
            t.notMatch(got.text, /the secret|dGhlIHNlY3JldA/, 'and carries nothing of it')
            t.equal(typeof JSON.parse(got.text).error, 'string', 'an {error} in words')
          }
          const written = await send('PUT', `/api/raw/${form}`, headers, 'overwritten')
          t.ok([400, 404].includes(written.status), `${who}: PUT ${form} is ${written.status}`)
        }
        for (const prefix of ['docs/../', 'docs/../secret/', '../']) {
          t.equal((await send('GET', `/api/files?prefix=${encodeURIComponent(prefix)}`, headers)).status, 400, `${who}: a listing of ${prefix}`)
          t.equal((await send('GET', `/api/archive?prefix=${encodeURIComponent(prefix)}`, headers)).status, 400, `${who}: a zip of ${prefix}`)
        }
        const copied = await app.inject({ method: 'POST', url: '/api/copies', headers, payload: { from: 'docs/../secret/key.txt', to: 'mine.txt' } })
        t.equal(copied.statusCode, 400, `${who}: a copy from outside the mount`)
        t.equal(await read(headers, 'mine.txt'), 404)
      }
      t.equal(await read(ada, 'secret/key.txt'), 'the secret', 'the owner\'s file is as it was')
      t.equal(await read(dan, 'docs/plan.md'), 404, 'a stranger has no docs/ of hers to reach it through')
    })

    t.test('a grantee\'s presigned S3 URLs into a mount stop working when the share ends', async (t) => {
      const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
      const made = await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: cai, payload: { name: 'laptop' } })
      t.equal(made.statusCode, 201, made.payload)
      const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: made.json(), maxAttempts: 1 })
      t.teardown(() => client.destroy())
      const getUrl = await getSignedUrl(client, new GetObjectCommand({ Bucket: 'docs', Key: 'plan.md' }), { expiresIn: 600 })
      const putUrl = await getSignedUrl(client, new PutObjectCommand({ Bucket: 'docs', Key: 'late.txt' }), { expiresIn: 600 })
      t.equal(await (await fetch(getUrl)).text(), 'first plan', 'a GET URL works while the share lasts')
      t.equal((await fetch(putUrl, { method: 'PUT', body: 'in time' })).status, 200, 'and a PUT URL')
      t.equal(await read(ada, 'docs/late.txt'), 'in time', 'into the owner\'s files')
      const kept = await client.send(new GetObjectCommand({ Bucket: 'docs', Key: 'plan.md', VersionId: docsVersion }))
      t.equal(await kept.Body!.transformToString(), 'first plan', 'GetObject of a kept version by its id, through the mount\'s bucket')

      const id = ((await app.inject({ url: '/api/shares', headers: ada })).json().shares as Array<{ id: string, with: { userId?: string } }>).find((share) => share.with.userId === 'cai')!.id
      t.equal((await app.inject({ method: 'DELETE', url: `/api/shares/${id}`, headers: ada })).statusCode, 204)
      const got = await fetch(getUrl)
      t.ok(got.status === 403 || got.status === 404, `the GET URL after the end: ${got.status}`)
      t.notMatch(await got.text(), /first plan/)
      const late = await fetch(putUrl, { method: 'PUT', body: 'too late' })
      t.ok(late.status === 403 || late.status === 404, `the PUT URL after the end: ${late.status}`)
      t.equal(await read(ada, 'docs/late.txt'), 'in time', 'the owner\'s file is as it was')
      t.equal(await read(cai, 'docs/late.txt'), 404, 'and nothing was made of the editor\'s own')
    })
  })
}
