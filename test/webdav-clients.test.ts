import t from 'tap'
import { randomBytes } from 'node:crypto'
import { request } from 'node:http'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { finderSequence, windowsSequence, type DavStep } from './helpers/dav-clients.js'
import { makeTree, run } from './helpers/s3-clients.js'
import { startS3Server } from './helpers/s3.js'
import { startService } from './helpers/service.js'

// WebDAV's real clients against a service process on each driver: rclone (webdav backend, vendor
// other), cadaver scripted, and what Finder and Windows send, replayed.

t.setTimeout(360_000)
const s3 = await startS3Server()
t.teardown(() => s3.close())

const basic = (key: string) => `Basic ${Buffer.from(`alice:${key}`).toString('base64')}`

/** One request as a client sends it (node:http: any method, a chunked body when asked). */
function send (url: string, { method, headers = {}, body }: { method: string, headers?: Record<string, string>, body?: string | Buffer }) {
  return new Promise<{ status: number, headers: Record<string, string | string[] | undefined>, body: Buffer }>((resolve, reject) => {
    const req = request(url, { method, headers }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }))
    }).on('error', reject)
    req.end(body)
  })
}

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: rclone's webdav backend copies, syncs, checks, lists, makes folders and purges`, async (t) => {
    const service = await startService(t, { driver, s3 })
    const home = await mkdtemp(join(tmpdir(), 'stowage-dav-rclone-'))
    t.teardown(() => rm(home, { recursive: true, force: true }))
    const obscured = await run('rclone', ['obscure', service.key], { PATH: process.env.PATH, HOME: home })
    const env = { PATH: process.env.PATH, HOME: home, RCLONE_CONFIG: join(home, 'rclone.conf'), RCLONE_WEBDAV_URL: `${service.url}/dav/`, RCLONE_WEBDAV_VENDOR: 'other', RCLONE_WEBDAV_USER: 'alice', RCLONE_WEBDAV_PASS: obscured.stdout.trim() }
    const rclone = async (...args: string[]) => {
      const result = await run('rclone', args, env)
      t.equal(result.status, 0, `rclone ${args.join(' ')}: ${result.stderr.slice(-2000)}`)
      return result.stdout
    }
    const local = join(home, 'tree')
    const files = await makeTree(local)
    await rclone('mkdir', ':webdav:backup')
    await rclone('copy', local, ':webdav:backup/copy')
    await rclone('check', local, ':webdav:backup/copy')
    if (driver === 'fs') {
      // As an ownCloud server: rclone then reads oc:checksums and compares by MD5 (every ETag on fs is one).
      const byHash = await run('rclone', ['check', '-v', local, ':webdav:backup/copy'], { ...env, RCLONE_WEBDAV_VENDOR: 'owncloud' })
      t.equal(byHash.status, 0, byHash.stderr.slice(-2000))
      t.notMatch(byHash.stderr, /no hash|hashes in common|not using a hash/i, 'a hash in common')
      t.match(byHash.stderr, /0 differences found/)
    }
    t.same((await rclone('lsf', '-R', '--files-only', ':webdav:backup/copy')).trim().split('\n').sort(), Object.keys(files).sort(), 'every file listed, a name that needs encoding included')
    await rclone('sync', local, ':webdav:backup/sync')
    await rm(join(local, 'a.txt'))
    await rclone('sync', local, ':webdav:backup/sync')
    t.notOk((await rclone('lsf', '-R', ':webdav:backup/sync')).includes('a.txt'), 'sync deleted what went away locally')
    const trash = await (await fetch(`${service.url}/api/trash`, { headers: service.auth })).json() as { items: Array<{ key: string }> }
    t.ok(trash.items.some((item) => item.key === 'backup/sync/a.txt'), 'to the trash')
    await rclone('copyto', ':webdav:backup/copy/nested/deep/b.bin', join(home, 'b.bin'))
    t.same(await readFile(join(home, 'b.bin')), files['nested/deep/b.bin'], 'read back whole')
    await rclone('purge', ':webdav:backup')
    t.equal((await rclone('lsf', ':webdav:')).trim(), '', 'purged, folders and all')
  })

  t.test(`${driver}: cadaver, scripted: mkcol, put, propset, lock, move, get`, async (t) => {
    const service = await startService(t, { driver, s3 })
    const home = await mkdtemp(join(tmpdir(), 'stowage-dav-cadaver-'))
    t.teardown(() => rm(home, { recursive: true, force: true }))
    await writeFile(join(home, '.netrc'), `machine 127.0.0.1\nlogin alice\npassword ${service.key}\n`, { mode: 0o600 })
    await writeFile(join(home, 'local.txt'), 'hello cadaver\n')
    const [local, back] = [join(home, 'local.txt'), join(home, 'back.txt')]
    // A folder that only holds what another front end put in it is dated too (not 1970).
    t.equal((await fetch(`${service.url}/api/raw/held/deep/x.txt`, { method: 'PUT', headers: service.auth, body: 'x' })).status, 200)
    const script = ['mkcol docs', 'cd docs', `put ${local} local.txt`, 'propset local.txt color blue', 'lock local.txt', `put ${local} local.txt`, 'unlock local.txt',
      'move local.txt renamed.txt', 'propget renamed.txt color', `get renamed.txt ${back}`, 'cd ..', 'ls', 'ls held', 'quit', ''].join('\n')
    const result = await run('cadaver', [`${service.url}/dav/`], { PATH: process.env.PATH, HOME: home }, Buffer.from(script))
    t.equal(result.status, 0, result.stdout + result.stderr)
    t.notMatch(result.stdout, /failed/i, result.stdout)
    t.match(result.stdout, /Value of color is: blue/, 'the property moved with the file')
    t.equal(await readFile(back, 'utf8'), 'hello cadaver\n')
    const year = new Date().getUTCFullYear()
    for (const folder of ['docs', 'held', 'deep']) t.match(result.stdout, new RegExp(`Coll:\\s+${folder}\\s+0\\s+\\w+\\s+\\d+\\s+(\\d\\d:\\d\\d|${year})`), `${folder} dated by cadaver`)
    t.notMatch(result.stdout, /1970/)
    const listed = await (await fetch(`${service.url}/api/files?prefix=docs/`, { headers: service.auth })).json() as { files: Array<{ key: string }> }
    t.same(listed.files.map(({ key }) => key), ['docs/renamed.txt'])
  })

  for (const [client, sequence] of [['macOS Finder', finderSequence], ['the Windows mini-redirector', windowsSequence]] as const) {
    t.test(`${driver}: ${client} mounts, copies a file in, renames it and deletes it`, async (t) => {
      const service = await startService(t, { driver, s3 })
      const content = randomBytes(300_000)
      const steps: DavStep[] = sequence('Report 2026.pdf', 'Report final.pdf', content)
      let token = ''
      for (const step of steps) {
        if (step.method === 'DELETE' && step.path === 'Report final.pdf') {
          const there = await send(`${service.url}/dav/Report%20final.pdf`, { method: 'GET', headers: { authorization: basic(service.key) } })
          t.equal(there.status, 200)
          t.ok(there.body.equals(content), 'the file is where the person put it, whole')
        }
        const fill = (text: string) => text.replaceAll('{token}', token).replaceAll('{origin}', service.url)
        const headers = Object.fromEntries(Object.entries(step.headers ?? {}).map(([name, value]) => [name, fill(value)]))
        // Windows and Finder ask OPTIONS before they authenticate.
        if (step.method !== 'OPTIONS') headers.authorization = basic(service.key)
        const answer = await send(`${service.url}/dav/${step.path.split('/').map(encodeURIComponent).join('/')}`, { method: step.method, headers, body: step.body })
        t.ok(step.expect.includes(answer.status), `${step.method} ${step.path}: ${answer.status} ${answer.body.toString().slice(0, 300)}`)
        if (step.method === 'LOCK') token = /^<(.+)>$/.exec(String(answer.headers['lock-token']))?.[1] ?? ''
        if (step.method === 'OPTIONS') t.match(answer.headers, { dav: '1, 2', 'ms-author-via': 'DAV' })
      }
      const trash = await (await fetch(`${service.url}/api/trash`, { headers: service.auth })).json() as { items: Array<{ key: string, size: number }> }
      t.ok(trash.items.some((item) => item.key === 'Report final.pdf' && item.size === content.length), 'deleted: in the trash, whole')
      // (The drivers' tests share one S3 bucket: only this test's files are looked for.)
      const left = await (await fetch(`${service.url}/api/files`, { headers: service.auth })).json() as { files: Array<{ key: string }> }
      t.same(left.files.filter(({ key }) => key.includes('Report')), [], 'nothing else left behind')
    })
  }
}
