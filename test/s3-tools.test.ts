import t from 'tap'
import { createHash } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CLI_COMMAND } from './helpers/cli.js'
import { startS3Server } from './helpers/s3.js'
import { makeTree, run, setupS3Service } from './helpers/s3-clients.js'

// The S3 endpoint driven by s3cmd, boto3 and the stowage CLI's S3 commands, on each driver.

// Real programs, each moving tens of MiB: more than the suite's 120 s on a busy machine.
t.setTimeout(360_000)

const s3 = await startS3Server()
t.teardown(() => s3.close())

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const setup = (test: Parameters<typeof setupS3Service>[0], driver: 'fs' | 's3') => setupS3Service(test, driver, s3)

for (const driver of ['fs', 's3'] as const) {
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

  t.test(`${driver}: boto3: upload_file and download_file past the multipart threshold (its paginators: s3-listing)`, async (t) => {
    const { endpoint, env, home, accessKeyId, secretAccessKey } = await setup(t, driver)
    const tree = join(home, 'tree')
    const files = await makeTree(tree)
    const script = `
import boto3, sys, hashlib
from boto3.s3.transfer import TransferConfig
s3 = boto3.client('s3', endpoint_url=sys.argv[1], region_name='us-east-1', aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3])
s3.create_bucket(Bucket='boto-bucket')
config = TransferConfig(multipart_threshold=8 * 1024 * 1024, multipart_chunksize=8 * 1024 * 1024)
s3.upload_file(sys.argv[4], 'boto-bucket', 'large.bin', Config=config)
s3.download_file('boto-bucket', 'large.bin', sys.argv[5], Config=config)
`
    await writeFile(join(home, 'boto.py'), script)
    const back = join(home, 'back.bin')
    const ran = await run('/usr/bin/python3', [join(home, 'boto.py'), endpoint, accessKeyId, secretAccessKey, join(tree, 'large.bin'), back], env)
    t.equal(ran.status, 0, ran.stderr)
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
  t.match(profile.stdout, new RegExp(`aws --profile mine --endpoint-url ${endpoint} s3 ls`), 'what works with an AWS CLI before 2.13 is said')
  await writeFile(join(home, 'aws-config'), profile.stdout.split('\n\n')[0].split('\n').filter((line) => !line.startsWith('#')).join('\n') + '\n')
  const { AWS_ACCESS_KEY_ID: _id, AWS_SECRET_ACCESS_KEY: _secret, ...withoutKeys } = env
  // Debian's AWS CLI (2.9) predates endpoint_url in a profile (2.13): it is given on the line.
  const aws = await run('/usr/bin/aws', ['--profile', 'mine', '--endpoint-url', endpoint, 's3', 'mb', 's3://from-profile'], withoutKeys)
  t.equal(aws.status, 0, aws.stderr)
  t.match((await run('/usr/bin/aws', ['--profile', 'mine', '--endpoint-url', endpoint, 's3', 'ls'], withoutKeys)).stdout, /from-profile/, 'signed with the temporary credentials the CLI printed')
})
