import t from 'tap'
import { randomBytes } from 'node:crypto'
import { request } from 'node:http'
import { Readable } from 'node:stream'
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CopyObjectCommand, ListObjectVersionsCommand, CreateBucketCommand, CreateMultipartUploadCommand, ListMultipartUploadsCommand, ListPartsCommand,
  UploadPartCommand, UploadPartCopyCommand, DeleteBucketCommand, DeleteObjectCommand, DeleteObjectsCommand, GetBucketLocationCommand, GetBucketVersioningCommand,
  GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListBucketsCommand, ListObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException
} from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { Upload } from '@aws-sdk/lib-storage'
import { createHash } from 'node:crypto'
import { bearer, buildTestApp } from './helpers/app.js'
import { signed, signedChunks } from './helpers/s3-payloads.js'
import { startIdp } from './helpers/idp.js'
import { startS3Server } from './helpers/s3.js'
import { captureLogs, waitFor } from './helpers/wait.js'
import { DRIVERS } from './helpers/db.js'

const idp = await startIdp()
const s3 = await startS3Server()
t.teardown(async () => { await idp.close(); await s3.close() })

const S3_CREDENTIALS_KEY = randomBytes(32).toString('base64')

interface Credentials { accessKeyId: string, secretAccessKey: string, sessionToken?: string, expiration?: Date }

/** What an SDK user writes: the endpoint, path style, and the SDK's defaults otherwise (checksums on). */
const clientOf = (endpoint: string, credentials: Credentials, extra: Record<string, unknown> = {}) =>
  new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials, maxAttempts: 1, ...extra })

/** The S3 error a command fails with: its code and status. */
async function refusal (promise: Promise<unknown>) {
  try {
    await promise
  } catch (error) {
    if (error instanceof S3ServiceException) return { code: error.name, status: error.$metadata.httpStatusCode }
    throw error
  }
  throw new Error('the command succeeded')
}

const text = async (body: unknown) => await (body as { transformToString (): Promise<string> }).transformToString()

for (const driver of DRIVERS) {
  t.test(`${driver}: the AWS SDK with its defaults: buckets are top-level folders, objects are files, each user's own`, async (t) => {
    const { app, close } = await buildTestApp({ driver, s3, idp, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY, QUOTA_BYTES: String(1024 * 1024) } })
    t.teardown(close)
    await app.listen({ port: 0, host: '127.0.0.1' })
    const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
    const alice = bearer(idp.token({ sub: `s3-alice-${driver}` }))
    const made = await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: alice, payload: { name: 'laptop' } })
    t.equal(made.statusCode, 201, made.body)
    const credentials = made.json() as Credentials & { name: string }
    t.match(credentials, { accessKeyId: /^[A-Z0-9]{20}$/, secretAccessKey: /^\S{40}$/, name: 'laptop' })
    const client = clientOf(endpoint, credentials)
    t.teardown(() => client.destroy())

    await client.send(new CreateBucketCommand({ Bucket: 'photos' }))
    t.same((await client.send(new ListBucketsCommand({}))).Buckets?.map(({ Name }) => Name), ['photos'], 'an empty bucket is a folder made on purpose')
    await client.send(new HeadBucketCommand({ Bucket: 'photos' }))
    t.match(await refusal(client.send(new HeadBucketCommand({ Bucket: 'nothing' }))), { status: 404 })
    t.same((await client.send(new GetBucketLocationCommand({ Bucket: 'photos' }))).LocationConstraint, undefined)
    t.equal((await client.send(new GetBucketVersioningCommand({ Bucket: 'photos' }))).Status, 'Enabled')

    const put = await client.send(new PutObjectCommand({ Bucket: 'photos', Key: 'a/b.txt', Body: 'hello, S3', ContentType: 'text/plain' }))
    t.match(put.ETag, /^"/)
    const streamed = randomBytes(300 * 1024)
    await client.send(new PutObjectCommand({ Bucket: 'photos', Key: 'c.bin', Body: Readable.from([streamed.subarray(0, 100_000), streamed.subarray(100_000)]), ContentLength: streamed.length }))
    const got = await client.send(new GetObjectCommand({ Bucket: 'photos', Key: 'c.bin' }))
    t.ok(Buffer.from(await got.Body!.transformToByteArray()).equals(streamed), 'a streamed body (aws-chunked, with its checksum trailer) arrives whole')
    t.equal(await text((await client.send(new GetObjectCommand({ Bucket: 'photos', Key: 'a/b.txt' }))).Body), 'hello, S3')
    const ranged = await client.send(new GetObjectCommand({ Bucket: 'photos', Key: 'a/b.txt', Range: 'bytes=7-' }))
    t.equal(await text(ranged.Body), 'S3')
    t.equal(ranged.ContentRange, 'bytes 7-8/9')
    const head = await client.send(new HeadObjectCommand({ Bucket: 'photos', Key: 'a/b.txt' }))
    t.match(head, { ContentLength: 9, ContentType: 'text/plain', ETag: put.ETag })
    t.match(await refusal(client.send(new GetObjectCommand({ Bucket: 'photos', Key: 'missing' }))), { code: 'NoSuchKey', status: 404 })
    t.match(await refusal(client.send(new PutObjectCommand({ Bucket: 'photos', Key: 'a/b.txt', Body: 'no', IfNoneMatch: '*' }))), { code: 'PreconditionFailed', status: 412 })
    t.match(await refusal(client.send(new PutObjectCommand({ Bucket: 'photos', Key: 'big.bin', Body: Buffer.alloc(2 * 1024 * 1024) }))), { code: 'QuotaExceeded', status: 403 }, 'the quota is a 403, which clients do not retry')
    t.match(await refusal(client.send(new PutObjectCommand({ Bucket: 'photos', Key: 'x/../y', Body: 'no' }))), { code: 'InvalidArgument', status: 400 }, 'a key the file API refuses')

    // The same files through the file API: one store, one set of rules.
    const listed = await app.inject({ url: '/api/files?prefix=photos/', headers: alice })
    t.same(listed.json().files.map(({ key }: { key: string }) => key), ['photos/a/b.txt', 'photos/c.bin'])

    const copied = await client.send(new CopyObjectCommand({ Bucket: 'photos', Key: 'copy.txt', CopySource: 'photos/a/b.txt' }))
    t.equal(copied.CopyObjectResult?.ETag, put.ETag)
    t.equal((await client.send(new HeadObjectCommand({ Bucket: 'photos', Key: 'copy.txt' }))).ContentType, 'text/plain', 'a copy keeps its source\'s type')
    const v2 = await client.send(new ListObjectsV2Command({ Bucket: 'photos', Delimiter: '/' }))
    t.same(v2.Contents?.map(({ Key }) => Key), ['c.bin', 'copy.txt'])
    t.same(v2.CommonPrefixes?.map(({ Prefix }) => Prefix), ['a/'])
    const v1 = await client.send(new ListObjectsCommand({ Bucket: 'photos', Prefix: 'a/' }))
    t.same(v1.Contents?.map(({ Key }) => Key), ['a/b.txt'])

    t.match(await refusal(client.send(new DeleteBucketCommand({ Bucket: 'photos' }))), { code: 'BucketNotEmpty', status: 409 })
    await client.send(new DeleteObjectCommand({ Bucket: 'photos', Key: 'copy.txt' }))
    const trash = await app.inject({ url: '/api/trash', headers: alice })
    t.same(trash.json().items.map(({ key }: { key: string }) => key), ['photos/copy.txt'], 'a delete goes to the trash')
    const deleted = await client.send(new DeleteObjectsCommand({ Bucket: 'photos', Delete: { Objects: [{ Key: 'a/b.txt' }, { Key: 'c.bin' }, { Key: 'never-was' }] } }))
    t.same(deleted.Deleted?.map(({ Key }) => Key).sort(), ['a/b.txt', 'c.bin', 'never-was'])
    t.same((await client.send(new ListObjectsV2Command({ Bucket: 'photos' }))).Contents ?? [], [])
    await client.send(new DeleteBucketCommand({ Bucket: 'photos' }))
    t.same((await client.send(new ListBucketsCommand({}))).Buckets ?? [], [])

    await client.send(new CreateBucketCommand({ Bucket: 'journal' }))
    const { cursor } = (await app.inject({ url: '/api/changes/latest', headers: alice })).json() as { cursor: string }
    await client.send(new PutObjectCommand({ Bucket: 'journal', Key: 'j.txt', Body: 'j' }))
    const changes = (await app.inject({ url: `/api/changes?cursor=${cursor}`, headers: alice })).json()
    t.match(changes.changes, [{ op: 'put', key: 'journal/j.txt' }], 'a PutObject is journaled')
    await client.send(new CopyObjectCommand({ Bucket: 'journal', Key: 'typed.md', CopySource: 'journal/j.txt', MetadataDirective: 'REPLACE', ContentType: 'text/markdown' }))
    t.match(await client.send(new HeadObjectCommand({ Bucket: 'journal', Key: 'typed.md' })), { ContentType: 'text/markdown', ContentLength: 1 }, 'REPLACE takes the request\'s Content-Type')
    t.equal((await client.send(new HeadObjectCommand({ Bucket: 'journal', Key: 'j.txt' }))).ContentType, 'application/octet-stream', 'the source keeps its own')
    t.equal(await text((await client.send(new GetObjectCommand({ Bucket: 'journal', Key: 'typed.md' }))).Body), 'j')

    // Another user has a bucket of the same name, and never sees this one's.
    const bobMade = await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: bearer(idp.token({ sub: `s3-bob-${driver}` })) })
    t.equal(bobMade.statusCode, 201, bobMade.body)
    const bob = bobMade.json() as Credentials
    const bobs = clientOf(endpoint, bob)
    t.teardown(() => bobs.destroy())
    t.same((await bobs.send(new ListBucketsCommand({}))).Buckets ?? [], [])
    await bobs.send(new CreateBucketCommand({ Bucket: 'journal' }))
    t.match(await refusal(bobs.send(new GetObjectCommand({ Bucket: 'journal', Key: 'j.txt' }))), { status: 404 })
    await bobs.send(new PutObjectCommand({ Bucket: 'journal', Key: 'j.txt', Body: 'bob\'s' }))
    t.equal(await text((await client.send(new GetObjectCommand({ Bucket: 'journal', Key: 'j.txt' }))).Body), 'j')
  })
}

t.test('listings page as S3 pages them: max-keys, continuation tokens, start-after, markers, url encoding', async (t) => {
  const { app, close } = await buildTestApp({ idp, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY } })
  t.teardown(close)
  const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
  const credentials = (await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: bearer(idp.token({ sub: 'pager' })) })).json() as Credentials
  const client = clientOf(endpoint, credentials)
  t.teardown(() => client.destroy())
  const keys = Array.from({ length: 250 }, (_, n) => `k/${String(n).padStart(4, '0')}${n % 50 === 0 ? ' +&é' : ''}`)
  for (let at = 0; at < keys.length; at += 25) {
    await client.send(new CreateBucketCommand({ Bucket: 'many' }))
    await Promise.all(keys.slice(at, at + 25).map((Key) => client.send(new PutObjectCommand({ Bucket: 'many', Key, Body: 'x' }))))
  }
  const seen: string[] = []
  let token: string | undefined
  let pages = 0
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: 'many', MaxKeys: 70, ContinuationToken: token }))
    seen.push(...(page.Contents ?? []).map(({ Key }) => Key!))
    t.ok((page.KeyCount ?? 0) <= 70)
    token = page.NextContinuationToken
    pages++
  } while (token)
  t.same(seen, [...keys].sort(), 'every key once, in order')
  t.equal(pages, 4)
  const after = await client.send(new ListObjectsV2Command({ Bucket: 'many', StartAfter: keys[247] }))
  t.same(after.Contents?.map(({ Key }) => Key), keys.slice(248))
  const v1 = await client.send(new ListObjectsCommand({ Bucket: 'many', Marker: keys[248] }))
  t.same(v1.Contents?.map(({ Key }) => Key), keys.slice(249))
  const encoded = await client.send(new ListObjectsV2Command({ Bucket: 'many', Prefix: 'k/0000', EncodingType: 'url' }))
  t.same(encoded.Contents?.map(({ Key }) => Key), ['k/0000%20%2B%26%C3%A9'], 'as S3 encodes them: a space is %20, a slash stays')
})

t.test('SigV4: presigned URLs; wrong secrets, unknown and revoked keys, skewed clocks and expired URLs are refused as S3 refuses them; temporary credentials', async (t) => {
  const { app, close } = await buildTestApp({ idp, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY } })
  t.teardown(close)
  const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
  const alice = bearer(idp.token({ sub: 'signer' }))
  const credentials = (await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: alice })).json() as Credentials
  const client = clientOf(endpoint, credentials)
  t.teardown(() => client.destroy())

  await client.send(new CreateBucketCommand({ Bucket: 'shared' }))
  const putUrl = await getSignedUrl(client, new PutObjectCommand({ Bucket: 'shared', Key: 'via link.txt' }), { expiresIn: 60 })
  t.equal((await fetch(putUrl, { method: 'PUT', body: 'linked' })).status, 200)
  const getUrl = await getSignedUrl(client, new GetObjectCommand({ Bucket: 'shared', Key: 'via link.txt', ResponseContentDisposition: 'attachment' }), { expiresIn: 60 })
  const got = await fetch(getUrl)
  t.equal(await got.text(), 'linked')
  t.equal(got.headers.get('content-disposition'), 'attachment')
  const edited = new URL(getUrl)
  edited.searchParams.set('X-Amz-Expires', '3600')
  const refusedEdit = await fetch(edited)
  t.equal(refusedEdit.status, 403)
  t.match(await refusedEdit.text(), /<Code>SignatureDoesNotMatch<\/Code>/)
  const expired = new URL(await getSignedUrl(client, new GetObjectCommand({ Bucket: 'shared', Key: 'via link.txt' }), { expiresIn: 1, signingDate: new Date(Date.now() - 60_000) }))
  const expiredAnswer = await fetch(expired)
  t.equal(expiredAnswer.status, 403)
  t.match(await expiredAnswer.text(), /<Code>AccessDenied<\/Code><Message>Request has expired<\/Message>/)
  const tooLong = await getSignedUrl(client, new GetObjectCommand({ Bucket: 'shared', Key: 'via link.txt' }), { expiresIn: 8 * 86_400 }).catch(() => undefined)
  if (tooLong) t.equal((await fetch(tooLong)).status, 400, 'longer than a week')

  const wrongSecret = clientOf(endpoint, { ...credentials, secretAccessKey: credentials.secretAccessKey.replace(/^./, (c) => c === 'A' ? 'B' : 'A') })
  t.match(await refusal(wrongSecret.send(new ListBucketsCommand({}))), { code: 'SignatureDoesNotMatch', status: 403 })
  const unknown = clientOf(endpoint, { ...credentials, accessKeyId: 'SKIAAAAAAAAAAAAAAAAA' })
  t.match(await refusal(unknown.send(new ListBucketsCommand({}))), { code: 'InvalidAccessKeyId', status: 403 })
  const skewed = clientOf(endpoint, credentials, { systemClockOffset: -20 * 60_000 })
  t.match(await refusal(skewed.send(new ListBucketsCommand({}))), { code: 'RequestTimeTooSkewed', status: 403 })
  const otherRegion = new S3Client({ endpoint, region: 'eu-west-1', forcePathStyle: true, credentials, maxAttempts: 1 })
  t.match(await refusal(otherRegion.send(new ListBucketsCommand({}))), { code: 'AuthorizationHeaderMalformed', status: 400 })
  const anonymous = await fetch(`${endpoint}/shared/via%20link.txt`)
  t.equal(anonymous.status, 403)
  t.match(await anonymous.text(), /^<\?xml version="1.0" encoding="UTF-8"\?>\n<Error><Code>AccessDenied<\/Code><Message>[^<]+<\/Message><Resource>\/shared\/via%20link.txt<\/Resource><RequestId>\w+<\/RequestId><\/Error>$/)

  const session = await app.inject({ method: 'POST', url: '/api/s3-credentials/session', headers: alice })
  t.equal(session.statusCode, 200)
  const temporary = session.json() as Omit<Credentials, 'expiration'> & { expiration: string }
  t.match(temporary, { accessKeyId: /^SSIA/, sessionToken: /\S/, expiration: /Z$/ })
  const sessionClient = clientOf(endpoint, { ...temporary, expiration: new Date(temporary.expiration) } as Credentials)
  t.same((await sessionClient.send(new ListBucketsCommand({}))).Buckets?.map(({ Name }) => Name), ['shared'])
  // One character changed in the middle, where every bit of it counts (the last ones of base64 may not).
  const token = temporary.sessionToken!
  const middle = Math.floor(token.length / 2)
  const forgedToken = token.slice(0, middle) + (token[middle] === 'A' ? 'B' : 'A') + token.slice(middle + 1)
  const forged = clientOf(endpoint, { ...temporary, expiration: new Date(temporary.expiration), sessionToken: forgedToken })
  t.match(await refusal(forged.send(new ListBucketsCommand({}))), { code: 'InvalidAccessKeyId', status: 403 })
  t.equal((await app.inject({ url: '/api/files', headers: { authorization: `Bearer ${temporary.sessionToken}` } })).statusCode, 401, 'usable on the S3 endpoint only')

  const list = (await app.inject({ url: '/api/s3-credentials', headers: alice })).json()
  t.match(list.credentials, [{ accessKeyId: credentials.accessKeyId, name: 's3', createdAt: /Z$/ }])
  t.notOk(JSON.stringify(list).includes(credentials.secretAccessKey), 'the secret is not shown again')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/s3-credentials/${credentials.accessKeyId}`, headers: bearer(idp.token({ sub: 'someone-else' })) })).statusCode, 404)
  t.equal((await app.inject({ method: 'DELETE', url: `/api/s3-credentials/${credentials.accessKeyId}`, headers: alice })).statusCode, 204)
  t.match(await refusal(client.send(new ListBucketsCommand({}))), { code: 'InvalidAccessKeyId', status: 403 }, 'revoked at once')
})

t.test('without S3_CREDENTIALS_KEY the credential routes are 503, and S3_API_PORT alone does not start', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  const answer = await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: bearer(idp.token({ sub: 'nokey' })) })
  t.equal(answer.statusCode, 503)
  t.match(answer.json(), { error: /S3_CREDENTIALS_KEY/ })
  await t.rejects(buildTestApp({ env: { S3_API_PORT: '0' } }), /S3_CREDENTIALS_KEY/)
})

for (const driver of DRIVERS) {
  t.test(`${driver}: multipart uploads: lib-storage's parts joined into one file; parts listed, copied, checked, aborted; the quota counts them`, async (t) => {
    const { app, close } = await buildTestApp({ driver, s3, idp, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY, QUOTA_BYTES: String(40 * 1024 * 1024) } })
    t.teardown(close)
    const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
    const alice = bearer(idp.token({ sub: `parts-${driver}` }))
    const client = clientOf(endpoint, (await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: alice })).json() as Credentials)
    t.teardown(() => client.destroy())

    const content = randomBytes(12 * 1024 * 1024 + 123)
    await client.send(new CreateBucketCommand({ Bucket: 'big' }))
    const upload = new Upload({ client, params: { Bucket: 'big', Key: 'film.bin', Body: Readable.from([content]), ContentType: 'video/x-test' }, partSize: 5 * 1024 * 1024, queueSize: 2 })
    const done = await upload.done()
    t.match(done, { Bucket: 'big', Key: 'film.bin', ETag: /^"/ })
    const got = await client.send(new GetObjectCommand({ Bucket: 'big', Key: 'film.bin' }))
    t.equal(got.ContentType, 'video/x-test')
    t.equal(createHash('sha256').update(await got.Body!.transformToByteArray()).digest('hex'), createHash('sha256').update(content).digest('hex'), 'three parts, joined whole')
    const usage = (await app.inject({ url: '/api/usage', headers: alice })).json()
    t.match(usage, { fileBytes: content.length, uploadBytes: 0 }, 'the parts\' room is given back once joined')
    if (driver === 's3') {
      // On the S3 driver the parts went to the store's own multipart upload at the file's key.
      const sent = await s3.requests()
      const atFile = sent.filter((request) => request.url.includes(`/parts-s3/`) && request.url.includes('/big/film.bin'))
      t.same(atFile.filter((request) => request.method === 'PUT' && /[?&]partNumber=/.test(request.url)).map((request) => request.length).sort(),
        [2 * 1024 * 1024 + 123, 5 * 1024 * 1024, 5 * 1024 * 1024], 'each part sent to the store once, as it came')
      t.equal(atFile.filter((request) => request.method === 'POST' && /[?&]uploadId=/.test(request.url)).length, 1, 'the file made by one request')
      t.same(atFile.filter((request) => request.method === 'PUT' && !/[?&]partNumber=/.test(request.url)), [], 'no whole object sent')
      t.same(sent.filter((request) => request.url.includes('stowage-multipart')), [], 'no part kept as an object of its own')
    }

    // A part cut off part way: nothing of it is kept, nor counted, and nothing is published.
    const cut = await client.send(new CreateMultipartUploadCommand({ Bucket: 'big', Key: 'cut.bin' }))
    const partUrl = new URL(await getSignedUrl(client, new UploadPartCommand({ Bucket: 'big', Key: 'cut.bin', UploadId: cut.UploadId, PartNumber: 1 }), { expiresIn: 60 }))
    const cutOff = request(partUrl, { method: 'PUT', headers: { 'content-length': 5 * 1024 * 1024 } })
    cutOff.on('error', () => {})
    const uploadBytes = async () => (await app.inject({ url: '/api/usage', headers: alice })).json().uploadBytes as number
    cutOff.write(randomBytes(1024 * 1024))
    await waitFor(async () => await uploadBytes() === 5 * 1024 * 1024, { what: 'the part\'s room claimed, its bytes coming' })
    cutOff.destroy()
    await waitFor(async () => await uploadBytes() === 0, { what: 'the cut part\'s room given back' })
    t.same((await client.send(new ListPartsCommand({ Bucket: 'big', Key: 'cut.bin', UploadId: cut.UploadId }))).Parts ?? [], [], 'no part recorded')
    await client.send(new AbortMultipartUploadCommand({ Bucket: 'big', Key: 'cut.bin', UploadId: cut.UploadId }))
    t.match(await refusal(client.send(new HeadObjectCommand({ Bucket: 'big', Key: 'cut.bin' }))), { status: 404 }, 'nothing published')

    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: 'big', Key: 'copy.bin' }))
    const first = await client.send(new UploadPartCopyCommand({ Bucket: 'big', Key: 'copy.bin', UploadId, PartNumber: 1, CopySource: 'big/film.bin', CopySourceRange: 'bytes=0-5242879' }))
    const second = await client.send(new UploadPartCommand({ Bucket: 'big', Key: 'copy.bin', UploadId, PartNumber: 2, Body: 'tail' }))
    t.match((await app.inject({ url: '/api/usage', headers: alice })).json(), { uploadBytes: 5 * 1024 * 1024 + 4 }, 'parts count as unfinished uploads')
    const parts = await client.send(new ListPartsCommand({ Bucket: 'big', Key: 'copy.bin', UploadId }))
    t.same(parts.Parts?.map(({ PartNumber, Size }) => [PartNumber, Size]), [[1, 5 * 1024 * 1024], [2, 4]])
    const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: 'big' }))
    t.same(uploads.Uploads?.map(({ Key, UploadId: id }) => [Key, id]), [['copy.bin', UploadId]])
    t.match(await refusal(client.send(new CompleteMultipartUploadCommand({
      Bucket: 'big', Key: 'copy.bin', UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: first.CopyPartResult?.ETag }, { PartNumber: 2, ETag: '"0000"' }] }
    }))), { code: 'InvalidPart', status: 400 })
    t.match(await refusal(client.send(new CompleteMultipartUploadCommand({
      Bucket: 'big', Key: 'copy.bin', UploadId, MultipartUpload: { Parts: [{ PartNumber: 2, ETag: second.ETag }, { PartNumber: 1, ETag: first.CopyPartResult?.ETag }] }
    }))), { code: 'InvalidPartOrder', status: 400 })
    await client.send(new CompleteMultipartUploadCommand({
      Bucket: 'big', Key: 'copy.bin', UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: first.CopyPartResult?.ETag }, { PartNumber: 2, ETag: second.ETag }] }
    }))
    const copied = Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: 'big', Key: 'copy.bin' }))).Body!.transformToByteArray())
    t.ok(copied.equals(Buffer.concat([content.subarray(0, 5 * 1024 * 1024), Buffer.from('tail')])), 'a part copied from a range of an object')

    const small = await client.send(new CreateMultipartUploadCommand({ Bucket: 'big', Key: 'small.bin' }))
    const tiny = await client.send(new UploadPartCommand({ Bucket: 'big', Key: 'small.bin', UploadId: small.UploadId, PartNumber: 1, Body: 'a' }))
    const tinier = await client.send(new UploadPartCommand({ Bucket: 'big', Key: 'small.bin', UploadId: small.UploadId, PartNumber: 2, Body: 'b' }))
    t.match(await refusal(client.send(new CompleteMultipartUploadCommand({
      Bucket: 'big', Key: 'small.bin', UploadId: small.UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: tiny.ETag }, { PartNumber: 2, ETag: tinier.ETag }] }
    }))), { code: 'EntityTooSmall', status: 400 }, 'every part but the last is 5 MiB at least')
    await client.send(new AbortMultipartUploadCommand({ Bucket: 'big', Key: 'small.bin', UploadId: small.UploadId }))
    t.match(await refusal(client.send(new ListPartsCommand({ Bucket: 'big', Key: 'small.bin', UploadId: small.UploadId }))), { code: 'NoSuchUpload', status: 404 })
    t.match((await app.inject({ url: '/api/usage', headers: alice })).json(), { uploadBytes: 0 }, 'an abort gives the room back')
    t.match(await refusal(client.send(new GetObjectCommand({ Bucket: 'big', Key: 'small.bin' }))), { code: 'NoSuchKey' })

    const over = await client.send(new CreateMultipartUploadCommand({ Bucket: 'big', Key: 'over.bin' }))
    t.match(await refusal(client.send(new UploadPartCommand({ Bucket: 'big', Key: 'over.bin', UploadId: over.UploadId, PartNumber: 1, Body: Buffer.alloc(30 * 1024 * 1024) }))),
      { code: 'QuotaExceeded', status: 403 }, 'a part over the quota')
    const other = clientOf(endpoint, (await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: bearer(idp.token({ sub: `parts-other-${driver}` })) })).json() as Credentials)
    t.teardown(() => other.destroy())
    await other.send(new CreateBucketCommand({ Bucket: 'big' }))
    t.match(await refusal(other.send(new UploadPartCommand({ Bucket: 'big', Key: 'over.bin', UploadId: over.UploadId, PartNumber: 1, Body: 'x' }))), { code: 'NoSuchUpload' }, 'another user\'s upload is none of theirs')
  })
}

for (const driver of DRIVERS) {
  t.test(`${driver}: bodies are checked as S3 checks them, and a body that fails a check leaves the object as it was`, async (t) => {
    const { app, close } = await buildTestApp({ driver, s3, idp, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY } })
    t.teardown(close)
    const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
    const credentials = (await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: bearer(idp.token({ sub: 'payloads' })) })).json() as Credentials
    const client = clientOf(endpoint, credentials)
    t.teardown(() => client.destroy())
    await client.send(new CreateBucketCommand({ Bucket: 'checked' }))
    await client.send(new PutObjectCommand({ Bucket: 'checked', Key: 'file.bin', Body: 'the first' }))
    const current = async () => await text((await client.send(new GetObjectCommand({ Bucket: 'checked', Key: 'file.bin' }))).Body)
    const url = `${endpoint}/checked/file.bin`
    const chunks = [randomBytes(64 * 1024), randomBytes(64 * 1024), randomBytes(100)]
    const put = async ({ headers, body }: { headers: Record<string, string>, body: Buffer }) => {
      const answer = await fetch(url, { method: 'PUT', headers, body: new Uint8Array(body) })
      return { status: answer.status, text: await answer.text() }
    }

    t.equal((await put(await signedChunks(url, credentials, chunks))).status, 200, 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD, every chunk signed')
    t.ok(Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: 'checked', Key: 'file.bin' }))).Body!.transformToByteArray()).equals(Buffer.concat(chunks)))
    await client.send(new PutObjectCommand({ Bucket: 'checked', Key: 'file.bin', Body: 'the first' }))
    for (const tamper of [0, 2, 3]) {
      const refused = await put(await signedChunks(url, credentials, chunks, { tamper }))
      t.equal(refused.status, 403, `chunk ${tamper} signed wrongly`)
      t.match(refused.text, /<Code>SignatureDoesNotMatch<\/Code>/)
    }
    const whole = await signedChunks(url, credentials, chunks)
    const cut = await put({ headers: whole.headers, body: whole.body.subarray(0, whole.body.length - 60) }).catch(() => ({ status: 0, text: '' }))
    t.not(cut.status, 200, 'a body cut short is not stored')

    const body = Buffer.from('hashed body')
    const wrongHash = await signed('PUT', url, credentials, { 'x-amz-content-sha256': createHash('sha256').update('another body').digest('hex') })
    const hashed = await put({ headers: wrongHash, body })
    t.equal(hashed.status, 400)
    t.match(hashed.text, /<Code>XAmzContentSHA256Mismatch<\/Code>/)
    const wrongMd5 = await signed('PUT', url, credentials, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'content-md5': createHash('md5').update('another').digest('base64') })
    const md5 = await put({ headers: wrongMd5, body })
    t.equal(md5.status, 400)
    t.match(md5.text, /<Code>BadDigest<\/Code>/)
    const wrongCrc = await signed('PUT', url, credentials, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'x-amz-checksum-crc32': 'AAAAAA==' })
    t.match((await put({ headers: wrongCrc, body })).text, /<Code>BadDigest<\/Code>/)
    const trailer = Buffer.from(`${body.length.toString(16)}\r\n${body.toString()}\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n`)
    const wrongTrailer = await signed('PUT', url, credentials, {
      'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER', 'content-encoding': 'aws-chunked', 'x-amz-trailer': 'x-amz-checksum-crc32', 'x-amz-decoded-content-length': String(body.length)
    })
    t.match((await put({ headers: wrongTrailer, body: trailer })).text, /<Code>BadDigest<\/Code>/, 'a trailer checksum that does not match')
    t.equal(await current(), 'the first', 'every refused body left the object as it was')
  })
}

t.test('every checksum the SDK sends in an aws-chunked trailer is checked: CRC32, CRC32C, CRC64NVME, SHA-1, SHA-256', async (t) => {
  const { app, close } = await buildTestApp({ driver: 'fs', s3, idp, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY } })
  t.teardown(close)
  const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
  const credentials = (await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: bearer(idp.token({ sub: 'trailers' })) })).json() as Credentials
  const client = clientOf(endpoint, credentials)
  t.teardown(() => client.destroy())
  const content = randomBytes(200 * 1024)
  for (const algorithm of ['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'] as const) {
    // A stream of known length: the SDK sends it aws-chunked, its checksum in the trailer.
    const key = `${algorithm.toLowerCase()}.bin`
    await client.send(new CreateBucketCommand({ Bucket: 'trailers' }))
    await client.send(new PutObjectCommand({ Bucket: 'trailers', Key: key, Body: Readable.from([content.subarray(0, 70_000), content.subarray(70_000)]), ContentLength: content.length, ChecksumAlgorithm: algorithm }))
    const got = await client.send(new GetObjectCommand({ Bucket: 'trailers', Key: key }))
    t.ok(Buffer.from(await got.Body!.transformToByteArray()).equals(content), `${algorithm}: stored whole`)
  }
  const url = `${endpoint}/trailers/forged.bin`
  const body = Buffer.from('the bytes sent')
  for (const [name, forged] of [['x-amz-checksum-crc64nvme', 'AAAAAAAAAAA='], ['x-amz-checksum-sha256', createHash('sha256').update('other bytes').digest('base64')]]) {
    const headers = await signed('PUT', url, credentials, {
      'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER', 'content-encoding': 'aws-chunked', 'x-amz-trailer': name, 'x-amz-decoded-content-length': String(body.length)
    })
    const answer = await fetch(url, { method: 'PUT', headers, body: `${body.length.toString(16)}\r\n${body.toString()}\r\n0\r\n${name}:${forged}\r\n\r\n` })
    t.equal(answer.status, 400, `${name}: a forged trailer`)
    t.match(await answer.text(), /<Code>BadDigest<\/Code>/)
  }
  t.equal((await refusal(client.send(new HeadObjectCommand({ Bucket: 'trailers', Key: 'forged.bin' })))).status, 404, 'nothing published')
})

t.test('virtual-hosted style with S3_API_DOMAIN; metrics; failed signatures count against the address\'s failure limit', async (t) => {
  const { app, close } = await buildTestApp({ idp, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY, S3_API_DOMAIN: 's3.localhost', AUTH_FAILURES_PER_ADDRESS: '3', METRICS_PORT: '0' } })
  t.teardown(close)
  const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
  const port = new URL(endpoint).port
  const credentials = (await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: bearer(idp.token({ sub: 'hosted' })) })).json() as Credentials
  // bucket.s3.localhost, reached at 127.0.0.1 with its Host header, as a wildcard DNS name would be.
  const hosted = new S3Client({
    endpoint: `http://s3.localhost:${port}`, region: 'us-east-1', credentials, maxAttempts: 1,
    requestHandler: { requestTimeout: 10_000, httpAgent: undefined }
  })
  hosted.middlewareStack.add((next) => async (args) => {
    const request = args.request as { hostname: string, headers: Record<string, string> }
    request.headers.host = `${request.hostname}:${port}`
    request.hostname = '127.0.0.1'
    return await next(args)
  }, { step: 'finalizeRequest', priority: 'low' })
  t.teardown(() => hosted.destroy())
  await hosted.send(new CreateBucketCommand({ Bucket: 'hosted-bucket' }))
  await hosted.send(new PutObjectCommand({ Bucket: 'hosted-bucket', Key: 'a.txt', Body: 'virtual' }))
  const path = clientOf(endpoint, credentials)
  t.teardown(() => path.destroy())
  t.equal(await text((await path.send(new GetObjectCommand({ Bucket: 'hosted-bucket', Key: 'a.txt' }))).Body), 'virtual', 'the same object, path style')
  t.match(await app.stowageMetrics!.registry.metrics(), /stowage_http_requests_total\{route="\/\*",method="PUT",status="200"\} 1/, 'the endpoint\'s requests are counted')

  const wrong = clientOf(endpoint, { ...credentials, secretAccessKey: 'wrong' + credentials.secretAccessKey.slice(5) })
  t.teardown(() => wrong.destroy())
  for (let attempt = 0; attempt < 3; attempt++) t.match(await refusal(wrong.send(new ListBucketsCommand({}))), { code: 'SignatureDoesNotMatch' })
  t.match(await refusal(path.send(new ListBucketsCommand({}))), { code: 'SlowDown', status: 503 }, 'the address waits, whatever it signs with')
})

t.test('x-amz-meta-* is kept with the content it came with: copied, replaced, carried by multipart, gone once the file is replaced elsewhere', async (t) => {
  const { app, close } = await buildTestApp({ idp, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY } })
  t.teardown(close)
  const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
  const alice = bearer(idp.token({ sub: 'metadata' }))
  const client = clientOf(endpoint, (await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: alice })).json() as Credentials)
  t.teardown(() => client.destroy())
  await client.send(new CreateBucketCommand({ Bucket: 'meta' }))
  const metadataOf = async (Key: string) => (await client.send(new HeadObjectCommand({ Bucket: 'meta', Key }))).Metadata

  await client.send(new PutObjectCommand({ Bucket: 'meta', Key: 'a.txt', Body: 'a', Metadata: { mtime: '1700000000', owner: 'alice' } }))
  t.same(await metadataOf('a.txt'), { mtime: '1700000000', owner: 'alice' })
  t.same((await client.send(new GetObjectCommand({ Bucket: 'meta', Key: 'a.txt' }))).Metadata, { mtime: '1700000000', owner: 'alice' })
  await client.send(new CopyObjectCommand({ Bucket: 'meta', Key: 'b.txt', CopySource: 'meta/a.txt' }))
  t.same(await metadataOf('b.txt'), { mtime: '1700000000', owner: 'alice' }, 'copied with the object')
  await client.send(new CopyObjectCommand({ Bucket: 'meta', Key: 'a.txt', CopySource: 'meta/a.txt', MetadataDirective: 'REPLACE', Metadata: { mtime: '1800000000' } }))
  t.same(await metadataOf('a.txt'), { mtime: '1800000000' }, 'replaced by a copy onto itself (rclone sets a time so)')
  t.equal((await app.inject({ method: 'PUT', url: '/api/raw/meta/a.txt', headers: alice, payload: 'other' })).statusCode, 200)
  t.same(await metadataOf('a.txt'), {}, 'a file replaced through the API has none')
  t.match(await refusal(client.send(new PutObjectCommand({ Bucket: 'meta', Key: 'c.txt', Body: 'c', Metadata: { big: 'x'.repeat(2100) } }))), { code: 'MetadataTooLarge', status: 400 })

  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: 'meta', Key: 'parts.bin', Metadata: { source: 'multipart' } }))
  const part = await client.send(new UploadPartCommand({ Bucket: 'meta', Key: 'parts.bin', UploadId, PartNumber: 1, Body: 'p' }))
  await client.send(new CompleteMultipartUploadCommand({ Bucket: 'meta', Key: 'parts.bin', UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] } }))
  t.same(await metadataOf('parts.bin'), { source: 'multipart' })
})

t.test('a version is read, copied and deleted by its versionId', async (t) => {
  const { app, close } = await buildTestApp({ idp, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY } })
  t.teardown(close)
  const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
  const client = clientOf(endpoint, (await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: bearer(idp.token({ sub: 'versioned' })) })).json() as Credentials)
  t.teardown(() => client.destroy())
  await client.send(new CreateBucketCommand({ Bucket: 'kept' }))
  await client.send(new PutObjectCommand({ Bucket: 'kept', Key: 'a.txt', Body: 'first' }))
  await client.send(new PutObjectCommand({ Bucket: 'kept', Key: 'a.txt', Body: 'second' }))
  const { Versions } = await client.send(new ListObjectVersionsCommand({ Bucket: 'kept' }))
  t.match(Versions, [{ Key: 'a.txt', VersionId: 'null', IsLatest: true }, { Key: 'a.txt', IsLatest: false, Size: 5 }])
  const id = Versions![1].VersionId!
  t.equal(await text((await client.send(new GetObjectCommand({ Bucket: 'kept', Key: 'a.txt', VersionId: id }))).Body), 'first')
  t.match(await refusal(client.send(new GetObjectCommand({ Bucket: 'kept', Key: 'other.txt', VersionId: id }))), { code: 'NoSuchVersion', status: 404 }, 'a version of another key')
  t.match(await refusal(client.send(new DeleteObjectCommand({ Bucket: 'kept', Key: 'other.txt', VersionId: id }))), { code: 'NoSuchVersion', status: 404 }, 'is not deleted by that key either')
  await client.send(new CopyObjectCommand({ Bucket: 'kept', Key: 'restored.txt', CopySource: `kept/a.txt?versionId=${id}` }))
  t.equal(await text((await client.send(new GetObjectCommand({ Bucket: 'kept', Key: 'restored.txt' }))).Body), 'first', 'copied from the version')
  await client.send(new DeleteObjectCommand({ Bucket: 'kept', Key: 'a.txt', VersionId: id }))
  t.match(await refusal(client.send(new HeadObjectCommand({ Bucket: 'kept', Key: 'a.txt', VersionId: id }))), { status: 404 }, 'gone for good')
  t.equal(await text((await client.send(new GetObjectCommand({ Bucket: 'kept', Key: 'a.txt' }))).Body), 'second', 'the file itself stays')

  // Pages of versions: max-keys counts entries, and a page may end inside a key's versions.
  for (const body of ['b1', 'b2', 'b3', 'b4']) await client.send(new PutObjectCommand({ Bucket: 'kept', Key: 'b.txt', Body: body }))
  await client.send(new PutObjectCommand({ Bucket: 'kept', Key: 'c.txt', Body: 'c' }))
  const whole = (await client.send(new ListObjectVersionsCommand({ Bucket: 'kept' }))).Versions!.map(({ Key, VersionId }) => `${Key} ${VersionId}`)
  t.equal(whole.length, 7, 'a.txt, restored.txt, b.txt and its three versions, c.txt')
  for (const MaxKeys of [1, 2, 3]) {
    const paged: string[] = []
    let markers: { KeyMarker?: string, VersionIdMarker?: string } = {}
    for (let pages = 0; pages < 20; pages++) {
      const page = await client.send(new ListObjectVersionsCommand({ Bucket: 'kept', MaxKeys, ...markers }))
      t.ok((page.Versions ?? []).length <= MaxKeys, `at most ${MaxKeys} a page`)
      paged.push(...(page.Versions ?? []).map(({ Key, VersionId }) => `${Key} ${VersionId}`))
      if (!page.IsTruncated) break
      markers = { KeyMarker: page.NextKeyMarker, VersionIdMarker: page.NextVersionIdMarker }
    }
    t.same(paged, whole, `every version once, in order, in pages of ${MaxKeys}`)
  }
})

t.test('S3 answers as S3 gives them: writes into a missing bucket, metadata on overwrite, url encoding, empty delimiters, If-None-Match, digests, copy ranges, bucket dates and configurations', async (t) => {
  const logs = captureLogs()
  const { app, close } = await buildTestApp({ idp, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY, LOG_LEVEL: 'info' }, logStream: logs.stream })
  t.teardown(close)
  const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
  const alice = bearer(idp.token({ sub: 'conformance' }))
  const credentials = (await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: alice })).json() as Credentials
  const client = clientOf(endpoint, credentials)
  t.teardown(() => client.destroy())

  t.match(await refusal(client.send(new PutObjectCommand({ Bucket: 'phtos', Key: 'x.jpg', Body: 'typo' }))), { code: 'NoSuchBucket', status: 404 }, 'a typo makes no bucket')
  t.match(await refusal(client.send(new CreateMultipartUploadCommand({ Bucket: 'phtos', Key: 'x.jpg' }))), { code: 'NoSuchBucket', status: 404 })
  t.same((await client.send(new ListBucketsCommand({}))).Buckets ?? [], [])
  const before = Date.now()
  await client.send(new CreateBucketCommand({ Bucket: 'photos' }))
  const [bucket] = (await client.send(new ListBucketsCommand({}))).Buckets!
  t.ok(bucket.CreationDate!.getTime() >= before - 2000, `dated when it was made (${bucket.CreationDate!.toISOString()})`)
  t.match(await refusal(client.send(new CopyObjectCommand({ Bucket: 'phtos', Key: 'c.txt', CopySource: 'photos/a.txt' }))), { code: 'NoSuchBucket' })

  await client.send(new PutObjectCommand({ Bucket: 'photos', Key: 'a.txt', Body: 'same', Metadata: { camera: 'x100' } }))
  await client.send(new PutObjectCommand({ Bucket: 'photos', Key: 'a.txt', Body: 'same' }))
  t.same((await client.send(new HeadObjectCommand({ Bucket: 'photos', Key: 'a.txt' }))).Metadata, {}, 'an overwrite without x-amz-meta-* keeps none, even of the same content')

  await client.send(new PutObjectCommand({ Bucket: 'photos', Key: 'd/b c.txt', Body: 'b' }))
  const flat = await client.send(new ListObjectsV2Command({ Bucket: 'photos', Delimiter: '' }))
  t.same(flat.Contents?.map(({ Key }) => Key), ['a.txt', 'd/b c.txt'], 'an empty delimiter is none')
  const raw = await fetch(await getSignedUrl(client, new ListObjectsV2Command({ Bucket: 'photos', EncodingType: 'url' }), { expiresIn: 60 }))
  t.match(await raw.text(), /<Key>d\/b%20c.txt<\/Key>/, 'a space is %20')

  const { ETag } = await client.send(new HeadObjectCommand({ Bucket: 'photos', Key: 'a.txt' }))
  t.match(await refusal(client.send(new GetObjectCommand({ Bucket: 'photos', Key: 'a.txt', IfNoneMatch: ETag }))), { status: 304 })
  t.match(await refusal(client.send(new GetObjectCommand({ Bucket: 'photos', Key: 'a.txt', IfNoneMatch: ETag!.slice(1, -1) }))), { status: 304 }, 'an ETag without its quotes too')

  const md5 = await fetch(`${endpoint}/photos/md5.txt`, { method: 'PUT', headers: await signed('PUT', `${endpoint}/photos/md5.txt`, credentials, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'content-md5': 'AAAA' }), body: 'x' })
  t.equal(md5.status, 400)
  t.match(await md5.text(), /<Code>InvalidDigest<\/Code>/)

  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: 'photos', Key: 'parts.bin' }))
  t.match(await refusal(client.send(new UploadPartCopyCommand({ Bucket: 'photos', Key: 'parts.bin', UploadId, PartNumber: 1, CopySource: 'photos/a.txt', CopySourceRange: 'bytes=0-99' }))),
    { code: 'InvalidRange', status: 416 }, 'a copy range past the source')

  const configuration = async (query: string) => {
    const url = `${endpoint}/photos?${query}`
    const answer = await fetch(url, { headers: await signed('GET', url, credentials, { 'x-amz-content-sha256': createHash('sha256').update('').digest('hex') }) })
    return { status: answer.status, text: await answer.text() }
  }
  for (const [query, code] of [['policy', 'NoSuchBucketPolicy'], ['encryption', 'ServerSideEncryptionConfigurationNotFoundError'], ['cors', 'NoSuchCORSConfiguration'], ['tagging', 'NoSuchTagSet'], ['lifecycle', 'NoSuchLifecycleConfiguration']]) {
    const answer = await configuration(`${query}=`)
    t.equal(answer.status, 404, query)
    t.match(answer.text, new RegExp(`<Code>${code}</Code>`), query)
  }
  const acl = await configuration('acl=')
  t.equal(acl.status, 200)
  t.match(acl.text, /<AccessControlPolicy[^>]*><Owner><ID>conformance<\/ID>.*<Permission>FULL_CONTROL<\/Permission>/)
  t.equal((await configuration('logging=')).status, 501)
  t.same(logs.entries.filter(({ level }) => Number(level) >= 50), [], 'a refusal, 501 included, is no error in the log')
  t.ok(logs.entries.some(({ msg, code }) => msg === 'S3 request refused' && code === 'NotImplemented'))
})

t.test('an S3 credential made to skip the trash deletes for good; others to the trash; a SigV2 presigned URL is told why it is refused', async (t) => {
  const { app, close } = await buildTestApp({ idp, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY } })
  t.teardown(close)
  const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
  const alice = bearer(idp.token({ sub: 'trash-skipper' }))
  const made = await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: alice, payload: { name: 'restic', skipTrash: true } })
  t.match(made.json(), { name: 'restic', skipTrash: true })
  const skipping = clientOf(endpoint, made.json() as Credentials)
  const keeping = clientOf(endpoint, (await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: alice, payload: {} })).json() as Credentials)
  t.teardown(() => { skipping.destroy(); keeping.destroy() })
  await keeping.send(new CreateBucketCommand({ Bucket: 'repo' }))
  for (const Key of ['locks/1', 'locks/2', 'locks/3', 'kept.txt']) await keeping.send(new PutObjectCommand({ Bucket: 'repo', Key, Body: Key }))
  await skipping.send(new DeleteObjectCommand({ Bucket: 'repo', Key: 'locks/1' }))
  await skipping.send(new DeleteObjectsCommand({ Bucket: 'repo', Delete: { Objects: [{ Key: 'locks/2' }] } }))
  await keeping.send(new DeleteObjectCommand({ Bucket: 'repo', Key: 'locks/3' }))
  const trash = (await app.inject({ url: '/api/trash', headers: alice })).json() as { items: Array<{ key: string }> }
  t.same(trash.items.map(({ key }) => key), ['repo/locks/3'], 'only the other credential\'s delete went to the trash')
  const listed = (await app.inject({ url: '/api/s3-credentials', headers: alice })).json() as { credentials: Array<{ name: string, skipTrash: boolean }> }
  t.same(listed.credentials.map(({ name, skipTrash }) => [name, skipTrash]), [['restic', true], ['s3', false]])

  const sigV2 = await fetch(`${endpoint}/repo/kept.txt?AWSAccessKeyId=SKIAEXAMPLE&Expires=9999999999&Signature=abc%3D`)
  t.equal(sigV2.status, 400)
  t.match(await sigV2.text(), /Signature Version 2 is not supported.*s3v4/)
})
