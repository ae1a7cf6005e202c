import t from 'tap'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { paginateListObjectsV2, S3Client } from '@aws-sdk/client-s3'
import { startS3Server } from './helpers/s3.js'
import { run, setupS3Service } from './helpers/s3-clients.js'

// A bucket of 2,500 keys (past S3's page of 1,000) listed by every client, each over its own pages.

t.setTimeout(360_000)
const s3 = await startS3Server()
t.teardown(() => s3.close())

const KEYS = 2500

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: 2,500 keys listed whole, once each, by the AWS CLI, rclone, s3cmd, boto3's paginators and the AWS SDK's`, async (t) => {
    const { endpoint, env, home, accessKeyId, secretAccessKey } = await setupS3Service(t, driver, s3)
    const script = `
import boto3, sys
from concurrent.futures import ThreadPoolExecutor
s3 = boto3.client('s3', endpoint_url=sys.argv[1], region_name='us-east-1', aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3])
s3.create_bucket(Bucket='many-keys')
with ThreadPoolExecutor(16) as pool:
    list(pool.map(lambda n: s3.put_object(Bucket='many-keys', Key='k/%s%04d' % ('sub/' if n % 10 == 0 else '', n), Body=b'x'), range(${KEYS})))
v2 = [o['Key'] for page in s3.get_paginator('list_objects_v2').paginate(Bucket='many-keys') for o in page.get('Contents', [])]
v1 = [o['Key'] for page in s3.get_paginator('list_objects').paginate(Bucket='many-keys') for o in page.get('Contents', [])]
print(len(v2), len(set(v2)), v2 == sorted(v2), len(v1), v1 == v2)
`
    await writeFile(join(home, 'fill.py'), script)
    const filled = await run('/usr/bin/python3', [join(home, 'fill.py'), endpoint, accessKeyId, secretAccessKey], env)
    t.equal(filled.status, 0, filled.stderr)
    t.equal(filled.stdout.trim(), `${KEYS} ${KEYS} True ${KEYS} True`, 'boto3\'s paginators, list_objects_v2 and list_objects: every key once, in order')
    const lines = (text: string) => text.trim().split('\n').filter(Boolean)

    const aws = await run('/usr/bin/aws', ['--endpoint-url', endpoint, 's3', 'ls', '--recursive', 's3://many-keys/'], env)
    t.equal(lines(aws.stdout).length, KEYS, 'aws s3 ls --recursive')
    const api = await run('/usr/bin/aws', ['--endpoint-url', endpoint, 's3api', 'list-objects-v2', '--bucket', 'many-keys', '--page-size', '700', '--query', 'length(Contents)'], env)
    t.equal(api.stdout.trim(), String(KEYS), 'aws s3api list-objects-v2, pages of 700')
    const oneLevel = await run('/usr/bin/aws', ['--endpoint-url', endpoint, 's3', 'ls', 's3://many-keys/k/'], env)
    t.equal(lines(oneLevel.stdout).length, KEYS - KEYS / 10 + 1, 'one level: the files and the folder sub/')

    const remote = { RCLONE_CONFIG_STOW_TYPE: 's3', RCLONE_CONFIG_STOW_PROVIDER: 'Other', RCLONE_CONFIG_STOW_ENDPOINT: endpoint, RCLONE_CONFIG_STOW_ACCESS_KEY_ID: accessKeyId, RCLONE_CONFIG_STOW_SECRET_ACCESS_KEY: secretAccessKey, RCLONE_CONFIG_STOW_REGION: 'us-east-1' }
    const rclone = await run('rclone', ['--config', join(home, 'rclone.conf'), 'lsf', '-R', '--files-only', 'stow:many-keys'], { ...env, ...remote })
    t.equal(new Set(lines(rclone.stdout)).size, KEYS, 'rclone lsf -R')

    const config = join(home, 's3cfg')
    const host = new URL(endpoint).host
    await writeFile(config, `[default]\naccess_key = ${accessKeyId}\nsecret_key = ${secretAccessKey}\nhost_base = ${host}\nhost_bucket = ${host}\nuse_https = False\nsignature_v2 = False\n`)
    const s3cmd = await run('s3cmd', ['-c', config, 'ls', '-r', 's3://many-keys'], env)
    t.equal(lines(s3cmd.stdout).length, KEYS, 's3cmd ls -r')

    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } })
    t.teardown(() => client.destroy())
    const keys: string[] = []
    for await (const page of paginateListObjectsV2({ client, pageSize: 1000 }, { Bucket: 'many-keys' })) keys.push(...(page.Contents ?? []).map(({ Key }) => Key!))
    t.equal(new Set(keys).size, KEYS, 'the SDK\'s paginator')
    t.same(keys, [...keys].sort(), 'in key order')
  })
}
