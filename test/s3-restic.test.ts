import t from 'tap'
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { startS3Server } from './helpers/s3.js'
import { makeTree, run, setupS3Service } from './helpers/s3-clients.js'

// restic (Debian's, built on minio-go) backs a folder up to the S3 endpoint, checks every pack it
// wrote by reading it back, restores it, and prunes: the backup tool people point at any S3.

t.setTimeout(360_000)

const s3 = await startS3Server()
t.teardown(() => s3.close())

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: restic init, backup, check --read-data, restore, forget --prune, with a credential whose deletes skip the trash`, async (t) => {
    const { endpoint, env, home, listed, trash } = await setupS3Service(t, driver, s3, { skipTrash: true })
    const tree = join(home, 'tree')
    const files = await makeTree(tree)
    const resticEnv = { ...env, RESTIC_PASSWORD: 'correct horse battery staple', RESTIC_REPOSITORY: `s3:${endpoint}/backups`, RESTIC_CACHE_DIR: join(home, 'cache') }
    const restic = (...args: string[]) => run('restic', ['-o', 's3.region=us-east-1', ...args], resticEnv)

    const init = await restic('init')
    t.equal(init.status, 0, init.stderr)
    const first = await restic('backup', '--json', '--host', 'laptop', tree)
    t.equal(first.status, 0, first.stderr)
    t.ok((await listed('')).some((key) => key.startsWith('backups/data/')), 'its packs are files of the user')

    const check = await restic('check', '--read-data')
    t.equal(check.status, 0, check.stdout + check.stderr)
    t.match(check.stdout, /no errors were found/)

    const target = join(home, 'restored')
    const restore = await restic('restore', 'latest', '--target', target)
    t.equal(restore.status, 0, restore.stderr)
    for (const [path, content] of Object.entries(files)) {
      t.equal(sha256(await readFile(join(target, tree, path))), sha256(content), `${path} restored as it was`)
    }

    const second = await restic('backup', '--host', 'laptop', tree)
    t.equal(second.status, 0, second.stderr)
    const prune = await restic('forget', '--keep-last', '1', '--prune')
    t.equal(prune.status, 0, prune.stderr)
    const snapshots = await restic('snapshots', '--json')
    t.equal((JSON.parse(snapshots.stdout) as unknown[]).length, 1, 'one snapshot kept')
    t.equal((await restic('check')).status, 0, 'the repository is whole after the prune')
    t.same(await trash(), [], 'its lock files and pruned packs did not fill the trash')
  })
}
