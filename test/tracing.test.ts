import t, { type Test } from 'tap'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import { FastifyOtelInstrumentation } from '@fastify/otel'
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node'
import { buildTestApp } from './helpers/app.js'
import { createTestDatabase } from './helpers/db.js'
import { startIdp, TEST_AUDIENCE } from './helpers/idp.js'
import { createKeyIn } from './helpers/keys.js'
import { closedPortUrl } from './helpers/net.js'
import { startOtlpCollector, type ReceivedSpan } from './helpers/otlp-collector.js'
import { startS3Server } from './helpers/s3.js'
import { startServerProcess } from './helpers/server.js'
import { startService } from './helpers/service.js'
import { startSts } from './helpers/sts.js'
import { signed } from './helpers/s3-payloads.js'
import { waitFor } from './helpers/wait.js'
import { ConfigError } from '../config.js'
import { tracingRequested } from '../tracing/sdk.js'
import { stowage } from '../plugins/stowage.js'

const SERVER = 2
const CLIENT = 3

const s3 = await startS3Server()
const idp = await startIdp()
const sts = await startSts()
const collector = await startOtlpCollector()
t.teardown(async () => { await Promise.all([s3.close(), idp.close(), sts.close(), collector.close()]) })

async function serve (t: Test, env: Record<string, string> = {}) {
  return await startService(t, {
    driver: 's3',
    s3,
    env: {
      JWT_ISSUER: idp.issuer,
      JWT_AUDIENCE: TEST_AUDIENCE,
      STS_ENDPOINT: sts.endpoint,
      CREDENTIALS_ROLE_ARN: 'arn:aws:iam::123456789012:role/stowage-users',
      OIDC_CLIENT_ID: 'stowage',
      OIDC_CLIENT_SECRET: 'client-secret',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_SERVICE_NAME: 'stowage-under-test',
      // Spans leave in batches: a short delay keeps the test short.
      OTEL_BSP_SCHEDULE_DELAY: '100',
      ...env
    }
  })
}

/** A W3C traceparent for a new trace, as a caller that traces would send. */
function newTraceparent () {
  const traceId = randomBytes(16).toString('hex')
  const parentSpanId = randomBytes(8).toString('hex')
  return { traceId, parentSpanId, traceparent: `00-${traceId}-${parentSpanId}-01` }
}

/** Whether `span` descends from `ancestor` within `spans`. */
function descendsFrom (spans: ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan) {
  for (let at: ReceivedSpan | undefined = span; at; at = spans.find((parent) => parent.spanId === at!.parentSpanId)) {
    if (at.parentSpanId === ancestor.spanId) return true
  }
  return false
}

t.test('an authenticated upload is one trace: the request span, and below it its database and S3 spans', async (t) => {
  const { server, key } = await serve(t)
  const { traceId, parentSpanId, traceparent } = newTraceparent()
  const content = `private-content-${randomBytes(8).toString('hex')}`
  const res = await fetch(`${server.url}/api/raw/notes/traced.txt`, {
    method: 'PUT', headers: { authorization: `Bearer ${key}`, traceparent, 'content-type': 'text/plain' }, body: content
  })
  t.equal(res.status, 200)
  const requestId = res.headers.get('x-request-id')!

  const spans = await collector.trace(traceId, (spans) =>
    spans.some((span) => span.kind === SERVER) && spans.some((span) => span.name === 'store publish') && spans.some((span) => span.name === 'SELECT'))
  const request = spans.find((span) => span.kind === SERVER)!
  t.equal(request.name, 'PUT /api/raw/*', 'named by the route template')
  t.equal(request.parentSpanId, parentSpanId, 'a child of the caller\'s span (traceparent)')
  t.equal(request.serviceName, 'stowage-under-test', 'OTEL_SERVICE_NAME')
  t.match(request.attributes, { 'http.route': '/api/raw/*', 'http.request.method': 'PUT', 'http.response.status_code': 200, 'url.path': '/api/raw/notes/traced.txt', 'stowage.request_id': requestId })

  const write = spans.find((span) => span.name === 'store publish')!
  t.equal(write.kind, CLIENT)
  t.match(write.attributes, { 'peer.service': 's3', 'stowage.operation': 'publish', 'stowage.outcome': 'ok' })
  t.ok(descendsFrom(spans, write, request), 'the S3 write is inside the request')
  const lookup = spans.find((span) => span.name === 'SELECT')!
  t.match(lookup.attributes, { 'db.operation.name': 'SELECT', 'stowage.outcome': 'ok' })
  t.match(lookup.attributes['db.system.name'], /^(sqlite|postgresql)$/)
  t.ok(descendsFrom(spans, lookup, request), 'the API key lookup is inside the request')

  const everything = JSON.stringify(collector.spans)
  t.notOk(everything.includes(content), 'no file content in any span')
  t.notOk(everything.includes(key.slice(5, 20)), 'no part of the API key in any span')
  t.notOk(everything.includes('Bearer'), 'no Authorization header in any span')

  const lines = server.logs.filter((line) => line.reqId === requestId)
  t.ok(lines.some((line) => line.msg === 'request completed'), 'the request\'s log lines')
  t.ok(lines.filter((line) => line.msg !== 'incoming request').every((line) => line.traceId === traceId), 'each carries the trace id (the "incoming request" line comes before the span)')
})

t.test('a PutObject through the S3 endpoint is one trace too: its request span, and the store write below it', async (t) => {
  const { server, url, auth } = await serve(t, { S3_API_PORT: '0', S3_CREDENTIALS_KEY: randomBytes(32).toString('base64') })
  await waitFor(() => server.logs.some(({ msg }) => msg === 'S3 endpoint ready'), { what: 'the S3 endpoint' })
  const endpoint = `http://127.0.0.1:${new URL(server.logs.find(({ msg }) => msg === 'S3 endpoint ready')!.address as string).port}`
  const credentials = await (await fetch(`${url}/api/s3-credentials`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' })).json() as { accessKeyId: string, secretAccessKey: string }
  const { traceId, traceparent } = newTraceparent()
  const target = `${endpoint}/traced/object.txt`
  await fetch(`${url}/api/folders`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ path: 'traced' }) })
  const headers = await signed('PUT', target, credentials, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' })
  t.equal((await fetch(target, { method: 'PUT', headers: { ...headers, traceparent }, body: 'traced through S3' })).status, 200)
  const spans = await collector.trace(traceId, (spans) => spans.some((span) => span.kind === SERVER) && spans.some((span) => span.name === 'store publish'))
  const request = spans.find((span) => span.kind === SERVER)!
  t.equal(request.name, 'PUT /*')
  t.ok(descendsFrom(spans, spans.find((span) => span.name === 'store publish')!, request), 'the store write is inside the S3 request')
  t.notOk(JSON.stringify(collector.spans).includes(credentials.secretAccessKey), 'no secret in any span')
})

t.test('a WebDAV PUT is one trace too: its request span, and the store write below it; no Basic password in any span', async (t) => {
  const { url, key } = await serve(t)
  const { traceId, traceparent } = newTraceparent()
  const basic = `Basic ${Buffer.from(`alice:${key}`).toString('base64')}`
  t.equal((await fetch(`${url}/dav/traced.txt`, { method: 'PUT', headers: { authorization: basic, traceparent }, body: 'traced through WebDAV' })).status, 201)
  const spans = await collector.trace(traceId, (spans) => spans.some((span) => span.kind === SERVER) && spans.some((span) => span.name === 'store publish'))
  const request = spans.find((span) => span.kind === SERVER)!
  t.equal(request.name, 'PUT /dav/*')
  t.ok(descendsFrom(spans, spans.find((span) => span.name === 'store publish')!, request), 'the store write is inside the WebDAV request')
  t.notOk(JSON.stringify(collector.spans).includes(key) || JSON.stringify(collector.spans).includes(basic.slice(6)), 'no key in any span')
})

t.test('calls to the identity provider and STS are spans of the request that made them', async (t) => {
  const { server } = await serve(t)
  const jwt = newTraceparent()
  const listed = await fetch(`${server.url}/api/files`, { headers: { authorization: `Bearer ${idp.token({ sub: 'alice' })}`, traceparent: jwt.traceparent } })
  t.equal(listed.status, 200)
  const jwtSpans = await collector.trace(jwt.traceId, (spans) => spans.some((span) => span.kind === SERVER) && spans.some((span) => span.name === 'idp jwks'))
  const jwtRequest = jwtSpans.find((span) => span.kind === SERVER)!
  for (const name of ['idp discovery', 'idp jwks']) {
    const span = jwtSpans.find((span) => span.name === name)
    t.ok(span && descendsFrom(jwtSpans, span, jwtRequest), `${name} inside the request`)
  }
  // A listing reads the index of names, in the database.
  const listing = jwtSpans.find((span) => span.name === 'SELECT' && String(span.attributes['db.query.text']).includes('"names"'))
  t.ok(listing && descendsFrom(jwtSpans, listing, jwtRequest), 'the index\'s query inside the request')
  t.match(jwtSpans.find((span) => span.name === 'idp jwks')!.attributes, { 'peer.service': 'identity-provider', 'stowage.outcome': 'ok' })

  const refresh = newTraceparent()
  const refreshToken = idp.addRefreshGrant({ userId: 'alice' })
  const refreshed = await fetch(`${server.url}/api/auth/refresh`, {
    method: 'POST', headers: { 'content-type': 'application/json', traceparent: refresh.traceparent }, body: JSON.stringify({ refreshToken })
  })
  t.equal(refreshed.status, 200)
  const answer = await refreshed.json() as { accessToken: string, credentials: { secretAccessKey: string, sessionToken: string } }
  const refreshSpans = await collector.trace(refresh.traceId, (spans) =>
    ['POST /api/auth/refresh', 'idp token', 'sts assume_role_with_web_identity'].every((name) => spans.some((span) => span.name === name)))
  t.match(refreshSpans.find((span) => span.name === 'sts assume_role_with_web_identity')!.attributes, { 'peer.service': 'aws-sts', 'stowage.outcome': 'ok' })

  const everything = JSON.stringify(collector.spans)
  for (const secret of [refreshToken, answer.accessToken, answer.credentials.secretAccessKey, answer.credentials.sessionToken]) {
    t.notOk(everything.includes(secret), 'no token or credential in any span')
  }
})

t.test('a peer that fails marks its span as failed, and the request span as an error', async (t) => {
  const { server, key } = await serve(t, { S3_TIMEOUT_MS: '1000', S3_IDLE_TIMEOUT_MS: '1000' })
  const { traceId, traceparent } = newTraceparent()
  s3.pause()
  let status
  try {
    status = (await fetch(`${server.url}/api/raw/notes/down.txt`, { headers: { authorization: `Bearer ${key}`, traceparent } })).status
  } finally {
    s3.resume()
  }
  t.equal(status, 503)
  const spans = await collector.trace(traceId, (spans) => spans.some((span) => span.kind === SERVER) && spans.some((span) => span.name.startsWith('store ')))
  const store = spans.find((span) => span.name.startsWith('store '))!
  t.equal(store.statusCode, 2, 'the store span is an error')
  t.equal(store.attributes['stowage.outcome'], 'failed')
  t.equal(spans.find((span) => span.kind === SERVER)!.statusCode, 2, 'so is the request span')
})

t.test('OTLP/JSON is sent when OTEL_EXPORTER_OTLP_PROTOCOL says so', async (t) => {
  const { server } = await serve(t, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })
  const { traceId, traceparent } = newTraceparent()
  t.equal((await fetch(`${server.url}/health`, { headers: { traceparent } })).status, 200)
  const spans = await collector.trace(traceId, (spans) => spans.some((span) => span.kind === SERVER))
  t.equal(spans.find((span) => span.kind === SERVER)!.name, 'GET /health')
  t.ok(collector.contentTypes.has('application/json'), 'JSON arrived')
  t.ok(collector.contentTypes.has('application/x-protobuf'), 'and protobuf, the default, for the other tests')
})

t.test('a collector that is down or never answers delays no request, and shutdown waits at most the export timeout', async (t) => {
  const down = await serve(t, { OTEL_EXPORTER_OTLP_ENDPOINT: await closedPortUrl() })
  t.equal((await fetch(`${down.server.url}/api/raw/a.txt`, { method: 'PUT', headers: { authorization: `Bearer ${down.key}` }, body: 'a' })).status, 200)

  const stalled = await startOtlpCollector()
  stalled.state.stall = true
  t.teardown(() => stalled.close())
  const slow = await serve(t, { OTEL_EXPORTER_OTLP_ENDPOINT: stalled.endpoint, OTEL_EXPORTER_OTLP_TIMEOUT: '1000', SHUTDOWN_TIMEOUT_MS: '20000' })
  for (let i = 0; i < 5; i++) {
    t.equal((await fetch(`${slow.server.url}/api/raw/b.txt`, { method: 'PUT', headers: { authorization: `Bearer ${slow.key}` }, body: 'b' })).status, 200)
  }
  slow.server.child.kill('SIGTERM')
  t.equal(await slow.server.exited, 0, 'a clean exit, well before SHUTDOWN_TIMEOUT_MS would have cut it')
})

t.test('tracing is off unless the OTEL_* variables ask for it', async (t) => {
  t.equal(tracingRequested({}), false)
  t.equal(tracingRequested({ OTEL_SERVICE_NAME: 'stowage' }), false, 'a name alone exports nothing')
  t.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true)
  t.equal(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }), true)
  t.equal(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' }), true, 'to the collector on localhost')
  t.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }), false)
  t.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }), false)
  t.throws(() => tracingRequested({ OTEL_TRACES_EXPORTER: 'zipkin' }), ConfigError)

  const { app, close } = await buildTestApp()
  t.teardown(close)
  t.notOk(app.hasPlugin('@fastify/otel'), 'no request spans')
})

t.test('a protocol this build cannot send is refused at start with a clear message', async (t) => {
  const database = await createTestDatabase()
  t.teardown(() => database.drop())
  await t.rejects(startServerProcess({ DATABASE_URL: database.url, OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    /exited with 1/)
})

t.test('mounted in a host app with `tracing: true`, Stowage\'s calls are spans under the host\'s request spans', async (t) => {
  const exporter = new InMemorySpanExporter()
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  provider.register()
  t.teardown(() => provider.shutdown())
  const database = await createTestDatabase({ shared: true })
  const storageDir = await mkdtemp(join(tmpdir(), 'stowage-tracing-host-'))
  const key = await createKeyIn(database.url)
  const host = Fastify()
  await host.register(new FastifyOtelInstrumentation({ instrumentHooks: false }).plugin())
  await host.register(stowage, { prefix: '/files', database: { url: database.url }, storage: { dir: storageDir }, tracing: true })
  t.teardown(async () => {
    await host.close()
    await database.drop()
    await rm(storageDir, { recursive: true, force: true })
  })
  const res = await host.inject({ method: 'PUT', url: '/files/api/raw/a.txt', headers: { authorization: `Bearer ${key}` }, payload: 'a' })
  t.equal(res.statusCode, 200)
  const spans = exporter.getFinishedSpans()
  const request = spans.find((span) => span.name === 'request')!
  const write = spans.find((span) => span.name === 'store publish')!
  t.ok(request && write, 'the host\'s request span and Stowage\'s store span')
  t.equal(write.spanContext().traceId, request.spanContext().traceId, 'in one trace')
  t.equal(write.attributes['peer.service'], 'file-system')
})
