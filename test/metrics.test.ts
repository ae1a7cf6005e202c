import t from 'tap'
import { spawnSync } from 'node:child_process'
import { bearer, buildTestApp } from './helpers/app.js'
import { startService } from './helpers/service.js'
import { closedPortUrl } from './helpers/net.js'
import { startIdp } from './helpers/idp.js'
import { startS3Server } from './helpers/s3.js'
import { waitFor } from './helpers/wait.js'

// promtool (Debian's prometheus package) checks the live output; .ci/run installs it when missing.
const promtool = ['/usr/bin/promtool', 'promtool'].find((command) => spawnSync(command, ['--version']).status === 0)

/** One sample's value from the exposition text; 0 when the series does not exist yet. */
function sample (text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`)
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!match || match[1] !== name) continue
    const have = (match[2] ?? '').split(',')
    if (wanted.every((pair) => have.includes(pair))) return Number(match[3])
  }
  return 0
}

t.test('METRICS_PORT serves Prometheus metrics on a listener of its own, which promtool accepts after a workload', async (t) => {
  const metricsPort = new URL(await closedPortUrl()).port
  const { server, auth, key } = await startService(t, { env: { METRICS_PORT: metricsPort } })
  await fetch(`${server.url}/api/raw/notes/a.txt`, { method: 'PUT', headers: auth, body: 'hello' })
  await fetch(`${server.url}/api/raw/notes/a.txt`, { headers: auth })
  await fetch(`${server.url}/api/files`, { headers: { authorization: 'Bearer stow_malformed' } })
  await fetch(`${server.url}/api/files`, { headers: { authorization: 'Bearer neither-a-jwt-nor-a-key' } })
  await fetch(`${server.url}/health`)

  const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
  t.equal(scraped.status, 200)
  t.match(scraped.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  const text = await scraped.text()
  t.equal(sample(text, 'stowage_http_requests_total', { route: '/api/raw/*', method: 'PUT', status: '200' }), 1)
  t.ok(sample(text, 'stowage_http_response_bytes_total', { route: '/api/raw/*' }) > 5, 'bytes out of the file routes')
  t.equal(sample(text, 'stowage_auth_attempts_total', { method: 'api_key', result: 'ok' }), 2)
  t.equal(sample(text, 'stowage_auth_attempts_total', { method: 'api_key', result: 'refused' }), 1, 'a malformed key')
  t.equal(sample(text, 'stowage_auth_attempts_total', { method: 'none', result: 'refused' }), 1, 'a bearer that no method takes')
  t.equal(sample(text, 'stowage_readiness_check_up', { check: 'storage' }), 1)
  t.ok(sample(text, 'stowage_store_operation_duration_seconds_count', { operation: 'publish' }) >= 1)
  t.ok(sample(text, 'stowage_database_query_duration_seconds_count', { operation: 'select' }) >= 2, 'the key lookups, direct or through Kysely')
  t.equal(sample(text, 'stowage_upload_memory_bytes', { state: 'held' }), 0, 'nothing held once the upload is done')
  t.ok(sample(text, 'stowage_process_resident_memory_bytes') > 0, 'the default process metrics')
  t.notMatch(text, /notes\/a\.txt/, 'no file name in any label')
  t.notMatch(text, new RegExp(key.slice(0, 15)), 'no key in any label')

  t.equal((await fetch(`${server.url}/metrics`)).status, 404, 'not on the API\'s own port')
  t.equal((await fetch(`http://127.0.0.1:${metricsPort}/anything`)).status, 404)

  if (!promtool) {
    t.comment('no promtool on this machine: the exposition format is not checked')
    return
  }
  const check = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8' })
  t.equal(check.status, 0, `promtool check metrics: ${check.stdout}${check.stderr}`)
})

t.test('metrics are off unless METRICS_PORT is set (or a host asks for them)', async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  t.equal(app.stowageMetrics, undefined)
})

t.test('counters move (401, 429, 503 with the store paused, 404 by template), and labels stay bounded whatever callers send', async (t) => {
  const s3 = await startS3Server()
  t.teardown(() => s3.close())
  const { app, close } = await buildTestApp({
    driver: 's3', s3,
    env: { METRICS_PORT: '0', AUTH_FAILURES_PER_ADDRESS: '3', S3_TIMEOUT_MS: '1000', S3_IDLE_TIMEOUT_MS: '1000', S3_CONNECT_TIMEOUT_MS: '500' }
  })
  t.teardown(close)
  const registry = app.stowageMetrics!.registry
  const text = () => registry.metrics()
  const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
  // Verified before the address is throttled: a known key keeps working.
  t.equal((await app.inject({ url: '/api/files', headers: bearer(key) })).statusCode, 200)

  for (let i = 0; i < 3; i++) await app.inject({ url: '/api/files', headers: bearer(`stow_${'x'.repeat(48)}`) })
  const cold = (await app.stowageKeys.create({ userId: 'bob', orgId: null })).key
  t.equal((await app.inject({ url: '/api/files', headers: bearer(cold) })).statusCode, 429)
  let scraped = await text()
  t.equal(sample(scraped, 'stowage_auth_attempts_total', { method: 'api_key', result: 'throttled' }), 1, 'a 429')
  t.ok(sample(scraped, 'stowage_http_requests_total', { route: '/api/files', method: 'GET', status: '401' }) >= 3, 'the 401s')

  s3.pause()
  const paused = await app.inject({ url: '/api/raw/x', headers: bearer(key) })
  t.equal(paused.statusCode, 503)
  scraped = await text()
  t.equal(sample(scraped, 'stowage_http_requests_total', { route: '/api/raw/*', method: 'GET', status: '503' }), 1, 'a 503')
  t.equal(sample(scraped, 'stowage_store_operation_failures_total', { operation: 'read' }), 1, 'the store failure, by operation')
  s3.resume()
  await waitFor(async () => (await app.inject({ url: '/api/raw/x', headers: bearer(key) })).statusCode === 404, { what: 'the store back' })

  // Many paths, many users, many made-up routes: the label values do not grow with them.
  for (let i = 0; i < 200; i++) {
    const user = (await app.stowageKeys.create({ userId: `user-${i}`, orgId: null })).key
    await app.inject({ url: `/api/raw/folder-${i}/file-${i}.txt`, headers: bearer(user) })
    await app.inject({ url: `/no/such/route/${i}` })
  }
  scraped = await text()
  const series = scraped.split('\n').filter((line) => line.startsWith('stowage_http_requests_total{'))
  t.ok(series.length < 20, `${series.length} series of stowage_http_requests_total after 600 distinct requests`)
  t.notMatch(scraped, /folder-|user-\d|no\/such/, 'no path or user id in a label')
  t.equal(sample(scraped, 'stowage_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }), 200)
})

t.test('calls to the identity provider and STS are timed by operation, and their failures counted', async (t) => {
  const idp = await startIdp()
  const { app, close } = await buildTestApp({
    idp,
    env: {
      METRICS_PORT: '0', STS_ENDPOINT: await closedPortUrl(), CREDENTIALS_ROLE_ARN: 'arn:aws:iam::123456789012:role/stowage-users',
      OIDC_CLIENT_ID: 'stowage', UPSTREAM_TIMEOUT_MS: '1000'
    }
  })
  t.teardown(async () => { await close(); await idp.close() })
  const text = () => app.stowageMetrics!.registry.metrics()
  t.equal((await app.inject({ url: '/api/files', headers: bearer(idp.token({ sub: 'alice' })) })).statusCode, 200)
  let scraped = await text()
  t.equal(sample(scraped, 'stowage_identity_call_duration_seconds_count', { peer: 'idp', operation: 'discovery' }), 1)
  t.equal(sample(scraped, 'stowage_identity_call_duration_seconds_count', { peer: 'idp', operation: 'jwks' }), 1, 'one JWKS fetch')
  t.equal(sample(scraped, 'stowage_identity_call_failures_total', { peer: 'idp', operation: 'jwks' }), 0)

  const refreshToken = idp.addRefreshGrant({ userId: 'alice' })
  const refreshed = await app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken } })
  t.equal(refreshed.statusCode, 503, 'STS out of reach')
  scraped = await text()
  t.equal(sample(scraped, 'stowage_identity_call_duration_seconds_count', { peer: 'idp', operation: 'token' }), 1)
  t.equal(sample(scraped, 'stowage_identity_call_failures_total', { peer: 'idp', operation: 'token' }), 0)
  t.equal(sample(scraped, 'stowage_identity_call_failures_total', { peer: 'sts', operation: 'assume_role_with_web_identity' }), 1, 'the STS failure')

  idp.state.failTokenEndpoint = true
  t.equal((await app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken } })).statusCode, 502)
  t.equal(sample(await text(), 'stowage_identity_call_failures_total', { peer: 'idp', operation: 'token' }), 1, 'a provider answering 5xx failed')
})
