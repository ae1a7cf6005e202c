import t, { type Test } from 'tap'
import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI_COMMAND } from './helpers/cli.js'
import { startS3Server } from './helpers/s3.js'
import { startService } from './helpers/service.js'
import { waitFor } from './helpers/wait.js'

// The S3 endpoint driven by the programs people use, as Debian installs them, against a service
// process on each driver.

const s3 = await startS3Server()
t.teardown(() => s3.close())

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/** Runs a program; resolves with its exit status and output (`input` on its standard input). */
function run (command: string, args: string[], env: Record<string, string | undefined>, input?: Buffer) {
  return new Promise<{ status: number | null, stdout: string, stderr: string }>((resolve, reject) => {
    const child = spawn(command, args, { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (text: string) => { stdout += text })
    child.stderr.setEncoding('utf8').on('data', (text: string) => { stderr += text })
    child.on('error', reject).on('close', (status) => resolve({ status, stdout, stderr }))
    child.stdin.end(input)
  })
}

/** A service with its S3 endpoint, an S3 credential for alice, and a folder for the clients' files. */
async function setup (t: Test, driver: 'fs' | 's3') {
  const service = await startService(t, { driver, s3, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY: randomBytes(32).toString('base64') } })
  await waitFor(() => service.server.logs.some(({ msg }) => msg === 'S3 endpoint ready'), { what: 'the S3 endpoint' })
  const address = service.server.logs.find(({ msg }) => msg === 'S3 endpoint ready')!.address as string
  const endpoint = `http://127.0.0.1:${new URL(address).port}`
  const made = await fetch(`${service.url}/api/s3-credentials`, { method: 'POST', headers: { ...service.auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'clients' }) })
  const { accessKeyId, secretAccessKey } = await made.json() as { accessKeyId: string, secretAccessKey: string }
  const home = await mkdtemp(join(tmpdir(), 'stowage-s3-clients-'))
  t.teardown(() => rm(home, { recursive: true, force: true }))
  // A CA bundle set for other tools makes rclone refuse plain http: none here, as on a person's machine.
  const env = { PATH: process.env.PATH, HOME: home, AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_DEFAULT_REGION: 'us-east-1', AWS_CONFIG_FILE: join(home, 'aws-config') }
  /** The files of a folder of the service, as the file API lists them. */
  const listed = async (prefix: string) => {
    const answer = await fetch(`${service.url}/api/files?prefix=${encodeURIComponent(prefix)}`, { headers: service.auth })
    return ((await answer.json()) as { files: Array<{ key: string }> }).files.map(({ key }) => key)
  }
  return { service, endpoint, accessKeyId, secretAccessKey, home, env, listed }
}

/** A tree of files, with a name that needs encoding, and one large enough for multipart uploads. */
async function makeTree (root: string) {
  const files: Record<string, Buffer> = {
    'a.txt': Buffer.from('alpha'),
    'nested/déjà vu + more.md': Buffer.from('# déjà'),
    'nested/deep/b.bin': randomBytes(1000),
    'large.bin': randomBytes(20 * 1024 * 1024 + 17)
  }
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true })
    await writeFile(join(root, path), content)
  }
  return files
}

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

  t.test(`${driver}: s3cmd: mb, put (multipart above 15 MiB), get, ls, sync, del, rb`, async (t) => {
    const { endpoint, env, home, accessKeyId, secretAccessKey } = await setup(t, driver)
    const host = new URL(endpoint).host
    const config = join(home, 's3cfg')
    await writeFile(config, `[default]\naccess_key = ${accessKeyId}\nsecret_key = ${secretAccessKey}\nhost_base = ${host}\nhost_bucket = ${host}\nuse_https = False\nsignature_v2 = False\nbucket_location = us-east-1\n`)
    const s3cmd = (...args: string[]) => run('s3cmd', ['-c', config, ...args], env)
    const tree = join(home, 'tree')
    const files = await makeTree(tree)

    t.equal((await s3cmd('mb', 's3://cmd-bucket')).status, 0)
    const put = await s3cmd('put', join(tree, 'large.bin'), 's3://cmd-bucket/large.bin')
    t.equal(put.status, 0, put.stderr)
    const got = join(home, 'got.bin')
    t.equal((await s3cmd('get', 's3://cmd-bucket/large.bin', got)).status, 0)
    t.equal(sha256(await readFile(got)), sha256(files['large.bin']))
    const sync = await s3cmd('sync', `${tree}/`, 's3://cmd-bucket/tree/')
    t.equal(sync.status, 0, sync.stderr)
    const ls = await s3cmd('ls', '-r', 's3://cmd-bucket/tree/')
    t.equal(ls.stdout.trim().split('\n').length, Object.keys(files).length)
    t.equal((await s3cmd('del', '--recursive', '--force', 's3://cmd-bucket')).status, 0)
    t.equal((await s3cmd('rb', 's3://cmd-bucket')).status, 0)
  })

  t.test(`${driver}: boto3: upload_file and download_file past the multipart threshold; 2,500 keys listed by its paginators`, async (t) => {
    const { endpoint, env, home, accessKeyId, secretAccessKey } = await setup(t, driver)
    const tree = join(home, 'tree')
    const files = await makeTree(tree)
    const script = `
import boto3, sys, hashlib
from boto3.s3.transfer import TransferConfig
from concurrent.futures import ThreadPoolExecutor
s3 = boto3.client('s3', endpoint_url=sys.argv[1], region_name='us-east-1', aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3])
s3.create_bucket(Bucket='boto-bucket')
config = TransferConfig(multipart_threshold=8 * 1024 * 1024, multipart_chunksize=8 * 1024 * 1024)
s3.upload_file(sys.argv[4], 'boto-bucket', 'large.bin', Config=config)
s3.download_file('boto-bucket', 'large.bin', sys.argv[5], Config=config)
with ThreadPoolExecutor(16) as pool:
    list(pool.map(lambda n: s3.put_object(Bucket='boto-bucket', Key='many/%04d' % n, Body=b'x'), range(2500)))
v2 = [o['Key'] for page in s3.get_paginator('list_objects_v2').paginate(Bucket='boto-bucket', Prefix='many/') for o in page.get('Contents', [])]
v1 = [o['Key'] for page in s3.get_paginator('list_objects').paginate(Bucket='boto-bucket', Prefix='many/') for o in page.get('Contents', [])]
print(len(v2), len(set(v2)), v2 == sorted(v2), len(v1), v1 == v2)
`
    await writeFile(join(home, 'boto.py'), script)
    const back = join(home, 'back.bin')
    const ran = await run('/usr/bin/python3', [join(home, 'boto.py'), endpoint, accessKeyId, secretAccessKey, join(tree, 'large.bin'), back], env)
    t.equal(ran.status, 0, ran.stderr)
    t.equal(ran.stdout.trim(), '2500 2500 True 2500 True', 'every key once, in order, by both listings')
    t.equal(sha256(await readFile(back)), sha256(files['large.bin']))
  })
}

t.test('the stowage CLI: s3-credentials create, ls and revoke; s3 profile, whose credential_process the AWS CLI runs for temporary credentials', async (t) => {
  const { service, endpoint, env, home } = await setup(t, 'fs')
  const stowage = (...args: string[]) => run(CLI_COMMAND[0], [...CLI_COMMAND.slice(1), ...args], env)
  t.equal((await stowage('login', '--url', service.url, '--api-key', service.key)).status, 0)
  const created = await stowage('s3-credentials', 'create', '--name', 'backup', '--json')
  t.equal(created.status, 0, created.stderr)
  const { accessKeyId } = JSON.parse(created.stdout) as { accessKeyId: string }
  t.match((await stowage('s3-credentials', 'ls')).stdout, new RegExp(`${accessKeyId}  backup  created `))
  t.equal((await stowage('s3-credentials', 'revoke', accessKeyId)).status, 0)
  t.notMatch((await stowage('s3-credentials', 'ls')).stdout, new RegExp(accessKeyId))

  const process = JSON.parse((await stowage('s3', 'credentials')).stdout) as Record<string, unknown>
  t.match(process, { Version: 1, AccessKeyId: /^SSIA/, SecretAccessKey: /\S/, SessionToken: /\S/, Expiration: /Z$/ })
  const profile = await stowage('s3', 'profile', '--endpoint', endpoint, '--name', 'mine')
  t.equal(profile.status, 0, profile.stderr)
  t.match(profile.stdout, /\[profile mine\]\ncredential_process = .+ s3 credentials\nendpoint_url = http:\/\/127\.0\.0\.1:\d+\nregion = us-east-1\n/)
  t.match(profile.stdout, /\[mine\]\ntype = s3\nprovider = Other\nenv_auth = true\nprofile = mine\n/)
  await writeFile(join(home, 'aws-config'), profile.stdout.split('\n\n')[0].split('\n').filter((line) => !line.startsWith('#')).join('\n') + '\n')
  const { AWS_ACCESS_KEY_ID: _id, AWS_SECRET_ACCESS_KEY: _secret, ...withoutKeys } = env
  // Debian's AWS CLI (2.9) predates endpoint_url in a profile (2.13): it is given on the line.
  const aws = await run('/usr/bin/aws', ['--profile', 'mine', '--endpoint-url', endpoint, 's3', 'mb', 's3://from-profile'], withoutKeys)
  t.equal(aws.status, 0, aws.stderr)
  t.match((await run('/usr/bin/aws', ['--profile', 'mine', '--endpoint-url', endpoint, 's3', 'ls'], withoutKeys)).stdout, /from-profile/, 'signed with the temporary credentials the CLI printed')
})
