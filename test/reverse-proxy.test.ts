import t, { type Test } from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { request } from 'node:http'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateApiKey } from '../keys/api-key.js'
import { bearer, buildTestApp } from './helpers/app.js'
import { closedPortUrl } from './helpers/net.js'
import { tusUpload } from './helpers/tus.js'
import { captureLogs, waitFor } from './helpers/wait.js'

// docs/deploy.md's nginx block, as written, in front of a real Stowage: the names that a proxy
// could rewrite, and the body limits it could get wrong. .ci/run installs nginx when it is missing.
const nginx = ['/usr/sbin/nginx', 'nginx'].find((command) => spawnSync(command, ['-v']).status === 0)
const skip = nginx ? false : 'no nginx on this machine'

/** The first ```nginx block of docs/deploy.md. */
function documentedLocation (): string {
  const block = /```nginx\n([\s\S]*?)```/.exec(readFileSync('docs/deploy.md', 'utf8'))?.[1]
  if (!block) throw new Error('docs/deploy.md has no nginx block')
  return block
}

/** A GET sent with node:http, which sends `path` as written: fetch (WHATWG URLs) would resolve
 *  dot segments itself. */
function rawGet (proxy: string, path: string, headers: Record<string, string>, localAddress?: string) {
  const { hostname: host, port } = new URL(proxy)
  return new Promise<{ status?: number, body: string }>((resolve, reject) => {
    request({ host, port, path, headers, localAddress }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk })
      res.on('end', () => resolve({ status: res.statusCode, body }))
    }).on('error', reject).end()
  })
}

/** nginx with the documented block, in front of `upstream`; resolves with its URL once it proxies. */
async function startNginx (t: Test, upstream: string): Promise<string> {
  const location = documentedLocation()
  t.match(location, /proxy_pass http:\/\/127\.0\.0\.1:3000;/, 'the block proxies to the default address')
  const dir = mkdtempSync(join(tmpdir(), 'stowage-nginx-'))
  const proxy = await closedPortUrl()
  const temp = (name: string) => `${name}_temp_path ${join(dir, name)};`
  writeFileSync(join(dir, 'nginx.conf'), [
    // Run as root (CI), workers would otherwise be `nobody`, unable to use the temporary folders.
    process.getuid?.() === 0 ? 'user root;' : '',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')};`,
    'events {}',
    'http {',
    '  access_log off;',
    `  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join(' ')}`,
    `  server { listen ${new URL(proxy).host};`,
    location.replaceAll('http://127.0.0.1:3000', upstream),
    '  }',
    '}'
  ].join('\n'))
  const server = spawn(nginx as string, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'inherit' })
  const exited = new Promise((resolve) => server.once('exit', resolve))
  t.teardown(async () => {
    server.kill('SIGTERM')
    await exited
    rmSync(dir, { recursive: true, force: true })
  })
  await waitFor(async () => (await fetch(`${proxy}/health`).catch(() => undefined))?.status === 200, { what: 'nginx to proxy /health' })
  return proxy
}

t.test("docs/deploy.md's nginx block passes names through untouched and uploads up to MAX_FILE_BYTES", { skip }, async (t) => {
  const { app, config, close } = await buildTestApp()
  t.teardown(close)
  const proxy = await startNginx(t, await app.listen({ host: '127.0.0.1', port: 0 }))
  const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
  const through = (path: string, init: RequestInit = {}) =>
    fetch(`${proxy}${path}`, { ...init, headers: { ...bearer(key), 'content-type': 'application/json', ...init.headers } })

  const put = (path: string, bytes: number) =>
    through(`/api/files/${path}`, { method: 'PUT', body: JSON.stringify({ content: Buffer.alloc(bytes, 'x').toString('base64') }) })

  t.equal((await put('100%25.md', 3)).status, 200, 'a name with an encoded %')
  t.equal((await put('notes/my%20r%C3%A9sum%C3%A9.md', 3)).status, 200, 'a name with a space and accents')
  const listed = await (await through('/api/files')).json() as { files: Array<{ key: string }> }
  t.same(listed.files.map((file) => file.key).sort(), ['100%.md', 'notes/my résumé.md'], 'stored under the names the client meant')

  const dotDot = await rawGet(proxy, '/api/files/a/%2E%2E/b.md', bearer(key))
  t.equal(dotDot.status, 400, 'an encoded .. reaches Stowage, which refuses it, rather than being resolved by the proxy')
  t.match(JSON.parse(dotDot.body), { error: /\.\./ })

  t.equal((await put('largest.bin', config.MAX_FILE_BYTES)).status, 200, 'a file of MAX_FILE_BYTES fits client_max_body_size')
  const tooLarge = await put('too-large.bin', config.MAX_FILE_BYTES + 1)
  t.equal(tooLarge.status, 413)
  t.same(await tooLarge.json(), { error: `file is larger than ${config.MAX_FILE_BYTES} bytes` }, "Stowage's own 413, not nginx's")

  const large = Buffer.alloc(3 * config.MAX_FILE_BYTES, 'r')
  large.write('first', 0)
  const raw = await fetch(`${proxy}/api/raw/media/large.bin`, { method: 'PUT', headers: bearer(key), body: large })
  t.equal(raw.status, 200, 'a raw upload three times the JSON cap streams through /api/raw/')
  const back = await fetch(`${proxy}/api/raw/media/large.bin`, { headers: bearer(key) })
  t.ok(Buffer.from(await back.arrayBuffer()).equals(large), 'and comes back whole')
  const range = await fetch(`${proxy}/api/raw/media/large.bin`, { headers: { ...bearer(key), range: 'bytes=0-4' } })
  t.equal(range.status, 206)
  t.equal(await range.text(), 'first', 'ranges pass through')

  const dav = await fetch(`${proxy}/dav/media/dav.bin`, { method: 'PUT', headers: bearer(key), body: large })
  t.equal(dav.status, 201, 'a WebDAV PUT three times the JSON cap streams through /dav/')
  const moved = await fetch(`${proxy}/dav/media/dav.bin`, { method: 'MOVE', headers: { ...bearer(key), destination: `${proxy}/dav/media/renamed.bin` } })
  t.equal(moved.status, 201, 'a Destination naming the proxy is this server')
  t.ok(Buffer.from(await (await fetch(`${proxy}/dav/media/renamed.bin`, { headers: bearer(key) })).arrayBuffer()).equals(large), 'whole')
})

t.test('behind that nginx, a resumable upload three times its body cap goes through in pieces', { skip }, async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  const proxy = await startNginx(t, await app.listen({ host: '127.0.0.1', port: 0 }))
  const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
  const cap = Number(/location \/api\/uploads[\s\S]*?client_max_body_size (\d+)m;/.exec(documentedLocation())![1]) * 1024 * 1024
  const body = randomBytes(3 * cap)
  const send = (chunkSize: number, path: string) => tusUpload(body, { endpoint: `${proxy}/api/uploads`, headers: bearer(key), metadata: { path }, chunkSize })
  await send(8 * 1024 * 1024, 'media/tus.bin')
  const back = await fetch(`${proxy}/api/raw/media/tus.bin`, { headers: bearer(key) })
  t.ok(Buffer.from(await back.arrayBuffer()).equals(body), 'the whole file, in 8 MiB pieces')
  await t.rejects(send(Infinity, 'media/one-piece.bin'), /413/, 'the same file as one piece meets the proxy\'s cap')
})

t.test('behind that nginx with TRUST_PROXY naming it, the failure limit counts each client, and a forged X-Forwarded-For changes nothing', { skip }, async (t) => {
  const { app, close } = await buildTestApp({ env: { TRUST_PROXY: '127.0.0.1', AUTH_FAILURES_PER_ADDRESS: '3', AUTH_FAILURES_PER_KEY: '1000' } })
  t.teardown(close)
  const proxy = await startNginx(t, await app.listen({ host: '127.0.0.1', port: 0 }))
  // Clients on other loopback addresses: nginx itself reaches Stowage from 127.0.0.1.
  const from = async (localAddress: string, token: string, forwardedFor?: string) =>
    (await rawGet(proxy, '/api/auth/credentials', { ...bearer(token), ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) }, localAddress)).status
  for (let i = 0; i < 3; i++) t.equal(await from('127.0.0.2', generateApiKey('stow').key), 401, 'a failed authentication')
  const cold = (await app.stowageKeys.create({ userId: 'carol', orgId: null })).key
  t.equal(await from('127.0.0.2', cold, '198.51.100.7'), 429, 'the failing client is throttled, whatever it forwards')
  t.equal(await from('127.0.0.3', cold), 200, 'another client behind the same proxy is not')
})

t.test('request ids cross that nginx: its $request_id is the id in Stowage\'s answer and log lines; an untrusted client\'s is replaced', { skip }, async (t) => {
  const logs = captureLogs()
  const { app, close } = await buildTestApp({ env: { TRUST_PROXY: '127.0.0.1', LOG_LEVEL: 'info' }, logStream: logs.stream })
  t.teardown(close)
  const proxy = await startNginx(t, await app.listen({ host: '127.0.0.1', port: 0 }))
  const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
  const through = await fetch(`${proxy}/api/files`, { headers: { ...bearer(key), 'x-request-id': 'forged-by-the-client' } })
  const id = through.headers.get('x-request-id')
  t.match(id, /^[0-9a-f]{32}$/, `nginx's $request_id, not the client's: ${id}`)
  await logs.waitForMessage('request completed')
  t.ok(logs.entries.filter((entry) => entry.reqId === id).length >= 2, 'the request\'s log lines carry it')

  const port = (app.server.address() as { port: number }).port
  const idFrom = (localAddress: string, given: string) => new Promise<string | undefined>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/health', localAddress, headers: { 'x-request-id': given } }, (res) => {
      res.resume()
      resolve(res.headers['x-request-id'] as string | undefined)
    }).on('error', reject).end()
  })
  t.match(await idFrom('127.0.0.2', 'well-formed-but-untrusted'), /^[0-9a-f-]{36}$/, 'a client that is not a trusted proxy gets a new UUID')
  t.equal(await idFrom('127.0.0.1', 'from-the-proxy-itself'), 'from-the-proxy-itself', 'the trusted proxy\'s own id is kept')
  t.match(await idFrom('127.0.0.1', 'a b"forged'), /^[0-9a-f-]{36}$/, 'a malformed id is replaced, even from the proxy')
})
