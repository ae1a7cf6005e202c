import t from 'tap'
import { createHash, randomBytes } from 'node:crypto'
import { Sha256 } from '@aws-crypto/sha256-js'
import { CreateBucketCommand, CreateMultipartUploadCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { HttpRequest } from '@smithy/protocol-http'
import { SignatureV4 } from '@smithy/signature-v4'
import { INPUT_LIMITS } from '../limits.js'
import { bearer, buildTestApp } from './helpers/app.js'
import { signedChunks } from './helpers/s3-payloads.js'
import { startIdp } from './helpers/idp.js'

// What an authenticated attacker sends the S3 endpoint: each refused where its input is read, the
// process answering others meanwhile, nothing stored or changed by what was refused.

const idp = await startIdp()
t.teardown(() => idp.close())

interface Credentials { accessKeyId: string, secretAccessKey: string }

const QUOTA = 1024 * 1024
const { app, close } = await buildTestApp({ idp, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY: randomBytes(32).toString('base64'), QUOTA_BYTES: String(QUOTA) } })
t.teardown(close)
const base = await app.listen({ port: 0, host: '127.0.0.1' })
const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
const alice = bearer(idp.token({ sub: 's3-attacker' }))
const credentials = (await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: alice })).json() as Credentials
const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials, maxAttempts: 1 })
t.teardown(() => client.destroy())

const sha256 = (body: string | Buffer) => createHash('sha256').update(body).digest('hex')

/** A request signed by the SDK's own signer for `path?query` (the query as names and values), sent as `rawQuery` when given. */
async function send (method: string, path: string, { query = {}, headers = {}, body, rawQuery, creds = credentials }: {
  query?: Record<string, string>, headers?: Record<string, string>, body?: string | Buffer, rawQuery?: string, creds?: Credentials
} = {}) {
  const target = new URL(endpoint)
  const signer = new SignatureV4({ credentials: creds, region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: true, applyChecksum: false })
  const request = new HttpRequest({
    method, protocol: 'http:', hostname: target.hostname, port: Number(target.port), path, query,
    headers: { host: target.host, 'x-amz-content-sha256': body === undefined ? sha256('') : sha256(body), ...headers }
  })
  const signed = (await signer.sign(request)).headers as Record<string, string>
  const search = rawQuery ?? new URLSearchParams(query).toString()
  const { host: _host, ...sent } = signed
  const answer = await fetch(`${endpoint}${path}${search ? `?${search}` : ''}`, { method, headers: sent, body: body as BodyInit | undefined })
  return { status: answer.status, headers: answer.headers, text: await answer.text() }
}

/** How long /health takes to answer while `hostile` runs: the process must stay responsive. */
async function healthWhile<T> (hostile: Promise<T>): Promise<{ result: T, healthMs: number }> {
  const started = performance.now()
  const health = await fetch(`${base}/health`)
  const healthMs = performance.now() - started
  t.equal(health.status, 200)
  return { result: await hostile, healthMs }
}

const codeOf = (xml: string) => /<Code>([^<]*)<\/Code>/.exec(xml)?.[1]

for (const Bucket of ['box', 'private', 'dropbox', 'web']) await client.send(new CreateBucketCommand({ Bucket }))
await client.send(new PutObjectCommand({ Bucket: 'box', Key: 'keep.txt', Body: 'keep me' }))

t.test('an XML body is read by a linear parser as it arrives: unclosed or deep elements, too many keys, a DOCTYPE, a character past Unicode are 400 MalformedXML at once', async (t) => {
  const unclosed = '<Delete>' + '<Object>'.repeat(130_000)
  const { result, healthMs } = await healthWhile(send('POST', '/box', { query: { delete: '' }, body: unclosed }))
  t.match(result, { status: 400 })
  t.equal(codeOf(result.text), 'MalformedXML')
  t.ok(healthMs < 1000, `/health answered in ${Math.round(healthMs)} ms while a 1 MiB hostile Delete was read`)

  const deep = await send('POST', '/box', { query: { delete: '' }, body: '<a>'.repeat(300_000) })
  t.equal(codeOf(deep.text), 'MalformedXML', 'nesting is bounded')
  t.match(deep.text, /deeper than 32/)

  const keys = Array.from({ length: INPUT_LIMITS.s3DeleteKeys + 1 }, (_, index) => `<Object><Key>k${index}</Key></Object>`).join('')
  const tooMany = await send('POST', '/box', { query: { delete: '' }, body: `<Delete>${keys}</Delete>` })
  t.match(tooMany, { status: 400 })
  t.match(tooMany.text, /1 to 1000 objects/)

  const doctype = await send('POST', '/box', { query: { delete: '' }, body: '<!DOCTYPE d [<!ENTITY x "keep.txt">]><Delete><Object><Key>&x;</Key></Object></Delete>' })
  t.equal(codeOf(doctype.text), 'MalformedXML')
  const pastUnicode = await send('POST', '/box', { query: { delete: '' }, body: '<Delete><Object><Key>&#x110000;</Key></Object></Delete>' })
  t.match(pastUnicode, { status: 400 })
  t.equal(codeOf(pastUnicode.text), 'MalformedXML')

  const large = await send('POST', '/box', { query: { delete: '' }, body: `<Delete><Object><Key>${'k'.repeat(INPUT_LIMITS.s3XmlBytes)}</Key></Object></Delete>` })
  t.match(large, { status: 400 })
  t.equal(codeOf(large.text), 'MaxMessageLengthExceeded')

  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: 'box', Key: 'parts.bin' }))
  const parts = Array.from({ length: INPUT_LIMITS.s3CompleteParts + 1 }, (_, index) => `<Part><PartNumber>${(index % 10_000) + 1}</PartNumber><ETag>"x"</ETag></Part>`).join('')
  const complete = await send('POST', '/box/parts.bin', { query: { uploadId: UploadId! }, body: `<CompleteMultipartUpload>${parts}</CompleteMultipartUpload>` })
  t.match(complete, { status: 400 })
  t.match(complete.text, /1 to 10000 parts/)
  t.equal((await send('GET', '/box/keep.txt')).text, 'keep me', 'nothing was deleted')
})

t.test('an XML body is checked against its signed payload hash before it acts: a Delete signed for one key cannot delete another', async (t) => {
  const signedFor = '<Delete><Object><Key>nothing-here.txt</Key></Object></Delete>'
  const sent = '<Delete><Object><Key>keep.txt</Key></Object></Delete>'
  const answer = await send('POST', '/box', { query: { delete: '' }, body: sent, headers: { 'x-amz-content-sha256': sha256(signedFor) } })
  t.match(answer, { status: 400 })
  t.equal(codeOf(answer.text), 'XAmzContentSHA256Mismatch')
  const wrongMd5 = await send('POST', '/box', { query: { delete: '' }, body: sent, headers: { 'content-md5': createHash('md5').update(signedFor).digest('base64') } })
  t.equal(codeOf(wrongMd5.text), 'BadDigest')
  t.equal((await send('GET', '/box/keep.txt')).text, 'keep me')
})

t.test('an aws-chunked trailer is a handful of lines: thousands are refused at the bound, the process answering meanwhile', async (t) => {
  const body = Buffer.from('0\r\n' + 'x\r\n'.repeat(700_000) + '\r\n')
  const { result, healthMs } = await healthWhile(send('PUT', '/box/trailer.bin', {
    body, headers: { 'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER', 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': '0', 'x-amz-trailer': 'x-amz-checksum-crc32' }
  }))
  t.match(result, { status: 400 })
  t.match(result.text, new RegExp(`more than ${INPUT_LIMITS.awsTrailerLines} lines`))
  t.ok(healthMs < 1000, `/health answered in ${Math.round(healthMs)} ms`)
  t.equal((await send('HEAD', '/box/trailer.bin')).status, 404, 'nothing was stored')
})

t.test('x-amz-decoded-content-length is a bound, not a promise: more bytes than declared, or a length that is not a whole number, are refused and nothing is stored or counted', async (t) => {
  const usage = async () => ((await app.inject({ url: '/api/usage', headers: alice })).json() as { usedBytes: number }).usedBytes
  const before = await usage()
  const url = `${endpoint}/box/over.bin`
  const chunks = Array.from({ length: 8 }, () => randomBytes(256 * 1024))
  for (const declared of ['1', '-5', '1.5', 'many']) {
    const { headers, body } = await signedChunks(url, credentials, chunks, { declared })
    const answer = await fetch(url, { method: 'PUT', headers, body })
    t.equal(answer.status, 400, `declared ${declared}`)
    t.match(await answer.text(), /decoded-content-length|whole number/)
  }
  t.equal((await send('HEAD', '/box/over.bin')).status, 404, 'nothing was stored')
  t.equal(await usage(), before, 'nothing was counted')

  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: 'box', Key: 'part.bin' }))
  const partUrl = `${url.replace('over.bin', 'part.bin')}?partNumber=1&uploadId=${UploadId}`
  const part = await signedChunks(partUrl, credentials, chunks, { declared: '-1' })
  const partAnswer = await fetch(partUrl, { method: 'PUT', headers: part.headers, body: part.body })
  t.equal(partAnswer.status, 400, `UploadPart the same: ${await partAnswer.text()}`)
})

t.test('an x-amz-* header that is not signed is refused: a presigned PUT cannot become a CopyObject', async (t) => {
  await client.send(new PutObjectCommand({ Bucket: 'private', Key: 'secret.txt', Body: 'secret' }))
  const put = await getSignedUrl(client, new PutObjectCommand({ Bucket: 'dropbox', Key: 'upload.bin' }), { expiresIn: 300 })
  const copied = await fetch(put, { method: 'PUT', headers: { 'x-amz-copy-source': '/private/secret.txt' } })
  t.equal(copied.status, 403)
  const text = await copied.text()
  t.equal(codeOf(text), 'AccessDenied')
  t.match(text, /<HeadersNotSigned>x-amz-copy-source<\/HeadersNotSigned>/)
  const headerSigned = await send('GET', '/box/keep.txt', { headers: {} })
  t.equal(headerSigned.status, 200, 'a request whose x-amz-* headers are all signed passes')
  const get = await getSignedUrl(client, new GetObjectCommand({ Bucket: 'dropbox', Key: 'upload.bin' }), { expiresIn: 300 })
  t.equal((await fetch(get)).status, 404, 'nothing was copied')
  const plain = await fetch(put, { method: 'PUT', body: 'an upload' })
  t.equal(plain.status, 200, 'the presigned PUT as signed works')
})

t.test('a query reads one way for the signature and the operation: "+" signed as a plus is not listed as a space', async (t) => {
  await client.send(new PutObjectCommand({ Bucket: 'box', Key: 'a b.txt', Body: 'space' }))
  const plus = await send('GET', '/box', { query: { 'list-type': '2', prefix: 'a+b' }, rawQuery: 'list-type=2&prefix=a+b' })
  t.equal(plus.status, 403)
  t.equal(codeOf(plus.text), 'SignatureDoesNotMatch')
  const space = await send('GET', '/box', { query: { 'list-type': '2', prefix: 'a b' }, rawQuery: 'list-type=2&prefix=a+b' })
  t.equal(space.status, 200, 'a space written as "+" is a space to both')
  t.match(space.text, /<Key>a b.txt<\/Key>/)
})

t.test('user content is never run in the S3 listener\'s origin: nosniff, a sandbox, attachment unless inert, whatever response-content-type asks', async (t) => {
  await client.send(new PutObjectCommand({ Bucket: 'web', Key: 'page.html', Body: '<script>alert(1)</script>', ContentType: 'text/html' }))
  await client.send(new PutObjectCommand({ Bucket: 'web', Key: 'note.txt', Body: '<script>alert(1)</script>', ContentType: 'text/plain' }))
  const html = await fetch(await getSignedUrl(client, new GetObjectCommand({ Bucket: 'web', Key: 'page.html' }), { expiresIn: 300 }))
  t.equal(html.headers.get('x-content-type-options'), 'nosniff')
  t.match(html.headers.get('content-security-policy'), /^sandbox/)
  t.match(html.headers.get('content-disposition'), /^attachment; filename="page.html"/)
  const asHtml = await fetch(await getSignedUrl(client, new GetObjectCommand({ Bucket: 'web', Key: 'note.txt', ResponseContentType: 'text/html', ResponseContentDisposition: 'inline' }), { expiresIn: 300 }))
  t.equal(asHtml.headers.get('content-type'), 'text/html')
  t.match(asHtml.headers.get('content-disposition'), /^attachment/, 'an override to a type that runs is downloaded')
  const inert = await fetch(await getSignedUrl(client, new GetObjectCommand({ Bucket: 'web', Key: 'note.txt' }), { expiresIn: 300 }))
  t.equal(inert.headers.get('content-disposition'), null, 'plain text is shown')
  for (const value of ['text/plain\r\nx-evil: 1', 'text/plain; name=☃']) {
    const answer = await fetch(await getSignedUrl(client, new GetObjectCommand({ Bucket: 'web', Key: 'note.txt', ResponseContentType: value }), { expiresIn: 300 }))
    t.equal(answer.status, 400, JSON.stringify(value))
    t.equal(codeOf(await answer.text()), 'InvalidArgument')
  }
  const badType = await send('PUT', '/web/mixed.txt', { body: 'x', headers: { 'content-type': 'text/plain; x=1, text/html' } })
  t.equal(badType.status, 400)
  t.match(badType.text, /not a media type/)
  const badUpload = await send('POST', '/web/mixed.bin', { query: { uploads: '' }, headers: { 'content-type': 'text/html, text/plain' } })
  t.equal(badUpload.status, 400, `CreateMultipartUpload the same: ${badUpload.text}`)
})

t.test('bad input is 400 in S3\'s words, never 500: a malformed UploadPartCopy source, a traversal key in a Delete', async (t) => {
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: 'box', Key: 'copy-part.bin' }))
  const copy = await send('PUT', '/box/copy-part.bin', { query: { partNumber: '1', uploadId: UploadId! }, headers: { 'x-amz-copy-source': '/box/%E0%A4%A' } })
  t.equal(copy.status, 400)
  t.equal(codeOf(copy.text), 'InvalidArgument')
  const deleted = await send('POST', '/box', { query: { delete: '' }, body: '<Delete><Object><Key>a/../b</Key></Object></Delete>' })
  t.equal(deleted.status, 200)
  t.match(deleted.text, /<Error><Key>a\/\.\.\/b<\/Key><Code>InvalidArgument<\/Code>/)
})

t.test('an S3 credential made with an API key belongs to its lineage: it expires with the key and stops when the key is revoked', async (t) => {
  const expiresAt = new Date(Date.now() + 86_400_000).toISOString()
  const made = (await app.inject({ method: 'POST', url: '/api/keys', headers: alice, payload: { name: 'child', expiresAt } })).json() as { id: string, key: string }
  const withKey = bearer(made.key)
  const credential = await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: withKey, payload: { name: 'from a key' } })
  t.equal(credential.statusCode, 201)
  t.equal(credential.json().expiresAt, expiresAt, 'it expires no later than the key')
  const session = (await app.inject({ method: 'POST', url: '/api/s3-credentials/session', headers: withKey })).json() as Credentials & { sessionToken: string, expiration: string }
  t.ok(new Date(session.expiration) <= new Date(expiresAt))
  const asCredential = credential.json() as Credentials
  t.equal((await send('GET', '/', { creds: asCredential })).status, 200)
  const asSession = { accessKeyId: session.accessKeyId, secretAccessKey: session.secretAccessKey }
  t.equal((await send('GET', '/', { creds: asSession, headers: { 'x-amz-security-token': session.sessionToken } })).status, 200)

  t.equal((await app.inject({ method: 'DELETE', url: `/api/keys/${made.id}`, headers: alice })).statusCode, 204)
  const revoked = await send('GET', '/', { creds: asCredential })
  t.equal(revoked.status, 403)
  t.equal(codeOf(revoked.text), 'InvalidAccessKeyId')
  t.equal((await send('GET', '/', { creds: asSession, headers: { 'x-amz-security-token': session.sessionToken } })).status, 403, 'its sessions stop too')
  t.equal((await send('GET', '/')).status, 200, 'a credential made by the owner outlives the key')
})
