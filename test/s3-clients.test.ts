import t from 'tap'
import { createHash, randomBytes } from 'node:crypto'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { startS3Server } from './helpers/s3.js'
import { makeTree, run, setupS3Service } from './helpers/s3-clients.js'

// The S3 endpoint driven by the AWS CLI and rclone, as Debian installs them, and by lib-storage, on each driver.

// Real programs, each moving tens of MiB: more than the suite's 120 s on a busy machine.
t.setTimeout(360_000)

const s3 = await startS3Server()
t.teardown(() => s3.close())

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const setup = (test: Parameters<typeof setupS3Service>[0], driver: 'fs' | 's3') => setupS3Service(test, driver, s3)

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: the AWS CLI: mb, cp (multipart above 8 MiB), sync, ls, rm, rb; s3api conditional writes, versions and multipart`, async (t) => {
    const { endpoint, env, home, listed } = await setup(t, driver)
    const aws = (...args: string[]) => run('/usr/bin/aws', ['--endpoint-url', endpoint, '--no-cli-pager', ...args], env)
    const tree = join(home, 'tree')
    const files = await makeTree(tree)

    t.equal((await aws('s3', 'mb', 's3://cli-bucket')).status, 0)
    const copied = await aws('s3', 'cp', '--no-progress', join(tree, 'large.bin'), 's3://cli-bucket/large.bin')
    t.equal(copied.status, 0, copied.stderr)
    const synced = await aws('s3', 'sync', '--no-progress', tree, 's3://cli-bucket/tree/')
    t.equal(synced.status, 0, synced.stderr)
    t.same((await listed('cli-bucket/tree/')).sort(), Object.keys(files).map((path) => `cli-bucket/tree/${path}`).sort(), 'every file, through the file API')
    t.equal((await aws('s3', 'sync', '--no-progress', tree, 's3://cli-bucket/tree/')).stdout, '', 'a second sync sends nothing')
    const ls = await aws('s3', 'ls', '--recursive', 's3://cli-bucket/tree/')
    t.match(ls.stdout, /déjà vu \+ more\.md/)
    const back = join(home, 'back.bin')
    t.equal((await aws('s3', 'cp', '--no-progress', 's3://cli-bucket/large.bin', back)).status, 0)
    t.equal(sha256(await readFile(back)), sha256(files['large.bin']))

    const conditional = await aws('s3api', 'put-object', '--bucket', 'cli-bucket', '--key', 'a.txt', '--body', join(tree, 'a.txt'))
    t.equal(conditional.status, 0, conditional.stderr)
    const { ETag } = JSON.parse(conditional.stdout) as { ETag: string }
    await writeFile(join(home, 'a2.txt'), 'alpha, again')
    t.equal((await aws('s3api', 'put-object', '--bucket', 'cli-bucket', '--key', 'a.txt', '--body', join(home, 'a2.txt'))).status, 0)
    const versions = JSON.parse((await aws('s3api', 'list-object-versions', '--bucket', 'cli-bucket', '--prefix', 'a.txt')).stdout) as { Versions: Array<{ VersionId: string, IsLatest: boolean, ETag: string }> }
    t.match(versions.Versions, [{ IsLatest: true, VersionId: 'null' }, { IsLatest: false, ETag }], 'the overwritten file is a version')
    const old = join(home, 'old.txt')
    t.equal((await aws('s3api', 'get-object', '--bucket', 'cli-bucket', '--key', 'a.txt', '--version-id', versions.Versions[1].VersionId, old)).status, 0)
    t.equal(await readFile(old, 'utf8'), 'alpha')

    const created = JSON.parse((await aws('s3api', 'create-multipart-upload', '--bucket', 'cli-bucket', '--key', 'parts.bin')).stdout) as { UploadId: string }
    const part = JSON.parse((await aws('s3api', 'upload-part', '--bucket', 'cli-bucket', '--key', 'parts.bin', '--part-number', '1', '--body', join(tree, 'a.txt'), '--upload-id', created.UploadId)).stdout) as { ETag: string }
    await writeFile(join(home, 'parts.json'), JSON.stringify({ Parts: [{ PartNumber: 1, ETag: part.ETag }] }))
    const completed = await aws('s3api', 'complete-multipart-upload', '--bucket', 'cli-bucket', '--key', 'parts.bin', '--upload-id', created.UploadId, '--multipart-upload', `file://${join(home, 'parts.json')}`)
    t.equal(completed.status, 0, completed.stderr)

    const refused = await aws('s3', 'rb', 's3://cli-bucket')
    t.not(refused.status, 0)
    t.match(refused.stderr, /BucketNotEmpty/)
    t.equal((await aws('s3', 'rm', '--recursive', 's3://cli-bucket/')).status, 0)
    t.equal((await aws('s3', 'rb', 's3://cli-bucket')).status, 0)
    t.equal((await aws('s3', 'ls')).stdout, '')
  })

  t.test(`${driver}: rclone (s3, provider Other): copy, check, lsf, sync, rcat of 100 MiB, purge`, async (t) => {
    const { endpoint, env, home, accessKeyId, secretAccessKey } = await setup(t, driver)
    const remote = { RCLONE_CONFIG_STOW_TYPE: 's3', RCLONE_CONFIG_STOW_PROVIDER: 'Other', RCLONE_CONFIG_STOW_ENDPOINT: endpoint, RCLONE_CONFIG_STOW_ACCESS_KEY_ID: accessKeyId, RCLONE_CONFIG_STOW_SECRET_ACCESS_KEY: secretAccessKey, RCLONE_CONFIG_STOW_REGION: 'us-east-1' }
    const rclone = (args: string[], input?: Buffer) => run('rclone', ['--config', join(home, 'rclone.conf'), ...args], { ...env, ...remote }, input)
    const tree = join(home, 'tree')
    const files = await makeTree(tree)

    t.equal((await rclone(['mkdir', 'stow:rclone-bucket'])).status, 0)
    const copy = await rclone(['copy', tree, 'stow:rclone-bucket/tree'])
    t.equal(copy.status, 0, copy.stderr)
    const check = await rclone(['check', tree, 'stow:rclone-bucket/tree'])
    t.equal(check.status, 0, check.stderr)
    t.same((await rclone(['lsf', '-R', '--files-only', 'stow:rclone-bucket/tree'])).stdout.trim().split('\n').sort(), Object.keys(files).sort())
    await writeFile(join(tree, 'a.txt'), 'changed')
    await rm(join(tree, 'nested/deep/b.bin'))
    const sync = await rclone(['sync', tree, 'stow:rclone-bucket/tree'])
    t.equal(sync.status, 0, sync.stderr)
    t.equal((await rclone(['check', tree, 'stow:rclone-bucket/tree'])).status, 0, 'in step after a sync that changed and deleted')
    const streamed = randomBytes(100 * 1024 * 1024)
    const rcat = await rclone(['rcat', 'stow:rclone-bucket/streamed.bin'], streamed)
    t.equal(rcat.status, 0, rcat.stderr)
    t.match((await rclone(['lsl', 'stow:rclone-bucket/streamed.bin'])).stdout, /^\s*104857600 /)
    const cat = await rclone(['md5sum', 'stow:rclone-bucket/streamed.bin', '--download'])
    t.equal(cat.stdout.split(' ')[0], createHash('md5').update(streamed).digest('hex'), 'a stream of unknown length, in multipart pieces, arrives whole')
    const purge = await rclone(['purge', 'stow:rclone-bucket'])
    t.equal(purge.status, 0, purge.stderr)
    t.equal((await rclone(['lsd', 'stow:'])).stdout.trim(), '')
  })
}

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: @aws-sdk/lib-storage uploads 200 MiB in parts, with the SDK's default checksums, and it reads back whole`, async (t) => {
    const { endpoint, accessKeyId, secretAccessKey } = await setup(t, driver)
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } })
    t.teardown(() => client.destroy())
    const content = randomBytes(200 * 1024 * 1024)
    await client.send(new CreateBucketCommand({ Bucket: 'large-bucket' }))
    await new Upload({ client, params: { Bucket: 'large-bucket', Key: 'large.bin', Body: Readable.from([content]) }, partSize: 16 * 1024 * 1024, queueSize: 4 }).done()
    const got = await client.send(new GetObjectCommand({ Bucket: 'large-bucket', Key: 'large.bin' }))
    const hash = createHash('sha256')
    for await (const chunk of got.Body as Readable) hash.update(chunk as Buffer)
    t.equal(hash.digest('hex'), sha256(content))
  })
}
