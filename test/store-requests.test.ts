import t from 'tap'
import { bearer, buildTestApp } from './helpers/app.js'
import { startIdp } from './helpers/idp.js'
import { startS3Server } from './helpers/s3.js'
import { startS3Front } from './helpers/s3-front.js'

const idp = await startIdp()
const s3 = await startS3Server()
t.teardown(async () => { await idp.close(); await s3.close() })

/** A front before s3rver that logs each request the service makes: `METHOD /bucket/key`. */
async function startLoggingProxy (target: URL) {
  const log: string[] = []
  const front = await startS3Front(target, (incoming) => {
    const copied = incoming.headers['x-amz-copy-source'] === undefined ? '' : ` from ${decodeURIComponent(String(incoming.headers['x-amz-copy-source']))}`
    log.push(`${incoming.method} ${decodeURIComponent(incoming.url!.split('?')[0])}${copied}`)
    return false
  })
  t.teardown(front.close)
  return { url: front.endpoint, log }
}

const proxy = await startLoggingProxy(new URL(s3.endpoint))
const { app, close } = await buildTestApp({ driver: 's3', s3: { ...s3, endpoint: proxy.url }, idp })
t.teardown(close)
const alice = bearer(idp.token({ sub: 'alice' }))
const body = Buffer.alloc(64 * 1024, 'w')

/**
 * The requests to the store that one write of `path` made. A publish looks at the store's clock
 * once more only when it crossed the turn of a second: the client's own timing tells when that
 * may have happened.
 */
async function storeRequests (path: string, write: () => Promise<{ statusCode: number }>) {
  const from = proxy.log.length
  const started = Date.now()
  const answered = await write()
  const mayCrossASecond = Math.floor(started / 1000) !== Math.floor(Date.now() / 1000)
  const requests = proxy.log.slice(from).filter((line) => line.split(' from ')[0].endsWith(`/users/alice/files/${path}`))
  return { status: answered.statusCode, requests, allowed: mayCrossASecond ? 3 : 2 }
}

const raw = (path: string, headers: Record<string, string> = {}) => () =>
  app.inject({ method: 'PUT', url: `/api/raw/${path}`, headers: { ...alice, 'content-type': 'application/octet-stream', ...headers }, payload: body })

t.test('a write on S3 makes at most two requests to the store: one look at the key and its PutObject, conditional or not', async (t) => {
  const cases: Array<[string, string, () => Promise<{ statusCode: number }>]> = [
    ['an unconditional raw PUT of a new path', 'new.bin', raw('new.bin')],
    ['an unconditional raw PUT over a file', 'new.bin', raw('new.bin')],
    ['a raw PUT with If-None-Match: *', 'created.bin', raw('created.bin', { 'if-none-match': '*' })],
    ['a JSON PUT', 'form.txt', () => app.inject({ method: 'PUT', url: '/api/files/form.txt', headers: alice, payload: { content: body.toString('base64'), contentType: 'text/plain' } })]
  ]
  for (const [name, path, write] of cases) {
    const { status, requests, allowed } = await storeRequests(path, write)
    t.equal(status, 200, name)
    t.ok(requests.length <= allowed, `${name}: ${requests.join(', ')}`)
    t.equal(requests.filter((line) => line.startsWith('PUT ')).length, 1, `${name}: one PutObject`)
  }
  const { etag } = (await app.inject({ method: 'HEAD', url: '/api/raw/new.bin', headers: alice })).headers as { etag: string }
  const { status, requests, allowed } = await storeRequests('new.bin', raw('new.bin', { 'if-match': etag }))
  t.equal(status, 200)
  t.ok(requests.length <= allowed, `a raw PUT with If-Match: ${requests.join(', ')}`)
  const refused = await storeRequests('new.bin', raw('new.bin', { 'if-match': '"00000000000000000000000000000000"' }))
  t.equal(refused.status, 412, 'a stale If-Match is refused')
  t.same(refused.requests.map((line) => line.split(' ')[0]), ['HEAD'], 'after one look at the key, with nothing written')
})

t.test('a copy or move across a mount\'s edge is one CopyObject in the store, counted for whoever owns the destination', async (t) => {
  const ada = bearer(idp.token({ sub: 'ada' }))
  const bea = bearer(idp.token({ sub: 'bea' }))
  for (const headers of [ada, bea]) t.equal((await app.inject({ url: '/api/me', headers })).statusCode, 200)
  t.equal((await app.inject({ method: 'PUT', url: '/api/raw/docs/a.bin', headers: { ...ada, 'content-type': 'application/octet-stream' }, payload: body })).statusCode, 200)
  t.equal((await app.inject({ method: 'POST', url: '/api/shares', headers: ada, payload: { path: 'docs/', with: { userId: 'bea' }, role: 'editor' } })).statusCode, 201)
  const usage = async (headers: Record<string, string>) => (await app.inject({ url: '/api/usage', headers })).json().fileBytes as number
  const [adaBefore, beaBefore] = [await usage(ada), await usage(bea)]
  const byStore = async (operation: () => Promise<{ statusCode: number, payload: string }>) => {
    const from = proxy.log.length
    const answered = await operation()
    t.equal(answered.statusCode, 200, answered.payload)
    return proxy.log.slice(from).filter((line) => / \/[^/]+\/users\/(ada|bea)\/files\//.test(line) && !line.includes('/files/docs/.'))
  }
  const out = await byStore(() => app.inject({ method: 'POST', url: '/api/copies', headers: bea, payload: { from: 'docs/a.bin', to: 'mine.bin' } }))
  t.notOk(out.some((line) => line.startsWith('GET ')), `out of the mount, no bytes read through the instance: ${out.join(', ')}`)
  t.ok(out.some((line) => /^PUT \/[^/]+\/users\/bea\/files\/mine\.bin from .*users\/ada\/files\/docs\/a\.bin/.test(line)), `one CopyObject from the owner's key: ${out.join(', ')}`)
  t.equal(await usage(bea), beaBefore + body.length, 'counted as the grantee\'s, whose file it is')
  t.equal(await usage(ada), adaBefore, 'and not the owner\'s')
  const into = await byStore(() => app.inject({ method: 'POST', url: '/api/moves', headers: bea, payload: { from: 'mine.bin', to: 'docs/b.bin' } }))
  t.notOk(into.some((line) => line.startsWith('GET ')), `into the mount, no bytes read through the instance: ${into.join(', ')}`)
  t.ok(into.some((line) => /^PUT \/[^/]+\/users\/ada\/files\/docs\/b\.bin from .*users\/bea\/files\/mine\.bin/.test(line)), `one CopyObject to the owner's key: ${into.join(', ')}`)
  t.equal(await usage(ada), adaBefore + body.length, 'counted as the owner\'s')
  t.equal(await usage(bea), beaBefore, 'and no longer the grantee\'s: she moved it')
})
