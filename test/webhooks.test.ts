import t from 'tap'
import Fastify from 'fastify'
import http from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stowage, type StowageDecorators } from '../index.js'
import { createMetrics } from '../metrics/metrics.js'
import { bearer, buildTestApp } from './helpers/app.js'
import { createTestDatabase, DRIVERS } from './helpers/db.js'
import { startIdp } from './helpers/idp.js'
import { createKeyIn } from './helpers/keys.js'
import { startS3Server } from './helpers/s3.js'
import { startService, stopServer } from './helpers/service.js'
import { waitFor } from './helpers/wait.js'
import { startReceiver } from './helpers/webhook-receiver.js'

const idp = await startIdp()
const s3 = await startS3Server()
const receiver = await startReceiver()
t.teardown(async () => { await idp.close(); await s3.close(); await receiver.close() })

interface Delivery { id: string, op: string, key: string, status: string, attempts: number, lastError?: string, nextAttemptAt?: string, deliveredAt?: string }

/** A client of one app for one user: `call` throws on anything but `expect` (any 2xx by default). */
function clientOf (base: string, headers: Record<string, string>) {
  const send = async (method: string, path: string, body?: unknown) => await fetch(`${base}${path}`, {
    method, headers: { ...headers, ...body === undefined ? {} : { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' } },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
  })
  return {
    send,
    async call (method: string, path: string, body?: unknown) {
      const answer = await send(method, path, body)
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`)
      return answer.status === 204 ? undefined : await answer.json() as any
    },
    deliveries: async (id: string) => ((await (await send('GET', `/api/webhooks/${id}/deliveries`)).json()) as { deliveries: Delivery[] }).deliveries
  }
}

async function listening (app: { listen (options: { port: number, host: string }): Promise<string>, server: { address (): unknown } }) {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
}

for (const driver of DRIVERS) {
  t.test(`${driver}: a webhook is told of every change, signed as Standard Webhooks; a prefix filters; the owner lists, inspects and deletes it`, async (t) => {
    const { app, close } = await buildTestApp({ driver, s3, idp, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
    t.teardown(close)
    const base = await listening(app)
    const alice = clientOf(base, bearer(idp.token({ sub: `hooked-${driver}` })))
    const bob = clientOf(base, bearer(idp.token({ sub: `other-${driver}` })))

    const all = await alice.call('POST', '/api/webhooks', { url: `${receiver.url}/all-${driver}` })
    t.match(all, { id: /^wh_/, url: `${receiver.url}/all-${driver}`, prefix: '', secret: /^whsec_[A-Za-z0-9+/]+=*$/, createdAt: /Z$/ })
    const docs = await alice.call('POST', '/api/webhooks', { url: `${receiver.url}/docs-${driver}`, prefix: 'docs/' })
    const listed = await alice.call('GET', '/api/webhooks')
    t.same(listed.webhooks.map(({ id, prefix, disabled }: any) => ({ id, prefix, disabled })), [{ id: all.id, prefix: '', disabled: false }, { id: docs.id, prefix: 'docs/', disabled: false }])
    t.notOk(JSON.stringify(listed).includes('whsec_'), 'the secret is shown once, at creation')

    await alice.call('PUT', '/api/raw/a.txt', 'hello')
    await alice.call('PUT', '/api/raw/docs/b.txt', 'bee')
    await alice.call('POST', '/api/moves', { from: 'docs/b.txt', to: 'c.txt' })
    await alice.call('DELETE', '/api/raw/a.txt')
    await alice.call('POST', '/api/folders', { path: 'empty' })
    await alice.call('DELETE', '/api/folders/empty')

    await receiver.waitFor(6, `/all-${driver}`)
    await receiver.waitFor(2, `/docs-${driver}`)
    const events = receiver.verified(`/all-${driver}`, all.secret)
    const described = events.map(({ type, data }) => `${type} ${data.from ? `${data.from} -> ` : ''}${data.key}`).sort()
    t.same(described, ['file.delete a.txt', 'file.move docs/b.txt -> c.txt', 'file.put a.txt', 'file.put docs/b.txt', 'folder.create empty/', 'folder.delete empty/'],
      'every change, each verified by the standardwebhooks package')
    t.match(events.find(({ type, data }) => type === 'file.put' && data.key === 'a.txt'), { timestamp: /Z$/, data: { size: 5, etag: /^"/ } })
    t.same(receiver.verified(`/docs-${driver}`, docs.secret).map(({ type }) => type).sort(), ['file.move', 'file.put'], 'a move counts for its source\'s prefix')
    t.throws(() => receiver.verified(`/docs-${driver}`, all.secret), 'signed with its own webhook\'s secret only')
    t.equal(receiver.received.find(({ path }) => path === `/all-${driver}`)?.headers['content-type'], 'application/json')

    await waitFor(async () => (await alice.deliveries(all.id)).every(({ status }) => status === 'delivered'), { what: 'the deliveries marked delivered' })
    const deliveries = await alice.deliveries(all.id)
    t.equal(deliveries.length, 6)
    // Unique across databases: the webhook's random id, then the delivery's number.
    t.match(deliveries[0], { id: new RegExp(`^msg_${all.id.slice(3)}_\\d+$`), type: 'folder.delete', op: 'folder-delete', key: 'empty/', status: 'delivered', attempts: 1, deliveredAt: /Z$/ })
    t.notOk('nextAttemptAt' in deliveries[0])
    t.ok(receiver.received.some(({ headers }) => headers['webhook-id'] === deliveries[0].id), 'the delivery\'s id is the webhook-id header')

    t.equal((await bob.send('DELETE', `/api/webhooks/${all.id}`)).status, 404, 'another user\'s webhook is none of theirs')
    t.equal((await bob.send('GET', `/api/webhooks/${all.id}/deliveries`)).status, 404)
    t.same(await bob.call('GET', '/api/webhooks'), { webhooks: [] })
    t.equal((await alice.send('DELETE', `/api/webhooks/${all.id}`)).status, 204)
    t.equal((await alice.send('DELETE', `/api/webhooks/${all.id}`)).status, 404)
    t.equal((await alice.send('GET', `/api/webhooks/${all.id}/deliveries`)).status, 404)
    await alice.call('PUT', '/api/raw/docs/d.txt', 'd')
    await receiver.waitFor(3, `/docs-${driver}`)
    t.equal(receiver.received.filter(({ path }) => path === `/all-${driver}`).length, 6, 'a deleted webhook is told nothing more')
  })
}

t.test('a URL that is not http(s), or whose host is or resolves to a private address, is refused when the webhook is made', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  const alice = bearer(idp.token({ sub: 'refused-hooks' }))
  const create = (body: unknown) => app.inject({ method: 'POST', url: '/api/webhooks', headers: alice, payload: body as object })
  for (const [url, why] of [
    ['http://127.0.0.1:9/hook', /127\.0\.0\.1 is a loopback, private/],
    ['http://10.1.2.3/hook', /10\.1\.2\.3 is/],
    ['http://192.168.1.1/hook', /192\.168\.1\.1 is/],
    ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is/],
    ['http://0.0.0.0/hook', /0\.0\.0\.0 is/],
    ['http://[::1]/hook', /::1 is/],
    ['http://[::ffff:127.0.0.1]/hook', /is a loopback/],
    ['http://[::7f00:1]/hook', /::7f00:1 is a loopback/],
    ['http://[64:ff9b::7f00:1]/hook', /64:ff9b::7f00:1 is a loopback/],
    ['http://[::ffff:0:7f00:1]/hook', /::ffff:0:7f00:1 is a loopback/],
    ['http://[64:ff9b::a9fe:a9fe]/hook', /is a loopback/],
    ['http://[2002:a00:1::]/hook', /2002:a00:1:: is a loopback/],
    ['http://[fd00:ec2::254]/hook', /fd00:ec2::254 is/],
    ['http://localhost/hook', /localhost resolves to (127\.0\.0\.1|::1)/],
    ['http://nothing.invalid/hook', /nothing\.invalid does not resolve|did not resolve/],
    ['ftp://example.com/hook', /http or https/],
    ['not a url', /not a URL/]
  ] as const) {
    const answer = await create({ url })
    t.equal(answer.statusCode, 400, url)
    t.match(answer.json(), { error: why }, url)
  }
  t.equal((await create({})).statusCode, 400, 'a URL is needed')
  t.equal((await create({ url: 'http://127.0.0.1/', prefix: '../' })).statusCode, 400)
  t.same((await app.inject({ url: '/api/webhooks', headers: alice })).json(), { webhooks: [] }, 'nothing was made')
})

t.test('at delivery too: a webhook whose host is private by then is not POSTed to; redirects are not followed; 25 webhooks at most', async (t) => {
  const { app, close } = await buildTestApp({ idp })
  t.teardown(close)
  const base = await listening(app)
  const alice = clientOf(base, bearer(idp.token({ sub: 'rebound' })))
  // As if the names had resolved to public addresses when the webhooks were made.
  const db = (app as unknown as StowageDecorators).stowageDb
  for (const [id, url] of [['wh_literal', `${receiver.url}/rebound-literal`], ['wh_name', `http://localhost:${receiver.port}/rebound-name`]]) {
    await db.insertInto('webhooks').values({ id, user_id: 'rebound', url, prefix: '', secret: 'whsec_c2VjcmV0', created_at: new Date().toISOString(), disabled: 0 }).execute()
  }
  await alice.call('PUT', '/api/raw/a.txt', 'a')
  for (const id of ['wh_literal', 'wh_name']) {
    await waitFor(async () => (await alice.deliveries(id))[0]?.lastError !== undefined, { what: `${id}'s attempt` })
    t.match((await alice.deliveries(id))[0], { status: 'pending', attempts: 1, lastError: /^refused: .*(loopback|resolves to)/, nextAttemptAt: /Z$/ }, id)
  }
  t.notOk(receiver.received.some(({ path }) => path.startsWith('/rebound')), 'nothing reached the private address')

  const { app: allowing, close: closeAllowing } = await buildTestApp({ idp, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  t.teardown(closeAllowing)
  const bob = clientOf(await listening(allowing), bearer(idp.token({ sub: 'redirected' })))
  receiver.answer((request, response) => {
    if (request.path === '/redirecting') response.writeHead(302, { location: `${receiver.url}/redirect-target` }).end()
    else response.end()
  })
  t.teardown(() => receiver.answer((_request, response) => { response.end() }))
  const redirecting = await bob.call('POST', '/api/webhooks', { url: `${receiver.url}/redirecting` })
  await bob.call('PUT', '/api/raw/a.txt', 'a')
  await waitFor(async () => (await bob.deliveries(redirecting.id))[0]?.lastError !== undefined, { what: 'the redirected attempt' })
  t.match((await bob.deliveries(redirecting.id))[0], { status: 'pending', lastError: 'the receiver answered 302 (redirects are not followed)' })
  t.notOk(receiver.received.some(({ path }) => path === '/redirect-target'), 'the redirect was not followed')

  for (let made = 1; made < 25; made++) await bob.call('POST', '/api/webhooks', { url: `${receiver.url}/many-${made}`, prefix: 'none/' })
  const refused = await bob.send('POST', '/api/webhooks', { url: `${receiver.url}/one-too-many` })
  t.equal(refused.status, 400)
  t.match(await refused.json(), { error: /25 webhooks/ })
})

t.test('a receiver that answers 500 is retried with the same id; one that hangs is cut at 10 s', async (t) => {
  const { app, close } = await buildTestApp({ idp, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  t.teardown(close)
  const alice = clientOf(await listening(app), bearer(idp.token({ sub: 'retried' })))
  let failedOnce = false
  const cut: string[] = []
  receiver.answer((request, response) => {
    if (request.path === '/flaky' && !failedOnce) {
      failedOnce = true
      response.writeHead(500).end()
    } else if (request.path === '/hanging') {
      response.on('close', () => cut.push(request.headers['webhook-id'] as string))
    } else response.end()
  })
  t.teardown(() => receiver.answer((_request, response) => { response.end() }))
  const flaky = await alice.call('POST', '/api/webhooks', { url: `${receiver.url}/flaky` })
  const hanging = await alice.call('POST', '/api/webhooks', { url: `${receiver.url}/hanging` })
  await alice.call('PUT', '/api/raw/a.txt', 'a')

  await waitFor(async () => (await alice.deliveries(flaky.id))[0]?.status === 'delivered', { what: 'the retried delivery' })
  t.match((await alice.deliveries(flaky.id))[0], { status: 'delivered', attempts: 2, deliveredAt: /Z$/ })
  const ids = receiver.received.filter(({ path }) => path === '/flaky').map(({ headers }) => headers['webhook-id'])
  t.equal(ids.length, 2)
  t.equal(ids[0], ids[1], 'a retry has the same webhook-id, for the receiver to drop a repeat')

  await waitFor(async () => (await alice.deliveries(hanging.id))[0]?.lastError !== undefined, { what: 'the cut attempt' })
  t.match((await alice.deliveries(hanging.id))[0], { status: 'pending', attempts: 1, lastError: 'no answer within 10 s' })
  await waitFor(() => cut.length === 1, { what: 'the receiver to see its connection closed' })
})

t.test('after its last retry a webhook is disabled: what it had queued fails, and nothing more is queued; deliveries are counted in metrics', async (t) => {
  const database = await createTestDatabase({ shared: true })
  const dir = await mkdtemp(join(tmpdir(), 'stowage-hooks-'))
  t.teardown(async () => { await database.drop(); await rm(dir, { recursive: true, force: true }) })
  const key = await createKeyIn(database.url)
  const host = Fastify()
  t.teardown(() => host.close())
  const metrics = createMetrics({ defaultMetrics: false })
  await host.register(stowage, { database: { url: database.url }, storage: { dir }, keys: { bcryptCost: 4 }, metrics, webhooks: { allowPrivate: true, retryDelaysMs: [100, 200] } })
  const base = await listening(host)
  const alice = clientOf(base, { authorization: `Bearer ${key}` })
  receiver.answer((request, response) => { response.writeHead(request.path === '/failing' ? 503 : 200).end() })
  t.teardown(() => receiver.answer((_request, response) => { response.end() }))
  const failing = await alice.call('POST', '/api/webhooks', { url: `${receiver.url}/failing` })
  await alice.call('PUT', '/api/raw/a.txt', 'a')

  await waitFor(async () => (await alice.call('GET', '/api/webhooks')).webhooks[0].disabled, { what: 'the webhook disabled' })
  const [last] = await alice.deliveries(failing.id)
  t.match(last, { status: 'failed', attempts: 3, lastError: 'the receiver answered 503' }, 'tried once and retried twice')
  t.equal(receiver.received.filter(({ path }) => path === '/failing').length, 3)
  await alice.call('PUT', '/api/raw/b.txt', 'b')
  t.equal((await alice.deliveries(failing.id)).length, 1, 'a disabled webhook has nothing queued')

  const scraped = await metrics.registry.metrics()
  t.match(scraped, /stowage_webhook_deliveries_total\{result="retry"\} 2/)
  t.match(scraped, /stowage_webhook_deliveries_total\{result="failed"\} 1/)
  const { cursor } = await alice.call('GET', '/api/changes/latest')
  const poll = http.get(`${base}/api/changes?cursor=${cursor}&wait=60`, { headers: { authorization: `Bearer ${key}` } }).on('error', () => {})
  const waiting = async (count: number) => (await metrics.registry.metrics()).includes(`stowage_changes_waiting_requests ${count}\n`)
  await waitFor(() => waiting(1), { what: 'one long-poll counted' })
  poll.destroy()
  await waitFor(() => waiting(0), { what: 'the client that left no longer counted' })
  t.ok(await waiting(0), 'a long-poll is counted while it waits')
})

t.test('two instances deliver each change once; a delivery in flight when its instance is killed still arrives; no secret reaches the logs', async (t) => {
  const service = await startService(t, { instances: 2, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  const [one, two] = service.servers
  const token = 'sekrit-receiver-token'
  let hanging = true
  receiver.answer((request, response) => {
    if (request.path.startsWith('/restart') && hanging) return
    response.end()
  })
  t.teardown(() => receiver.answer((_request, response) => { response.end() }))
  const made = await (await fetch(`${one.url}/api/webhooks`, {
    method: 'POST', headers: { ...service.auth, 'content-type': 'application/json' }, body: JSON.stringify({ url: `${receiver.url}/shared?token=${token}`, prefix: 'shared/' })
  })).json() as { id: string, secret: string }
  for (let n = 0; n < 20; n++) {
    const answer = await fetch(`${[one, two][n % 2].url}/api/raw/shared/${n}.txt`, { method: 'PUT', headers: service.auth, body: String(n) })
    t.equal(answer.status, 200)
  }
  await receiver.waitFor(20, `/shared?token=${token}`)
  const ids = receiver.received.filter(({ path }) => path.startsWith('/shared')).map(({ headers }) => headers['webhook-id'])
  t.equal(new Set(ids).size, 20, 'every change')
  await waitFor(async () => {
    const { deliveries } = await (await fetch(`${one.url}/api/webhooks/${made.id}/deliveries`, { headers: service.auth })).json() as { deliveries: Delivery[] }
    return deliveries.length === 20 && deliveries.every(({ status }) => status === 'delivered')
  }, { what: 'all 20 delivered' })
  t.equal(ids.length, 20, 'each once: one instance took each')

  await stopServer(two)
  const restarting = await (await fetch(`${one.url}/api/webhooks`, {
    method: 'POST', headers: { ...service.auth, 'content-type': 'application/json' }, body: JSON.stringify({ url: `${receiver.url}/restart`, prefix: 'restart/' })
  })).json() as { id: string, secret: string }
  t.equal((await fetch(`${one.url}/api/raw/restart/a.txt`, { method: 'PUT', headers: service.auth, body: 'a' })).status, 200)
  await receiver.waitFor(1, '/restart')
  await stopServer(one)
  hanging = false
  const after = await service.start()
  await receiver.waitFor(2, '/restart')
  const [first, second] = receiver.received.filter(({ path }) => path === '/restart')
  t.equal(second.headers['webhook-id'], first.headers['webhook-id'], 'the same delivery, taken again once its claim lapsed')
  t.same(receiver.verified('/restart', restarting.secret).map(({ data }) => data.key), ['restart/a.txt', 'restart/a.txt'])
  await waitFor(async () => {
    const { deliveries } = await (await fetch(`${after.url}/api/webhooks/${restarting.id}/deliveries`, { headers: service.auth })).json() as { deliveries: Delivery[] }
    return deliveries[0]?.status === 'delivered'
  }, { what: 'the delivery marked delivered' })

  const logs = [one, two, after].map(({ logs }) => JSON.stringify(logs)).join('\n')
  for (const secret of [token, made.secret, restarting.secret, service.key]) t.notOk(logs.includes(secret), 'no secret in the logs')
})

t.test('WEBHOOK_ALLOW_PRIVATE is for receivers on the LAN: link-local and metadata addresses stay refused, in every IPv6 form', async (t) => {
  const { app, close } = await buildTestApp({ idp, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  t.teardown(close)
  const alice = bearer(idp.token({ sub: 'lan-hooks' }))
  for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fe80::1]/hook', 'http://[fd00:ec2::254]/hook', 'http://[::ffff:169.254.169.254]/hook', 'http://[64:ff9b::a9fe:a9fe]/hook']) {
    const answer = await app.inject({ method: 'POST', url: '/api/webhooks', headers: alice, payload: { url } })
    t.equal(answer.statusCode, 400, url)
    t.match(answer.json(), { error: /link-local or metadata address/ }, url)
    t.notMatch(answer.json().error, /WEBHOOK_ALLOW_PRIVATE/, 'no advice to set what is set')
  }
  t.equal((await app.inject({ method: 'POST', url: '/api/webhooks', headers: alice, payload: { url: `${receiver.url}/lan` } })).statusCode, 201, 'loopback is allowed')
})

t.test('a receiver holds nothing past the deadline: an answer past 64 KiB is cut and its socket closed, one that trickles is cut at the deadline', async (t) => {
  const { app, close } = await buildTestApp({ idp, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  t.teardown(close)
  const alice = clientOf(await listening(app), bearer(idp.token({ sub: 'trickled' })))
  const closed: string[] = []
  receiver.answer((request, response) => {
    response.on('close', () => closed.push(request.path))
    if (request.path === '/flood') {
      // An endless answer, as fast as it is read.
      response.writeHead(200)
      const more = () => { while (response.write(Buffer.alloc(16 * 1024))) { /* until the socket is full */ } }
      response.on('drain', more)
      more()
    } else if (request.path === '/trickle') {
      response.writeHead(200)
      const timer = setInterval(() => response.write('.'), 200)
      response.on('close', () => clearInterval(timer))
    } else response.end()
  })
  t.teardown(() => receiver.answer((_request, response) => { response.end() }))
  const flood = await alice.call('POST', '/api/webhooks', { url: `${receiver.url}/flood` })
  const trickle = await alice.call('POST', '/api/webhooks', { url: `${receiver.url}/trickle` })
  await alice.call('PUT', '/api/raw/a.txt', 'a')
  await waitFor(async () => (await alice.deliveries(flood.id))[0]?.status === 'delivered', { what: 'the flooded delivery' })
  await waitFor(() => closed.includes('/flood'), { what: 'the flooding receiver\'s socket to be closed' })
  await waitFor(async () => (await alice.deliveries(trickle.id))[0]?.lastError !== undefined, { what: 'the trickled attempt', timeoutMs: 30_000 })
  t.match((await alice.deliveries(trickle.id))[0], { status: 'pending', attempts: 1, lastError: 'no answer within 10 s' })
  await waitFor(() => closed.includes('/trickle'), { what: 'the trickling receiver\'s socket to be closed' })
})

t.test('delivery slots are shared fairly: one user\'s receivers that never answer do not hold back another user\'s', async (t) => {
  const { app, close } = await buildTestApp({ idp, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  t.teardown(close)
  const base = await listening(app)
  const mallory = clientOf(base, bearer(idp.token({ sub: 'slow-hooks' })))
  const alice = clientOf(base, bearer(idp.token({ sub: 'fast-hooks' })))
  receiver.answer((request, response) => { if (request.path !== '/never') response.end() })
  t.teardown(() => receiver.answer((_request, response) => { response.end() }))
  for (let made = 0; made < 25; made++) await mallory.call('POST', '/api/webhooks', { url: `${receiver.url}/never` })
  for (let change = 0; change < 8; change++) await mallory.call('PUT', `/api/raw/m${change}.txt`, 'm')
  await receiver.waitFor(4, '/never')
  const fast = await alice.call('POST', '/api/webhooks', { url: `${receiver.url}/fast` })
  await alice.call('PUT', '/api/raw/a.txt', 'a')
  // Within the first hanging attempts' 10 s: in FIFO order it waited for 200 of them (120 s).
  await receiver.waitFor(1, '/fast')
  t.match((await alice.deliveries(fast.id))[0], { status: /delivered|pending/ })
  t.ok(receiver.received.filter(({ path }) => path === '/never').length <= 16, 'the hanging receiver holds at most its share of the slots')
})

t.test('a webhook made with an API key belongs to its lineage: once the key is revoked, nothing more is delivered', async (t) => {
  const { app, close } = await buildTestApp({ idp, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  t.teardown(close)
  const base = await listening(app)
  const owner = clientOf(base, bearer(idp.token({ sub: 'key-hooks' })))
  const made = await owner.call('POST', '/api/keys', { name: 'hooks' })
  const withKey = clientOf(base, bearer(made.key))
  const hook = await withKey.call('POST', '/api/webhooks', { url: `${receiver.url}/by-key` })
  await owner.call('DELETE', `/api/keys/${made.id}`)
  await owner.call('PUT', '/api/raw/a.txt', 'a')
  await waitFor(async () => (await owner.deliveries(hook.id))[0]?.status === 'failed', { what: 'the delivery to fail' })
  t.match((await owner.deliveries(hook.id))[0], { status: 'failed', lastError: /API key .* revoked/ })
  t.notOk(receiver.received.some(({ path }) => path === '/by-key'), 'nothing was sent')
})
