import t from 'tap'
import { randomBytes } from 'node:crypto'
import { AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, S3Client, S3ServiceException, UploadPartCommand } from '@aws-sdk/client-s3'
import { bearer, buildTestApp } from './helpers/app.js'
import { startIdp } from './helpers/idp.js'
import { startS3Server } from './helpers/s3.js'
import { tusUpload } from './helpers/tus.js'

// Uploads in pieces into a mount (DESIGN §13): tus (tus-js-client) and S3 multipart (the AWS SDK)
// by an editor are the owner's files, their length held in the owner's quota; a viewer's is refused
// when it begins; one whose share ends before it completes is refused, with nothing published on
// either side and its room given back. On both drivers (S3: the store's own multipart upload).
const idp = await startIdp()
const s3 = await startS3Server()
t.teardown(async () => { await idp.close(); await s3.close() })
const MIB = 1024 * 1024

type Headers = Record<string, string>

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: tus and S3 multipart into a mount: an editor's is the owner's file in the owner's quota; a viewer's is refused; one whose share ends is refused with nothing published`, async (t) => {
    const { app, close } = await buildTestApp({ idp, driver, s3, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY: randomBytes(32).toString('base64') } })
    t.teardown(close)
    await app.listen({ port: 0, host: '127.0.0.1' })
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
    const as = (sub: string) => bearer(idp.token({ sub, org_id: 'acme' }))
    const [ada, bea, cai] = [as('ada'), as('bea'), as('cai')]
    for (const who of [ada, bea, cai]) t.equal((await fetch(`${base}/api/me`, { headers: who })).status, 200)
    const put = (who: Headers, path: string, body: string) => fetch(`${base}/api/raw/${path}`, { method: 'PUT', headers: who, body })
    const read = async (who: Headers, path: string) => { const got = await fetch(`${base}/api/raw/${path}`, { headers: who }); return got.status === 200 ? Buffer.from(await got.arrayBuffer()) : got.status }
    const usage = async (who: Headers) => await (await fetch(`${base}/api/usage`, { headers: who })).json() as { fileBytes: number, uploadBytes: number }
    const share = async (body: object) => { const made = await fetch(`${base}/api/shares`, { method: 'POST', headers: { ...ada, 'content-type': 'application/json' }, body: JSON.stringify(body) }); t.equal(made.status, 201); return (await made.json() as { id: string }).id }
    t.equal((await put(ada, 'docs/plan.md', 'plan')).status, 200)
    const forBea = await share({ path: 'docs', with: { userId: 'bea' }, role: 'editor' })
    await share({ path: 'docs', with: { userId: 'cai' }, role: 'viewer' })

    // tus: the editor's upload, in two pieces.
    const body = randomBytes(9 * MIB)
    await tusUpload(body, { endpoint: `${base}/api/uploads`, headers: bea, metadata: { path: 'docs/tus.bin' } })
    t.same(await read(ada, 'docs/tus.bin'), body, 'the owner\'s file, whole')
    t.match(await usage(ada), { fileBytes: 9 * MIB + 4, uploadBytes: 0 }, 'counted as the owner\'s, its upload settled')
    t.match(await usage(bea), { fileBytes: 0, uploadBytes: 0 }, 'nothing of it is the editor\'s')
    const tus = (who: Headers, method: string, url: string, headers: Headers = {}, payload?: Buffer) => fetch(url, { method, headers: { ...who, 'tus-resumable': '1.0.0', ...headers }, body: payload && new Uint8Array(payload) })
    const metadata = (path: string) => `path ${Buffer.from(path).toString('base64')}`
    const refused = await tus(cai, 'POST', `${base}/api/uploads`, { 'upload-length': '5', 'upload-metadata': metadata('docs/viewer.bin') })
    t.equal(refused.status, 403, 'a viewer\'s upload is refused when it begins')
    t.match(await refused.json(), { error: /shared with you to view/ })

    // S3 multipart: the editor's, through the mount's bucket.
    const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
    const client = async (who: Headers) => {
      const made = await fetch(`${base}/api/s3-credentials`, { method: 'POST', headers: { ...who, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'laptop' }) })
      const s3client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: await made.json() as { accessKeyId: string, secretAccessKey: string }, maxAttempts: 1 })
      t.teardown(() => s3client.destroy())
      return s3client
    }
    const [editor, viewer] = [await client(bea), await client(cai)]
    const parts = [randomBytes(5 * MIB), randomBytes(MIB)]
    const { UploadId } = await editor.send(new CreateMultipartUploadCommand({ Bucket: 'docs', Key: 'parts.bin' }))
    const etags = []
    for (const [at, part] of parts.entries()) etags.push((await editor.send(new UploadPartCommand({ Bucket: 'docs', Key: 'parts.bin', UploadId, PartNumber: at + 1, Body: part }))).ETag)
    t.match(await usage(ada), { uploadBytes: 6 * MIB }, 'its parts held in the owner\'s quota while it lasts')
    await editor.send(new CompleteMultipartUploadCommand({ Bucket: 'docs', Key: 'parts.bin', UploadId, MultipartUpload: { Parts: etags.map((ETag, at) => ({ ETag, PartNumber: at + 1 })) } }))
    t.same(await read(ada, 'docs/parts.bin'), Buffer.concat(parts), 'the owner\'s file, its parts joined')
    t.match(await usage(ada), { fileBytes: 15 * MIB + 4, uploadBytes: 0 })
    const denied = await viewer.send(new CreateMultipartUploadCommand({ Bucket: 'docs', Key: 'viewer.bin' })).then(() => undefined, (error: unknown) => error)
    t.ok(denied instanceof S3ServiceException && denied.name === 'AccessDenied', `a viewer's multipart upload: AccessDenied (${String(denied)})`)

    // Begun, then the share ends: neither goes on, nothing is published, the owner's room comes back.
    const created = await tus(bea, 'POST', `${base}/api/uploads`, { 'upload-length': String(9 * MIB), 'upload-metadata': metadata('docs/late.bin') })
    t.equal(created.status, 201)
    const url = new URL(created.headers.get('location')!, base).href
    t.equal((await tus(bea, 'PATCH', url, { 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, body.subarray(0, 8 * MIB))).status, 204)
    const late = await editor.send(new CreateMultipartUploadCommand({ Bucket: 'docs', Key: 'late.bin' }))
    await editor.send(new UploadPartCommand({ Bucket: 'docs', Key: 'late.bin', UploadId: late.UploadId, PartNumber: 1, Body: parts[0] }))
    t.match(await usage(ada), { uploadBytes: 9 * MIB + 5 * MIB }, 'both held in the owner\'s quota')
    t.equal((await fetch(`${base}/api/shares/${forBea}`, { method: 'DELETE', headers: ada })).status, 204)
    const after = await tus(bea, 'PATCH', url, { 'upload-offset': String(8 * MIB), 'content-type': 'application/offset+octet-stream' }, body.subarray(8 * MIB))
    t.equal(after.status, 404, 'the tus upload cannot go on')
    t.match(await after.json(), { error: /share it went into has ended/ })
    const part = await editor.send(new UploadPartCommand({ Bucket: 'docs', Key: 'late.bin', UploadId: late.UploadId, PartNumber: 2, Body: parts[1] })).then(() => undefined, (error: unknown) => error)
    t.ok(part instanceof S3ServiceException && part.$metadata.httpStatusCode === 404, `nor the multipart upload (${String(part)})`)
    t.equal(await read(ada, 'docs/late.bin'), 404, 'nothing published at the owner\'s')
    t.equal(await read(bea, 'docs/late.bin'), 404, 'nor at the editor\'s own docs/')
    t.equal((await tus(bea, 'DELETE', url)).status, 204, 'the editor drops her upload')
    await editor.send(new AbortMultipartUploadCommand({ Bucket: 'docs', Key: 'late.bin', UploadId: late.UploadId }))
    t.pass('and aborts her multipart upload, by its id')
    t.match(await usage(ada), { uploadBytes: 0 }, 'their room is back in the owner\'s quota')
    t.match(await usage(bea), { uploadBytes: 0 }, 'and never was the editor\'s')
  })
}
