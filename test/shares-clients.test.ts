import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createKeyIn } from './helpers/keys.js'
import { startS3Server } from './helpers/s3.js'
import { run } from './helpers/s3-clients.js'
import { startService } from './helpers/service.js'
import { waitFor } from './helpers/wait.js'

// A shared folder reached by real clients, as its grantees run them (DESIGN §13): the AWS CLI and
// rclone's s3 backend through the S3 endpoint (the mount is a bucket), rclone's webdav backend
// through WebDAV (the mount is a collection). An editor's copies are the owner's files; a viewer's
// are refused, with nothing stored.

// Real programs, several a driver: more than the suite's default on a busy machine.
t.setTimeout(300_000)

const s3 = await startS3Server()
t.teardown(() => s3.close())

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: aws s3 cp and rclone (s3 and webdav backends) into an editor's share land at the owner's; into a viewer's they are refused`, async (t) => {
    const service = await startService(t, { driver, s3, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY: randomBytes(32).toString('base64') } })
    await waitFor(() => service.server.logs.some(({ msg }) => msg === 'S3 endpoint ready'), { what: 'the S3 endpoint' })
    const endpoint = `http://127.0.0.1:${new URL(service.server.logs.find(({ msg }) => msg === 'S3 endpoint ready')!.address as string).port}`
    const api = async (key: string, path: string, init: { method?: string, body?: string | object } = {}) => {
      const body = typeof init.body === 'object' ? JSON.stringify(init.body) : init.body
      return await fetch(`${service.url}${path}`, { method: init.method ?? 'GET', headers: { authorization: `Bearer ${key}`, ...typeof init.body === 'object' ? { 'content-type': 'application/json' } : {} }, body })
    }
    // alice owns the folder; bea views it, cai edits it (each known to the service once they have signed in).
    const alice = service.key
    const [bea, cai] = [await createKeyIn(service.databaseUrl, 'bea'), await createKeyIn(service.databaseUrl, 'cai')]
    for (const key of [bea, cai]) t.equal((await api(key, '/api/me')).status, 200)
    t.equal((await api(alice, '/api/raw/team/readme.txt', { method: 'PUT', body: 'read me' })).status, 200)
    for (const [userId, role] of [['bea', 'viewer'], ['cai', 'editor']]) {
      const made = await api(alice, '/api/shares', { method: 'POST', body: { path: 'team', with: { userId }, role } })
      t.equal(made.status, 201, await made.text())
    }
    const ownersFiles = async () => ((await (await api(alice, '/api/files?prefix=team/')).json()) as { files: Array<{ key: string }> }).files.map(({ key }) => key)

    const home = await mkdtemp(join(tmpdir(), 'stowage-shares-clients-'))
    t.teardown(() => rm(home, { recursive: true, force: true }))
    const local = join(home, 'note.txt')
    await writeFile(local, 'from a client')
    const clientsOf = async (userId: string, key: string) => {
      const made = await api(key, '/api/s3-credentials', { method: 'POST', body: { name: 'clients' } })
      const { accessKeyId, secretAccessKey } = await made.json() as { accessKeyId: string, secretAccessKey: string }
      const env = { PATH: process.env.PATH, HOME: home, AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_DEFAULT_REGION: 'us-east-1', AWS_CONFIG_FILE: join(home, 'aws-config') }
      const obscured = (await run('rclone', ['obscure', key], { PATH: process.env.PATH, HOME: home })).stdout.trim()
      const remotes = {
        RCLONE_CONFIG_STOW_TYPE: 's3', RCLONE_CONFIG_STOW_PROVIDER: 'Other', RCLONE_CONFIG_STOW_ENDPOINT: endpoint,
        RCLONE_CONFIG_STOW_ACCESS_KEY_ID: accessKeyId, RCLONE_CONFIG_STOW_SECRET_ACCESS_KEY: secretAccessKey, RCLONE_CONFIG_STOW_REGION: 'us-east-1',
        RCLONE_CONFIG_DAV_TYPE: 'webdav', RCLONE_CONFIG_DAV_URL: `${service.url}/dav/`, RCLONE_CONFIG_DAV_VENDOR: 'other', RCLONE_CONFIG_DAV_USER: userId, RCLONE_CONFIG_DAV_PASS: obscured
      }
      // A refusal is final: no retries, which would only repeat it.
      const rclone = (...args: string[]) => run('rclone', ['--config', join(home, 'rclone.conf'), '--retries', '1', '--low-level-retries', '1', ...args], { ...env, ...remotes })
      return {
        aws: (...args: string[]) => run('/usr/bin/aws', ['--endpoint-url', endpoint, '--no-cli-pager', ...args], env),
        rclone
      }
    }
    const viewer = await clientsOf('bea', bea)
    const editor = await clientsOf('cai', cai)

    const listed = await editor.aws('s3', 'ls', 's3://team/')
    t.match(listed.stdout, /readme\.txt/, 'the mount is a bucket to the AWS CLI')
    const byAws = await editor.aws('s3', 'cp', '--no-progress', local, 's3://team/by-aws.txt')
    t.equal(byAws.status, 0, byAws.stderr)
    const byRcloneS3 = await editor.rclone('copyto', local, 'stow:team/by-rclone-s3.txt')
    t.equal(byRcloneS3.status, 0, byRcloneS3.stderr)
    const byRcloneDav = await editor.rclone('copyto', local, 'dav:team/by-rclone-dav.txt')
    t.equal(byRcloneDav.status, 0, byRcloneDav.stderr)
    for (const name of ['by-aws.txt', 'by-rclone-s3.txt', 'by-rclone-dav.txt']) {
      t.equal(await (await api(alice, `/api/raw/team/${name}`)).text(), 'from a client', `the editor's ${name} is the owner's file`)
    }

    const before = await ownersFiles()
    const refusedAws = await viewer.aws('s3', 'cp', '--no-progress', local, 's3://team/by-viewer.txt')
    t.not(refusedAws.status, 0, 'aws s3 cp by a viewer fails')
    t.match(refusedAws.stderr, /AccessDenied/)
    const refusedS3 = await viewer.rclone('copyto', local, 'stow:team/by-viewer-s3.txt')
    t.not(refusedS3.status, 0, 'rclone (s3) by a viewer fails')
    t.match(refusedS3.stderr, /AccessDenied|403/)
    const refusedDav = await viewer.rclone('copyto', local, 'dav:team/by-viewer-dav.txt')
    t.not(refusedDav.status, 0, 'rclone (webdav) by a viewer fails')
    t.match(refusedDav.stderr, /403|Forbidden/)
    t.same(await ownersFiles(), before, 'nothing stored at the owner\'s')
    const read = await viewer.rclone('cat', 'dav:team/readme.txt')
    t.equal(read.stdout, 'read me', 'a viewer reads through the same client')
  })
}
