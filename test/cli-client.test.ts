import t, { type Test } from 'tap'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, utimes, writeFile } from 'node:fs/promises'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { runCli } from '../cli/index.js'
import type { AwsCredentialSource } from '../cli/client.js'
import { createOrganizationRepository } from '../db/organizations.js'
import { buildTestApp } from './helpers/app.js'
import { closedPortUrl, startCuttingProxy } from './helpers/net.js'
import { CLI_COMMAND, runCommand } from './helpers/cli.js'
import { waitFor } from './helpers/wait.js'
import { startSts, TEST_IDENTITIES } from './helpers/sts.js'

const sts = await startSts()
t.teardown(() => sts.close())

async function setup (t: Test, appEnv: Record<string, string> = {}, cliEnv: Record<string, string> = {}) {
  const test = await buildTestApp({ env: { STS_ENDPOINT: sts.endpoint, AWS_AUTH_SERVER_ID: 'cli-test', ...appEnv } })
  t.teardown(test.close)
  await test.app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`
  const home = await mkdtemp(join(tmpdir(), 'stowage-home-'))
  t.teardown(() => rm(home, { recursive: true, force: true }))
  const env = { HOME: home, XDG_CONFIG_HOME: '', DATABASE_URL: 'sqlite::memory:', ...cliEnv }
  const cli = async (argv: string[], awsCredentials?: AwsCredentialSource) => {
    const out: Buffer[] = []
    let stderr = ''
    const code = await runCli(argv, {
      stdout: { write: (chunk) => { out.push(Buffer.from(chunk)) } },
      stderr: { write: (text) => { stderr += text } },
      env
    }, awsCredentials)
    return { code, stdout: Buffer.concat(out).toString(), bytes: Buffer.concat(out), stderr }
  }
  /** A command that goes on until stopped (--follow, --watch): its output so far, and stop(). */
  const running = (argv: string[]) => {
    let stdout = ''
    let stderr = ''
    const stopping = new AbortController()
    const code = runCli(argv, {
      stdout: { write: (chunk) => { stdout += Buffer.from(chunk).toString() } },
      stderr: { write: (text) => { stderr += text } },
      env,
      signal: stopping.signal
    })
    return {
      stdout: () => stdout,
      stderr: () => stderr,
      async stop () {
        stopping.abort()
        return await code
      }
    }
  }
  const created = await test.app.stowageKeys.create({ userId: 'cli-user', orgId: null })
  return { ...test, url, home, cli, running, apiKey: created.key }
}

t.test('api-key mode: login, put, ls over every page, get, rm, whoami, keys', async (t) => {
  const { url, home, cli, apiKey } = await setup(t)
  const login = await cli(['login', '--url', url, '--api-key', apiKey])
  t.equal(login.code, 0, login.stderr)
  const configPath = join(home, '.config', 'stowage', 'config.json')
  t.equal((await stat(configPath)).mode & 0o777, 0o600, 'config file is 0600')
  t.equal((await stat(join(home, '.config', 'stowage'))).mode & 0o777, 0o700, 'its folder is 0700')
  t.match(JSON.parse(await readFile(configPath, 'utf8')), { url, mode: 'api-key', apiKey })

  const local = join(home, 'notes.md')
  await writeFile(local, '# Résumé\n')
  const put = await cli(['put', local, 'docs/résumé.md', '--json'])
  t.equal(put.code, 0, put.stderr)
  t.match(JSON.parse(put.stdout), { key: 'docs/résumé.md', contentType: 'text/markdown', size: Buffer.byteLength('# Résumé\n') })

  for (let i = 0; i < 105; i++) await cli(['put', local, `many/${String(i).padStart(3, '0')}.md`])
  const listed = await cli(['ls', 'many/', '--json'])
  t.equal(JSON.parse(listed.stdout).files.length, 105, 'ls follows every page')
  t.notOk('folders' in JSON.parse(listed.stdout), 'ls keeps its output')
  const level = await cli(['ls', '--one-level'])
  t.equal(level.stdout, `${'PRE'.padStart(10)}  ${''.padEnd(24)}  docs/\n${'PRE'.padStart(10)}  ${''.padEnd(24)}  many/\n`, 'one level: each folder once')
  t.same(JSON.parse((await cli(['ls', '--one-level', '--json'])).stdout), { files: [], folders: ['docs/', 'many/'] })

  const got = await cli(['get', 'docs/résumé.md'])
  t.equal(got.stdout, '# Résumé\n')
  const outFile = join(home, 'copy.md')
  t.equal((await cli(['get', 'docs/résumé.md', '-o', outFile])).code, 0)
  t.equal(await readFile(outFile, 'utf8'), '# Résumé\n')

  t.equal((await cli(['rm', 'docs/résumé.md'])).code, 0)
  const missing = await cli(['get', 'docs/résumé.md'])
  t.equal(missing.code, 1)
  t.match(missing.stderr, /^stowage: 404/)

  t.match((await cli(['whoami'])).stdout, /^cli-user\n/)
  const key = JSON.parse((await cli(['keys', 'create', '--name', 'ci', '--json'])).stdout)
  t.match(key, { name: 'ci', key: /^stow_/ })
  t.match((await cli(['keys', 'ls'])).stdout, new RegExp(key.id))
  t.equal((await cli(['keys', 'revoke', key.id])).code, 0)
  t.notMatch((await cli(['keys', 'ls'])).stdout, new RegExp(key.id))
})

t.test('login refuses a key the server refuses, and saves nothing', async (t) => {
  const { url, home, cli } = await setup(t)
  const res = await cli(['login', '--url', url, '--api-key', 'stow_nope'])
  t.equal(res.code, 1)
  t.match(res.stderr, /401/)
  await t.rejects(stat(join(home, '.config', 'stowage', 'config.json')))
})

t.test('aws-sso mode signs every request; missing or expired credentials are an error, not a fallback', async (t) => {
  const { app, url, cli, apiKey } = await setup(t)
  const [alice] = TEST_IDENTITIES
  await createOrganizationRepository(app.stowageDb).create({ name: 'Alice', awsAccountId: alice.account, authMode: 'aws-sso' })
  const good: AwsCredentialSource = async () => alice
  const login = await cli(['login', '--url', url, '--aws-sso', '--server-id', 'cli-test', '--sts-endpoint', sts.endpoint], good)
  t.equal(login.code, 0, login.stderr)
  t.equal((await cli(['whoami', '--json'], good)).code, 0)

  await cli(['login', '--url', url, '--api-key', apiKey])
  await cli(['login', '--url', url, '--aws-sso', '--server-id', 'cli-test', '--sts-endpoint', sts.endpoint], good)
  const missing = await cli(['ls'], async () => { throw new Error('Could not load credentials from any providers') })
  t.equal(missing.code, 1)
  t.match(missing.stderr, /no AWS credentials/)
  const expired = await cli(['ls'], async () => ({ ...alice, expiration: new Date(Date.now() - 1000) }))
  t.equal(expired.code, 1)
  t.match(expired.stderr, /expired/)
})

t.test('usage mistakes exit 2; not being logged in is explained', async (t) => {
  const { cli } = await setup(t)
  const notLoggedIn = await cli(['ls'])
  t.equal(notLoggedIn.code, 2)
  t.match(notLoggedIn.stderr, /not logged in/)
  for (const argv of [['login'], ['login', '--url', 'ftp://x', '--api-key', 'k'], ['login', '--url', 'http://x', '--api-key', 'k', '--device'], ['login', '--url', 'http://x', '--aws-sso']]) {
    t.equal((await cli(argv)).code, 2, argv.join(' '))
  }
})

t.test('help, --version and unknown commands answer without a login', async (t) => {
  const { cli } = await setup(t)
  const help = await cli(['help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /stowage login --url URL --api-key KEY/)
  const version = await cli(['--version'])
  t.equal(version.code, 0)
  t.match(version.stdout, /^stowage \d+\.\d+\.\d+\n$/)
  const unknown = await cli(['frobnicate'])
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /unknown command "frobnicate"/)
  t.notMatch(unknown.stderr, /not logged in/)
})

t.test('paths with . or .. segments are refused before any request, never rewritten', async (t) => {
  const { url, home, cli, apiKey, app } = await setup(t)
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  const local = join(home, 'notes.md')
  await writeFile(local, 'x')
  for (const path of ['x/../y.md', './y.md', 'a//b', '/abs']) {
    const put = await cli(['put', local, path])
    t.equal(put.code, 2, path)
    t.match(put.stderr, /path must/, path)
  }
  t.equal((await app.stowageFiles.list('cli-user', {})).files.length, 0, 'nothing was written')
})

t.test('errors say what to do: a refused key, a server out of reach, an answer that is not JSON', async (t) => {
  const { url, cli, apiKey, app, home } = await setup(t, {}, { STOWAGE_RESUMABLE_BYTES: '1024' })
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  await app.stowageKeys.revoke('cli-user', apiKey.slice(5, 15))
  const refused = await cli(['ls'])
  t.equal(refused.code, 1)
  t.match(refused.stderr, /revoked.*stowage login/)
  await writeFile(join(home, 'large.bin'), Buffer.alloc(2048))
  const refusedResumable = await cli(['put', join(home, 'large.bin'), 'large.bin'])
  t.equal(refusedResumable.code, 1)
  t.match(refusedResumable.stderr, /revoked.*stowage login/, 'the same words for an upload in pieces')

  const closed = await closedPortUrl()
  const down = await cli(['login', '--url', closed, '--api-key', apiKey])
  t.equal(down.code, 1)
  t.equal(down.stderr, `stowage: cannot reach ${closed} (ECONNREFUSED)\n`)

  const html = createServer((_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>'))
  await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', resolve))
  t.teardown(() => html.close())
  const proxy = await cli(['login', '--url', `http://127.0.0.1:${(html.address() as AddressInfo).port}`, '--api-key', apiKey])
  t.equal(proxy.code, 1)
  t.match(proxy.stderr, /answered 502 with text\/html, not JSON/)
})

t.test('a base URL with a path keeps it', async (t) => {
  const { url, cli, apiKey } = await setup(t)
  // A reverse proxy serving Stowage under /stowage/.
  const proxy = createServer((req, res) => {
    if (!req.url?.startsWith('/stowage/')) return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not under /stowage"}')
    const upstream = request(url + req.url.slice('/stowage'.length), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => proxy.close())
  const login = await cli(['login', '--url', `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/stowage/`, '--api-key', apiKey])
  t.equal(login.code, 0, login.stderr)
  t.equal((await cli(['whoami'])).code, 0)
})

t.test('keys create --expires', async (t) => {
  const { url, cli, apiKey } = await setup(t)
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  const created = await cli(['keys', 'create', '--name', 'ci', '--expires', '2099-01-31', '--json'])
  t.equal(created.code, 0, created.stderr)
  t.equal(JSON.parse(created.stdout).expiresAt, '2099-01-31T00:00:00.000Z')
  const bad = await cli(['keys', 'create', '--expires', 'someday'])
  t.equal(bad.code, 2)
  t.match(bad.stderr, /--expires must be a date/)
})

t.test('put streams the file: a binary file arrives whole, and one over the limit gets the server\'s 413 without being read', async (t) => {
  const { url, home, cli, apiKey } = await setup(t, { MAX_UPLOAD_BYTES: '300000' })
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  const bytes = randomBytes(200_001)
  const local = join(home, 'blob.bin')
  await writeFile(local, bytes)
  const put = await cli(['put', local, 'blobs/blob.bin'])
  t.equal(put.code, 0, put.stderr)
  t.ok((await cli(['get', 'blobs/blob.bin'])).bytes.equals(bytes), 'the same bytes come back')

  const overBy = async (bytes: number) => {
    const file = join(home, `over-${bytes}.bin`)
    await writeFile(file, '')
    await truncate(file, bytes)
    return await runCommand(CLI_COMMAND[0], [...CLI_COMMAND.slice(1), 'put', file, 'blobs/big.bin'], { ...process.env, HOME: home, XDG_CONFIG_HOME: '' })
  }
  const barely = await overBy(300_001)
  const over = await overBy(200 * 1024 * 1024)
  t.equal(over.status, 1)
  t.match(over.stderr, /(^|\n)stowage: 413: file is larger than 300000 bytes\n$/)
  const extra = over.rssGrowthBytes - barely.rssGrowthBytes
  t.ok(extra < 64 * 1024 * 1024, `the CLI's peak memory for a 200 MiB file is within ${(extra / 1024 / 1024).toFixed(1)} MiB of its peak for one just over the limit: not read into memory`)
  t.equal((await cli(['get', 'blobs/big.bin'])).code, 1, 'nothing was written')
})

t.test('put and get move a file larger than the server\'s memory budget, byte for byte', async (t) => {
  const { url, home, cli, apiKey } = await setup(t, { MAX_FILE_BYTES: '1000000', UPLOAD_MEMORY_BYTES: '2097152' })
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  const bytes = randomBytes(12 * 1024 * 1024)
  const local = join(home, 'large.bin')
  await writeFile(local, bytes)
  const put = await cli(['put', local, 'large.bin', '--json'])
  t.equal(put.code, 0, put.stderr)
  t.equal(put.stderr, '', 'no progress line when stderr is not a terminal')
  const out = join(home, 'large.copy')
  const got = await cli(['get', 'large.bin', '-o', out, '--json'])
  t.equal(got.code, 0, got.stderr)
  t.match(JSON.parse(got.stdout), { size: bytes.length, resumed: false })
  t.equal(createHash('sha256').update(await readFile(out)).digest('hex'), createHash('sha256').update(bytes).digest('hex'))
  t.same((await readdir(home)).filter((name) => name.includes('.part')), [], 'no part file is left')
})

t.test('get -o continues an interrupted download if the file is unchanged, and starts again if it changed', async (t) => {
  const { url, home, cli, apiKey } = await setup(t)
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  const bytes = randomBytes(3 * 1024 * 1024)
  const local = join(home, 'film.bin')
  await writeFile(local, bytes)
  const etag = JSON.parse((await cli(['put', local, 'film.bin', '--json'])).stdout).etag
  const out = join(home, 'film.copy')
  // What an interrupted `get -o` leaves: the bytes so far, and the ETag they came with.
  await writeFile(`${out}.part`, bytes.subarray(0, 1_000_000))
  await writeFile(`${out}.part.etag`, etag)
  const resumed = await cli(['get', 'film.bin', '-o', out, '--json'])
  t.equal(resumed.code, 0, resumed.stderr)
  t.match(JSON.parse(resumed.stdout), { resumed: true, size: bytes.length })
  t.ok((await readFile(out)).equals(bytes), 'the continued file is whole')

  await writeFile(`${out}.part`, Buffer.alloc(1_000_000, 'x'))
  await writeFile(`${out}.part.etag`, '"an-older-version"')
  const restarted = await cli(['get', 'film.bin', '-o', out, '--json'])
  t.match(JSON.parse(restarted.stdout), { resumed: false, size: bytes.length })
  t.ok((await readFile(out)).equals(bytes), 'a part of another version is replaced, not continued')
})

t.test('put --no-clobber and --if-match: a refused write exits 1 and changes nothing; ls --long shows ETags', async (t) => {
  const { url, home, cli, apiKey } = await setup(t)
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  const local = join(home, 'note.md')
  await writeFile(local, 'first')
  t.equal((await cli(['put', local, 'note.md', '--no-clobber'])).code, 0, 'creates a file that is not there')
  await writeFile(local, 'second')
  const clobber = await cli(['put', local, 'note.md', '--no-clobber'])
  t.equal(clobber.code, 1)
  t.match(clobber.stderr, /^stowage: 412: /)
  t.equal((await cli(['get', 'note.md'])).stdout, 'first')

  const long = await cli(['ls', '--long'])
  const etag = /("[^"]+")\s+note\.md/.exec(long.stdout)?.[1]
  t.ok(etag, `ls --long shows the ETag: ${long.stdout}`)
  t.equal((await cli(['put', local, 'note.md', '--if-match', '"stale"'])).code, 1)
  t.equal((await cli(['get', 'note.md'])).stdout, 'first')
  const unquoted = etag!.slice(1, -1)
  t.equal((await cli(['put', local, 'note.md', '--if-match', unquoted])).code, 0, 'an ETag pasted without its quotes works')
  t.equal((await cli(['get', 'note.md'])).stdout, 'second')
  t.equal((await cli(['put', local, 'note.md', '--if-match', etag!, '--no-clobber'])).code, 2)
})

t.test('a progress line is drawn on a terminal (a pseudo-terminal, through script) and not in a pipe', { skip: !existsSync('/usr/bin/script') && 'needs script(1)' }, async (t) => {
  const { url, home, cli, apiKey } = await setup(t)
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  const local = join(home, 'progress.bin')
  await writeFile(local, randomBytes(4 * 1024 * 1024))
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '' }
  const command = [...CLI_COMMAND, 'put', local, 'progress.bin']
  const quote = (word: string) => `'${word.replace(/'/g, "'\\''")}'`
  const onTerminal = await runCommand('script', ['-qefc', command.map(quote).join(' '), '/dev/null'], env)
  t.equal(onTerminal.status, 0, onTerminal.stderr)
  t.match(onTerminal.stdout, /\rput .*progress\.bin {2}4\.0 MiB \/ 4\.0 MiB {2}[\d.]+ [KMG]?i?B\/s {2}\d+:\d\d left/, 'bytes, rate and time left')
  const inPipe = await runCommand(command[0], command.slice(1), env)
  t.equal(inPipe.status, 0, inPipe.stderr)
  t.equal(inPipe.stderr.replace(/^\(node:\d+\) Warning: NodeVersionSupportWarning[\s\S]*$/, ''), '', 'nothing on stderr in a pipe')
})

t.test('share prints a link that works without credentials: to read a file, or with --upload to write one', async (t) => {
  const { url, home, cli, apiKey } = await setup(t)
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  const local = join(home, 'plan.md')
  await writeFile(local, 'the plan')
  t.equal((await cli(['put', local, 'shared/plan.md'])).code, 0)

  const shared = await cli(['share', 'shared/plan.md', '--expires', '15m', '--json'])
  t.equal(shared.code, 0, shared.stderr)
  const link = JSON.parse(shared.stdout) as { url: string, method: string, expiresAt: string }
  t.equal(link.method, 'download')
  t.ok(Math.abs(new Date(link.expiresAt).getTime() - Date.now() - 15 * 60_000) < 60_000, 'expires in 15 minutes')
  t.equal(await (await fetch(link.url)).text(), 'the plan', 'no credentials needed')
  t.match((await cli(['share', 'shared/plan.md'])).stdout, /^http:\/\/\S+\/links\/\S+\nexpires /, 'the link on its own line')

  const upload = JSON.parse((await cli(['share', 'inbox/notes.txt', '--upload', '--json'])).stdout) as { url: string }
  t.equal((await fetch(upload.url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'dropped off' })).status, 200)
  t.equal((await cli(['get', 'inbox/notes.txt'])).stdout, 'dropped off')

  const bad = await cli(['share', 'shared/plan.md', '--expires', 'soon'])
  t.not(bad.code, 0)
  t.match(bad.stderr, /--expires must be a duration/)
  t.match((await cli(['share', 'missing.md'])).stderr, /^stowage: 404/, 'a download link of a missing file')
})

t.test('cp and mv of files and folders, rm to the trash, trash ls, restore, rm and empty', async (t) => {
  const { url, home, cli, apiKey } = await setup(t, { FOLDER_OPERATION_BUDGET_MS: '100' })
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  const local = join(home, 'a.txt')
  await writeFile(local, 'alpha')
  for (let i = 0; i < 150; i++) t.equal((await cli(['put', local, `album/${String(i).padStart(3, '0')}.txt`])).code, 0)

  const copied = await cli(['cp', 'album/000.txt', 'single/copy.txt'])
  t.equal(copied.code, 0, copied.stderr)
  t.match(copied.stdout, /^single\/copy\.txt \(5 bytes\) "[0-9a-f]{32}"\n$/)
  t.equal((await cli(['cp', 'album/000.txt', 'single/copy.txt', '--no-clobber'])).code, 1, 'a refused copy exits 1')
  const folder = await cli(['mv', 'album/', 'photos/2026/'])
  t.equal(folder.code, 0, folder.stderr)
  t.equal(folder.stdout, 'moved 150 files (750 bytes) from album/ to photos/2026/\n', 'every step of the folder, summed')
  t.equal((await cli(['get', 'photos/2026/149.txt'])).stdout, 'alpha')
  t.equal((await cli(['mv', 'photos/', 'photos/inner/'])).code, 1, 'into itself: the service refuses')
  t.equal((await cli(['mv', 'only-one'])).code, 2)

  const removed = await cli(['rm', 'single/copy.txt'])
  t.equal(removed.code, 0)
  t.equal(removed.stdout, '', 'stdout stays empty for scripts')
  const [, id] = /trash restore ([0-9a-f]{32})/.exec(removed.stderr) ?? []
  t.ok(id, `a person is told how to get it back: ${removed.stderr}`)
  t.match((await cli(['trash'])).stdout, new RegExp(`^${id} +5  deleted \\S+  purged on \\S+  single/copy\\.txt\n$`))
  t.equal((await cli(['trash', 'restore', id, '--to', 'single/back.txt'])).code, 0)
  t.equal((await cli(['get', 'single/back.txt'])).stdout, 'alpha')
  t.equal((await cli(['trash', 'restore', id])).code, 1, 'restored once')

  await cli(['rm', 'single/back.txt'])
  await cli(['rm', 'photos/2026/000.txt'])
  const items = JSON.parse((await cli(['trash', 'ls', '--json'])).stdout).items
  t.equal(items.length, 2)
  t.equal((await cli(['trash', 'rm', items[0].id])).code, 0)
  t.equal(JSON.parse((await cli(['trash', '--json'])).stdout).items.length, 1)
  t.equal((await cli(['trash', 'empty'])).code, 0)
  t.same(JSON.parse((await cli(['trash', '--json'])).stdout).items, [])
  t.equal((await cli(['trash', 'recycle'])).code, 2, 'a usage mistake')
})

t.test('mkdir and rmdir; versions: list, get, restore, rm', async (t) => {
  const { url, home, cli, apiKey } = await setup(t)
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  const { cursor } = JSON.parse((await cli(['changes', '--json'])).stdout)
  t.equal((await cli(['mkdir', 'albums/2026'])).code, 0)
  t.match(JSON.parse((await cli(['ls', 'albums/', '--one-level', '--json'])).stdout), { files: [], folders: ['albums/2026/'] }, 'an empty folder, listed')
  t.equal((await cli(['rmdir', 'albums/2026'])).code, 0)
  t.same(JSON.parse((await cli(['ls', '--one-level', '--json'])).stdout).folders, [], 'removed')
  t.equal((await cli(['rmdir', 'albums/2026'])).code, 1, 'a folder that is not there')

  const local = join(home, 'draft.txt')
  for (const text of ['first', 'second', 'third']) {
    await writeFile(local, text)
    t.equal((await cli(['put', local, 'draft.txt'])).code, 0)
  }
  const listed = await cli(['versions', 'draft.txt'])
  t.equal(listed.code, 0, listed.stderr)
  const ids = listed.stdout.trim().split('\n').map((line) => line.split(/\s+/)[0])
  t.equal(ids.length, 2, 'two earlier versions, newest first')
  t.equal((await cli(['versions', 'get', ids[1]])).stdout, 'first')
  const saved = join(home, 'second.txt')
  t.equal((await cli(['versions', 'get', ids[0], '-o', saved])).code, 0)
  t.equal(await readFile(saved, 'utf8'), 'second')
  t.equal((await cli(['versions', 'restore', ids[1]])).code, 0)
  t.equal((await cli(['get', 'draft.txt'])).stdout, 'first', 'the version is the file again')
  t.equal((await cli(['versions', 'restore', ids[0], '--to', 'draft-2.txt'])).code, 0)
  t.equal((await cli(['get', 'draft-2.txt'])).stdout, 'second')
  t.equal((await cli(['versions', 'rm', ids[0]])).code, 0)
  t.equal((await cli(['versions', 'get', ids[0]])).code, 1, 'removed')
  t.equal((await cli(['versions'])).code, 2, 'a usage mistake')

  const changes = await cli(['changes', '--cursor', cursor])
  t.equal(changes.code, 0, changes.stderr)
  const lines = changes.stdout.trim().split('\n')
  t.match(lines[0], /^\S+Z {2}folder +albums\/2026\/$/, 'one line a change, from the cursor')
  t.match(lines.at(-1), /^go on with --cursor \S+$/, 'then the cursor to go on from')
  t.same(lines.slice(0, -1).map((line) => line.split(/\s+/).slice(1).join(' ')), [
    'folder albums/2026/', 'folder-delete albums/2026/', 'put draft.txt', 'put draft.txt', 'put draft.txt', 'put draft.txt', 'put draft-2.txt'
  ], 'mkdir, rmdir, three puts, a restore and a restore elsewhere, in order')
  const json = JSON.parse((await cli(['changes', '--cursor', cursor, '--prefix', 'draft-2.txt', '--json'])).stdout.trim().split('\n')[0])
  t.match(json, { op: 'put', key: 'draft-2.txt', size: 6 }, '--prefix and --json')
  for (const path of ['albums/Summer Beach.png', 'notes/beach-trip.md', 'notes/other.md']) {
    await writeFile(join(home, 'found.txt'), path)
    t.equal((await cli(['put', join(home, 'found.txt'), path])).code, 0)
  }
  const found = await cli(['find', 'BEACH'])
  t.equal(found.code, 0, found.stderr)
  t.match(found.stdout, /^ +23  \S+  albums\/Summer Beach\.png\n +19  \S+  notes\/beach-trip\.md\n$/, 'every file whose path holds the text, in any case')
  t.same(JSON.parse((await cli(['find', 'beach', 'notes/', '--json'])).stdout).files.map((file: { key: string }) => file.key), ['notes/beach-trip.md'], 'under a prefix')
  t.same(JSON.parse((await cli(['find', 'md', '--newest', '--json'])).stdout).files.map((file: { key: string }) => file.key), ['notes/other.md', 'notes/beach-trip.md'], '--newest: the last written first')
  t.match(await cli(['find', 'b']), { code: 1, stderr: /q must be at least 2 characters/ })
})

t.test('sync: a tree of Unicode names up and down; what changed on both sides is a conflict, and nothing is lost', async (t) => {
  const { url, home, cli, apiKey } = await setup(t)
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  const tree = join(home, 'tree')
  const files: Record<string, string> = { 'a.txt': 'alpha', 'nested/déjà vu.md': '# déjà', 'nested/deep/日本語.txt': 'こんにちは', 'empty.bin': '' }
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(tree, path, '..'), { recursive: true })
    await writeFile(join(tree, path), content)
  }
  const sync = async (...args: string[]) => {
    const run = await cli(['sync', ...args, '--json'])
    return { code: run.code, stderr: run.stderr, summary: run.stdout ? JSON.parse(run.stdout) : undefined }
  }
  const remote = async (path: string) => (await cli(['get', `backup/${path}`])).stdout
  // A later time than the file had: two writes within one clock tick must still count as a change.
  const change = async (path: string, content: string) => {
    await writeFile(join(tree, path), content)
    const later = new Date(Date.now() + 5000)
    await utimes(join(tree, path), later, later)
  }

  let run = await sync(tree, 'backup')
  t.equal(run.code, 0, run.stderr)
  t.same(run.summary.uploaded.sort(), Object.keys(files).sort(), 'every file up, the empty one included')
  for (const [path, content] of Object.entries(files)) t.equal(await remote(path), content, `backup/${path}`)
  run = await sync(tree, 'backup')
  t.match(run.summary, { uploaded: [], unchanged: 4, conflicts: [] }, 'a second sync sends nothing')

  // Changed here only; changed on the server only; changed on both sides.
  await change('a.txt', 'alpha 2')
  const other = join(home, 'other.md')
  await writeFile(other, '# changed on the server')
  t.equal((await cli(['put', other, 'backup/nested/déjà vu.md'])).code, 0)
  await change('nested/deep/日本語.txt', 'changed here')
  await writeFile(other, 'changed there')
  t.equal((await cli(['put', other, 'backup/nested/deep/日本語.txt'])).code, 0)
  run = await sync(tree, 'backup')
  t.equal(run.code, 1, 'conflicts make the exit code 1')
  t.same(run.summary.uploaded, ['a.txt'])
  t.equal(run.summary.keptAsVersions, 1, 'the a.txt it replaced on the server is kept as a version')
  t.match(JSON.parse((await cli(['versions', 'backup/a.txt', '--json'])).stdout).versions, [{ size: 'alpha'.length }])
  t.same(run.summary.conflicts.map((c: { path: string }) => c.path).sort(), ['nested/deep/日本語.txt', 'nested/déjà vu.md'])
  t.equal(await remote('a.txt'), 'alpha 2')
  t.equal(await remote('nested/déjà vu.md'), '# changed on the server', 'the server\'s change is not overwritten')
  t.equal(await remote('nested/deep/日本語.txt'), 'changed there', 'nor the server\'s side of a change on both sides')
  t.equal(await readFile(join(tree, 'nested/deep/日本語.txt'), 'utf8'), 'changed here', 'and the local side is kept')

  // Down into a new folder, then --delete both ways, with a dry run first.
  const restore = join(home, 'restore')
  run = await sync('backup/', restore)
  t.equal(run.code, 0, run.stderr)
  t.equal(run.summary.downloaded.length, 4)
  t.equal(await readFile(join(restore, 'nested/déjà vu.md'), 'utf8'), '# changed on the server')
  await rm(join(tree, 'a.txt'))
  run = await sync(tree, 'backup', '--delete', '--dry-run')
  t.match(run.summary, { deleted: ['a.txt'], dryRun: true })
  t.equal(await remote('a.txt'), 'alpha 2', 'a dry run changes nothing')
  run = await sync(tree, 'backup', '--delete')
  t.ok(run.summary.deleted.includes('a.txt'))
  t.equal(run.summary.trashed, 1, 'into the server\'s trash')
  t.equal((await cli(['get', 'backup/a.txt'])).code, 1, 'deleted on the server')
  const trashed = JSON.parse((await cli(['trash', '--json'])).stdout).items
  t.match(trashed, [{ key: 'backup/a.txt', size: 'alpha 2'.length }], 'where it can be restored from')
  run = await sync('backup', restore, '--delete')
  t.ok(run.summary.deleted.includes('a.txt'), 'and, synced down with --delete, here')
  t.notOk(existsSync(join(restore, 'a.txt')))
  t.equal((await cli(['sync', tree, 'backup', '--concurrency', 'many'])).code, 2, 'a usage mistake')
})

t.test('a large put goes in pieces (tus) and, cut off part way, goes on from where the server got to when run again', async (t) => {
  const { url, home, cli, apiKey } = await setup(t, {}, { STOWAGE_RESUMABLE_BYTES: String(1024 * 1024) })
  // A proxy that, once armed, drops a connection 3 MiB into what the client sends, and counts the rest.
  const proxy = await startCuttingProxy(new URL(url), 3 * 1024 * 1024)
  t.teardown(proxy.close)
  const { cut, url: viaProxy } = proxy
  t.equal((await cli(['login', '--url', viaProxy, '--api-key', apiKey])).code, 0)
  const local = join(home, 'big.bin')
  const body = randomBytes(20 * 1024 * 1024)
  await writeFile(local, body)

  const first = await cli(['put', local, 'media/big.bin'])
  t.equal(first.code, 1)
  t.match(first.stderr, /the upload stopped .*run the same command again to continue/)
  const second = await cli(['put', local, 'media/big.bin', '--json'])
  t.equal(second.code, 0, second.stderr)
  t.ok(cut.sentAfterCut < body.length, `went on from where it stopped: ${(cut.sentAfterCut / 1048576).toFixed(1)} MiB sent after the cut, for a 20 MiB file`)
  t.match(JSON.parse(second.stdout), { key: 'media/big.bin', size: body.length, etag: `"${createHash('md5').update(body).digest('hex')}"` })
  const got = await cli(['get', 'media/big.bin'])
  t.ok(got.bytes.equals(body), 'byte for byte')

  // sync's large uploads take the same path: cut off, the next sync goes on from where it stopped.
  const tree = join(home, 'tree')
  await mkdir(tree)
  const clip = randomBytes(12 * 1024 * 1024)
  await writeFile(join(tree, 'clip.bin'), clip)
  proxy.arm()
  const cutSync = await cli(['sync', tree, 'media/tree'])
  t.equal(cutSync.code, 1)
  t.match(cutSync.stderr, /the upload stopped .*run the same command again to continue/)
  const resumedSync = await cli(['sync', tree, 'media/tree', '--json'])
  t.equal(resumedSync.code, 0, resumedSync.stderr)
  t.match(JSON.parse(resumedSync.stdout), { uploaded: ['clip.bin'], conflicts: [] })
  t.ok(cut.sentAfterCut < clip.length, `sync went on from where it stopped: ${(cut.sentAfterCut / 1048576).toFixed(1)} MiB sent after the cut, for a 12 MiB file`)
  t.ok((await cli(['get', 'media/tree/clip.bin'])).bytes.equals(clip), 'byte for byte')

  const stale = await cli(['put', local, 'media/big.bin', '--if-match', '"0123456789abcdef0123456789abcdef"'])
  t.equal(stale.code, 1)
  t.match(stale.stderr, /^stowage: 412/, 'the destination\'s precondition holds for a resumable upload too')
})

t.test('changes: from now, a line or a JSON line each, then the cursor; --follow prints each change as it happens until stopped', async (t) => {
  const { url, home, cli, running, apiKey } = await setup(t)
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  const start = await cli(['changes'])
  t.match(start.stdout, /^no changes since now: go on with --cursor \S+ \(or --follow to wait for them\)\n$/, 'nothing yet: the cursor to go on from')
  const cursor = /--cursor (\S+)/.exec(start.stdout)![1]
  await cli(['mkdir', 'box'])
  await writeFile(join(home, 'p.json'), '{}')
  await cli(['put', join(home, 'p.json'), 'box/p.json'])
  await cli(['mv', 'box/p.json', 'box/q.json'])
  const text = await cli(['changes', '--cursor', cursor])
  t.match(text.stdout, /^\S+Z +folder +box\/\n\S+Z +put +box\/p\.json\n\S+Z +move +box\/p\.json -> box\/q\.json\ngo on with --cursor \S+\n$/)
  const lines = (await cli(['changes', '--cursor', cursor, '--prefix', 'box/q', '--json'])).stdout.trim().split('\n').map((line) => JSON.parse(line))
  t.match(lines, [{ op: 'move', key: 'box/q.json', from: 'box/p.json', etag: /^"/ }, { cursor: /\S/ }], 'a prefix keeps what is under it')

  const now = /--cursor (\S+)/.exec((await cli(['changes', '--cursor', cursor])).stdout.trim().split('\n').at(-1)!)![1]
  const follow = running(['changes', '--follow', '--json', '--cursor', now])
  await cli(['rm', 'box/q.json'])
  await waitFor(() => follow.stdout().includes('"op":"delete"'), { what: 'the delete followed' })
  t.equal(await follow.stop(), 0, 'stopped, it ends without an error')
  t.match(JSON.parse(follow.stdout().trim().split('\n').at(-1)!), { op: 'delete', key: 'box/q.json' })
})

t.test('sync --watch keeps a folder and the server in step both ways until stopped, never sends a file half written, and never deletes what is new on the other side', async (t) => {
  const { app, url, home, cli, running, apiKey } = await setup(t, { S3_API_PORT: '0', S3_CREDENTIALS_KEY: randomBytes(32).toString('base64') })
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
  const credentials = (await app.inject({ method: 'POST', url: '/api/s3-credentials', headers: { authorization: `Bearer ${apiKey}` } })).json() as { accessKeyId: string, secretAccessKey: string }
  const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials, maxAttempts: 1 })
  t.teardown(() => s3.destroy())
  const here = join(home, 'here')
  await mkdir(here)
  await writeFile(join(here, 'a.txt'), 'first')
  const remote = async (path: string) => {
    const got = await cli(['get', `mirror/${path}`])
    return got.code === 0 ? got.stdout : undefined
  }
  const up = running(['sync', here, 'mirror', '--watch', '--delete'])
  t.teardown(() => up.stop())
  await waitFor(async () => await remote('a.txt') === 'first', { what: 'the first sync' })

  await writeFile(join(here, 'b.txt'), 'bee')
  await waitFor(async () => await remote('b.txt') === 'bee', { what: 'a new file sent' })
  await writeFile(join(here, 'a.txt'), 'second')
  await waitFor(async () => await remote('a.txt') === 'second', { what: 'a changed file sent' })
  await rm(join(here, 'b.txt'))
  await waitFor(async () => await remote('b.txt') === undefined, { what: 'a deleted file deleted' })

  // A file written slowly, a piece every 300 ms for 3 s: while it grows, nothing of it is sent.
  const whole = Buffer.alloc(10 * 64 * 1024, 'x')
  for (let piece = 0; piece < 10; piece++) {
    await writeFile(join(here, 'slow.bin'), whole.subarray(0, (piece + 1) * 64 * 1024))
    const sent = await remote('slow.bin')
    t.ok(sent === undefined || sent.length === whole.length, 'never a part')
    await new Promise((resolve) => setTimeout(resolve, 300))
  }
  await waitFor(async () => (await remote('slow.bin'))?.length === whole.length, { what: 'the finished file sent' })

  // A second client writes on the server while the watch runs (with --delete): it comes down, and stays.
  await writeFile(join(home, 'phone.jpg'), 'a photo')
  t.equal((await cli(['put', join(home, 'phone.jpg'), 'mirror/phone.jpg'])).code, 0)
  await waitFor(async () => await readFile(join(here, 'phone.jpg'), 'utf8').catch(() => '') === 'a photo', { what: 'a file put through the API fetched', timeoutMs: 10_000 })
  t.equal(await remote('phone.jpg'), 'a photo', 'the new server file was not deleted')
  await s3.send(new PutObjectCommand({ Bucket: 'mirror', Key: 'camera/s3.txt', Body: 'through S3' }))
  await waitFor(async () => await readFile(join(here, 'camera', 's3.txt'), 'utf8').catch(() => '') === 'through S3', { what: 'a file put through S3 fetched', timeoutMs: 10_000 })
  await s3.send(new PutObjectCommand({ Bucket: 'mirror', Key: 'a.txt', Body: 'edited on the server' }))
  await waitFor(async () => await readFile(join(here, 'a.txt'), 'utf8').catch(() => '') === 'edited on the server', { what: 'a server edit fetched', timeoutMs: 10_000 })
  t.equal((await cli(['rm', 'mirror/phone.jpg'])).code, 0)
  await waitFor(() => !existsSync(join(here, 'phone.jpg')), { what: 'a file deleted on the server deleted here (--delete)', timeoutMs: 10_000 })
  t.equal(await remote('camera/s3.txt'), 'through S3')

  // The other way: what changes on the server arrives here.
  const there = join(home, 'there')
  const down = running(['sync', 'mirror/', there, '--watch'])
  t.teardown(() => down.stop())
  await waitFor(async () => await readFile(join(there, 'a.txt'), 'utf8').catch(() => '') === 'edited on the server', { what: 'the first sync down' })
  await writeFile(join(home, 'c.txt'), 'sea')
  t.equal((await cli(['put', join(home, 'c.txt'), 'mirror/c.txt'])).code, 0)
  await waitFor(async () => await readFile(join(there, 'c.txt'), 'utf8').catch(() => '') === 'sea', { what: 'a file made on the server fetched' })
  await waitFor(async () => await readFile(join(here, 'c.txt'), 'utf8').catch(() => '') === 'sea', { what: 'both watches fetch it' })
  t.equal(await down.stop(), 0)
  t.equal(await up.stop(), 0)
  t.notMatch(up.stdout(), /^conflict /m)
})

t.test('a mistake about a path here is said as such, exit 2, before the server is asked; a sync says which way it goes', async (t) => {
  const { url, home, cli, apiKey } = await setup(t)
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  const folder = join(home, 'a-folder')
  await mkdir(folder)
  const putFolder = await cli(['put', folder, 'x.txt'])
  t.equal(putFolder.code, 2)
  t.match(putFolder.stderr, /a-folder is a folder: put sends one file; "stowage sync .* PREFIX" sends a folder/)
  const putMissing = await cli(['put', join(home, 'nothing.txt'), 'x.txt'])
  t.equal(putMissing.code, 2)
  t.match(putMissing.stderr, /nothing\.txt: no such file here/)

  await writeFile(join(home, 'a.txt'), 'alpha')
  t.equal((await cli(['put', join(home, 'a.txt'), 'notes-remote/a.txt'])).code, 0)
  const intoFolder = await cli(['get', 'notes-remote/a.txt', '-o', folder])
  t.equal(intoFolder.code, 0, intoFolder.stderr)
  t.equal(await readFile(join(folder, 'a.txt'), 'utf8'), 'alpha', '-o a folder saves under the file\'s name, as cp does')
  t.same((await readdir(folder)).sort(), ['a.txt'], 'no .part left behind')
  const nowhere = await cli(['get', 'notes-remote/a.txt', '-o', join(home, 'no', 'such', 'a.txt')])
  t.equal(nowhere.code, 2)
  t.match(nowhere.stderr, /does not exist here/)

  const missing = await cli(['sync', './missing-here', 'notes-remote/'])
  t.equal(missing.code, 2)
  t.match(missing.stderr, /\.\/missing-here: no such folder here/)
  const down = await cli(['sync', 'notes-remote/', join(home, 'docs2')])
  t.equal(down.code, 0, down.stderr)
  t.match(down.stderr, /^sync: notes-remote\/ on the server → .*docs2 here$/m, 'which way it went')
})

t.test('help per command; counts in words; a failure in JSON with --json; versions, changes and the trash say what they found', async (t) => {
  const { url, home, cli, apiKey } = await setup(t)
  const putHelp = await cli(['put', '--help'])
  t.equal(putHelp.code, 0)
  t.match(putHelp.stdout, /^ {2}stowage put FILE PATH/)
  t.notMatch(putHelp.stdout, /stowage sync/, 'that command only')
  const syncHelp = await cli(['help', 'sync'])
  t.equal(syncHelp.code, 0)
  t.match(syncHelp.stdout, /^ {2}stowage sync LOCAL_DIR PREFIX[^]*--watch keeps both in step/)
  t.equal((await cli(['help', 'nothing'])).code, 2)

  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  await writeFile(join(home, 'one.txt'), 'one')
  t.equal((await cli(['put', join(home, 'one.txt'), 'box/one.txt'])).code, 0)
  const moved = await cli(['mv', 'box/', 'moved/'])
  t.match(moved.stdout, /^moved 1 file \(3 bytes\) from box\/ to moved\/$/m)
  const missing = await cli(['get', 'nope.txt', '--json'])
  t.equal(missing.code, 1)
  t.match(JSON.parse(missing.stderr), { error: /not found/, exitCode: 1 })
  const noVersions = await cli(['versions', 'moved/one.txt'])
  t.equal(noVersions.code, 0)
  t.match(noVersions.stderr, /moved\/one\.txt has no earlier versions/)
  const noFile = await cli(['versions', 'moved/missing.md'])
  t.equal(noFile.code, 1)
  t.match(noFile.stderr, /no such file/)
  const changes = await cli(['changes'])
  t.match(changes.stdout, /^no changes since now: go on with --cursor \S+ \(or --follow to wait for them\)$/m)

  const removed = await cli(['rm', 'moved/one.txt', '--json'])
  const { trashId } = JSON.parse(removed.stdout) as { trashId: string }
  t.equal((await cli(['put', join(home, 'one.txt'), 'moved/one.txt'])).code, 0)
  const taken = await cli(['trash', 'restore', trashId])
  t.equal(taken.code, 1)
  t.match(taken.stderr, /elsewhere with --to PATH/)
  t.match((await cli(['trash'])).stdout, / purged on \d{4}-/)
})

t.test('sync --resolve settles a file changed on both sides: here sends this side\'s, server fetches the server\'s, both keeps both', async (t) => {
  const { url, home, cli, apiKey } = await setup(t)
  t.equal((await cli(['login', '--url', url, '--api-key', apiKey])).code, 0)
  const remote = async (path: string) => (await cli(['get', path])).stdout
  /** A folder synced to `prefix`, then its f.txt changed on both sides. */
  const conflicted = async (prefix: string) => {
    const here = join(home, prefix)
    await mkdir(here)
    await writeFile(join(here, 'f.txt'), 'first')
    t.equal((await cli(['sync', here, prefix])).code, 0)
    await writeFile(join(home, 'server.txt'), 'on the server')
    t.equal((await cli(['put', join(home, 'server.txt'), `${prefix}/f.txt`])).code, 0)
    await writeFile(join(here, 'f.txt'), 'here')
    return here
  }

  const left = await conflicted('left')
  const refused = await cli(['sync', left, 'left', '--json'])
  t.equal(refused.code, 1, 'without --resolve, a conflict')
  t.match(JSON.parse(refused.stdout).conflicts, [{ path: 'f.txt', reason: /^changed here and on the server since the last sync.*--resolve here\|server\|both/ }], 'which says how to settle it')
  t.equal((await cli(['sync', left, 'left', '--resolve', 'here'])).code, 0)
  t.equal(await remote('left/f.txt'), 'here', 'here: this side\'s is sent')

  const right = await conflicted('right')
  t.equal((await cli(['sync', right, 'right', '--resolve', 'server'])).code, 0)
  t.equal(await readFile(join(right, 'f.txt'), 'utf8'), 'on the server', 'server: the server\'s is fetched')

  const both = await conflicted('both')
  t.equal((await cli(['sync', both, 'both', '--resolve', 'both'])).code, 0)
  t.equal(await remote('both/f.txt'), 'here', 'both: this side\'s is sent')
  t.equal(await readFile(join(both, 'f (server).txt'), 'utf8'), 'on the server', 'and the server\'s is kept beside it here')
  t.equal((await cli(['sync', both, 'both', '--resolve', 'sideways'])).code, 2)
})
