import t from 'tap'
import { spawn, execFileSync } from 'node:child_process'
import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { folderAtRepoDepth } from './helpers/repo-depth.js'
import { shellEnv } from './helpers/shell-env.js'

// README's quick start, as written, on a fresh copy of the repository: `npm ci` included, so it
// takes a minute or two. Once is enough: it is the same on PostgreSQL, and on Node 22 and 24 what
// in it depends on the Node line is CI's own `npm ci` and package-install's start (docs/design.md).
// npm ci builds the native modules from source where no prebuilt binary is reachable: minutes.
t.setTimeout(600_000)
const skip = process.env.TEST_DATABASE_URL ? 'the quick start runs on its embedded defaults; the SQLite run covers it' : false

function quickStartBlock (): string {
  const readme = readFileSync('README.md', 'utf8')
  const section = readme.slice(readme.indexOf('## Quick start'))
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1]
  if (!block) throw new Error('README has no quick-start block')
  return block
}

t.test("README's quick start works when pasted, on a fresh copy", { skip, timeout: 600_000 }, async (t) => {
  const { made, folder: copy } = folderAtRepoDepth('stowage-quick-start-')
  t.teardown(() => rmSync(made, { recursive: true, force: true }))
  for (const file of execFileSync('git', ['ls-files'], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
    cpSync(file, join(copy, file), { recursive: true })
  }
  // A group of its own: if the block stops half way, the service it started is stopped with it.
  const shell = spawn('bash', ['-e', '-c', quickStartBlock()], { cwd: copy, detached: true, env: shellEnv({ PORT: '', DATABASE_URL: '', STORAGE_DIR: '' }) })
  t.teardown(() => { try { process.kill(-shell.pid!, 'SIGTERM') } catch {} })
  let out = ''
  let err = ''
  shell.stdout.on('data', (chunk) => { out += chunk })
  shell.stderr.on('data', (chunk) => { err += chunk })
  const code = await new Promise<number | null>((resolve) => shell.once('exit', resolve))
  t.equal(code, 0, 'the block ran to its end')
  if (code !== 0) t.comment(err.slice(-3000))
  // What npm ci prints comes first; then one line per curl.
  const lines = out.split('\n')
  const answers = lines.slice(lines.findIndex((line) => line.startsWith('{"status"'))).filter(Boolean)
  t.match(JSON.parse(answers[0]), { status: 'ok', checks: { database: 'ok', storage: 'ok' } }, 'health')
  t.match(JSON.parse(answers[1]), { userId: 'alice', prefix: 'users/alice/files/' }, 'credentials')
  t.match(JSON.parse(answers[2]), { key: 'notes/résumé.md', size: 7, contentType: 'text/markdown' }, 'upload')
  t.match(JSON.parse(answers[3]), { files: [{ key: 'notes/résumé.md', size: 7 }], isTruncated: false }, 'list')
  t.same(JSON.parse(answers[4]), { content: Buffer.from('# Hello').toString('base64'), contentType: 'text/markdown' }, 'download')
  t.equal(answers[5], '204', 'delete')
  t.match(JSON.parse(answers[6]), { name: 'laptop', key: /^stow_/ }, 'a second key')
  t.match(JSON.parse(answers[7]), { key: 'notes/raw.txt', size: 16, contentType: 'text/plain', etag: /^"[0-9a-f]{32}"$/ }, 'a raw upload')
  t.equal(answers[8], 'Hello', 'a range of it')
  t.match(answers.at(-1), /^\{"openapi":"3\./, 'the OpenAPI document')
  const tracked = new Set(execFileSync('git', ['ls-files'], { encoding: 'utf8' }).split('\n').map((file) => file.split('/')[0]))
  t.same(readdirSync(copy).filter((name) => !tracked.has(name) && !['data', 'node_modules', 'dist', 'stowage.log'].includes(name)), [], 'it leaves nothing behind but the data, the build and its log')
})
