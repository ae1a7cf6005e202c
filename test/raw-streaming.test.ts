import t, { type Test } from 'tap'
import { readdir } from 'node:fs/promises'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { startS3Server, type S3Server } from './helpers/s3.js'
import { startService } from './helpers/service.js'
import { generatedFile, getStream, putStream, sampleRss, sha256Of } from './helpers/streams.js'
import { timed, waitFor } from './helpers/wait.js'

// The server runs in a process of its own, over real sockets: its memory is measured, and the
// limits that live in Node's HTTP server are the real ones.
const MIB = 1024 * 1024
const UPLOAD_MEMORY_BYTES = 32 * MIB

const s3 = await startS3Server()
t.teardown(() => s3.close())

async function serve (t: Test, driver: 'fs' | 's3', env: Record<string, string> = {}, store: S3Server = s3) {
  const service = await startService(t, { driver, s3: store, env: { UPLOAD_MEMORY_BYTES: String(UPLOAD_MEMORY_BYTES), ...env } })
  const target = (path: string) => ({ port: service.port, path: `/api/raw/${path}`, headers: service.auth })
  return { ...service, target }
}

// A server process takes seconds to start on a busy machine: the cases that need the same settings
// share one per driver (each on paths of its own), started when first asked for.
const TIMEOUTS = { HTTP_IDLE_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '1000' }
const servers = new Map<string, ReturnType<typeof serve>>()
function shared (driver: 'fs' | 's3', settings: 'defaults' | 'timeouts') {
  const name = `${driver} ${settings}`
  if (!servers.has(name)) servers.set(name, serve(t, driver, settings === 'timeouts' ? TIMEOUTS : {}))
  return servers.get(name)!
}

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: a file far larger than UPLOAD_MEMORY_BYTES goes up and down whole, and the server's memory does not follow its size`, async (t) => {
    const { server, target } = await shared(driver, 'defaults')
    const mib = 200
    const expected = sha256Of(generatedFile(mib))
    await putStream(target('warm-up.bin'), generatedFile(1), MIB)
    await getStream(target('warm-up.bin'))

    const upload = sampleRss(server.child.pid!)
    const put = await putStream(target('big.bin'), generatedFile(mib), mib * MIB)
    const up = upload.stop()
    t.equal(put.status, 200, put.body)
    t.match(JSON.parse(put.body), { key: 'big.bin', size: mib * MIB })

    const download = sampleRss(server.child.pid!)
    const got = await getStream(target('big.bin'))
    const down = download.stop()
    t.equal(got.status, 200)
    t.equal(got.bytes, mib * MIB)
    t.equal(got.sha256, expected, 'byte-identical (SHA-256)')
    t.equal(got.headers.etag, JSON.parse(put.body).etag)

    // A buffered file would add at least its own 200 MiB; the budget of npm run bench is 128 MiB for 1 GiB.
    for (const [what, { growthBytes }] of [['upload', up], ['download', down]] as const) {
      t.ok(growthBytes < 150 * MIB, `${what}: RSS grew by ${(growthBytes / MIB).toFixed(1)} MiB for a ${mib} MiB file`)
    }
  })

  t.test(`${driver}: a client that disconnects half-way leaves the old file intact, and the service serving`, async (t) => {
    const { target, alive, storageDir, port, key, server } = await shared(driver, 'defaults')
    t.equal((await putStream(target('kept.bin'), [Buffer.from('the old version')], 15)).status, 200)
    const socket = connect(port, '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.on('error', () => {})
    socket.write(`PUT /api/raw/kept.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: ${64 * MIB}\r\n\r\n`)
    for (const chunk of generatedFile(32)) {
      if (!socket.write(chunk)) await new Promise((resolve) => socket.once('drain', resolve))
    }
    socket.destroy()
    // Read only once the server has finished with the cut request: a server that published the
    // partial body on disconnect would have done so by then.
    await waitFor(() => server.logs.some((line) => line.msg === 'request ended after the client left' && line.reason === 'the upload was cut off before its end'),
      { what: 'the server to end the cut-off upload' })
    const read = await getStream(target('kept.bin'))
    t.equal(read.status, 200)
    t.equal(read.sha256, sha256Of([Buffer.from('the old version')]), 'the old file, whole')
    t.ok(await alive())
    if (driver === 'fs') {
      await waitFor(async () => (await readdir(join(storageDir, '.tmp'))).length === 0, { what: 'the partial upload to be removed' })
      t.pass('no partial upload is left behind')
    }
  })

  t.test(`${driver}: a client that stalls mid-upload is cut off at HTTP_IDLE_TIMEOUT_MS; the old file stays`, async (t) => {
    const { target, alive, port, key } = await shared(driver, 'timeouts')
    t.equal((await putStream(target('stalled.bin'), [Buffer.from('old')], 3)).status, 200)
    const socket = connect(port, '127.0.0.1')
    socket.on('error', () => {})
    const closed = new Promise((resolve) => socket.once('close', resolve))
    socket.write(`PUT /api/raw/stalled.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: ${16 * MIB}\r\n\r\n`)
    socket.write(Buffer.alloc(MIB))
    const { ms } = await timed(() => closed)
    t.ok(ms < 15_000, `closed after ${Math.round(ms)} ms`)
    const read = await getStream(target('stalled.bin'))
    t.equal(read.sha256, sha256Of([Buffer.from('old')]))
    t.ok(await alive())
  })

  t.test(`${driver}: a long upload is not cut off by HTTP_REQUEST_TIMEOUT_MS, which bounds only bodies that are not streamed`, async (t) => {
    const { target, port, key } = await shared(driver, 'timeouts')
    const socket = connect(port, '127.0.0.1')
    socket.on('error', () => {})
    let answer = ''
    socket.on('data', (chunk) => { answer += chunk })
    socket.write(`PUT /api/raw/slow.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: 30\r\n\r\n`)
    // 30 bytes over about 3 s, three times the whole-request deadline.
    for (let i = 0; i < 30; i++) {
      socket.write('x')
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    await waitFor(() => answer.includes('\r\n\r\n{'), { what: 'the answer' })
    t.match(answer, /^HTTP\/1\.1 200 /)
    socket.destroy()
    t.equal((await getStream(target('slow.bin'))).bytes, 30)
  })
}

t.test('s3: a raw upload holds what it will buffer of UPLOAD_MEMORY_BYTES (its length, up to three parts); past it, 503 with Retry-After; the room comes back', async (t) => {
  // 32 MiB holds one upload of three 8 MiB parts, and 8 MiB more.
  const { target, port, key } = await shared('s3', 'defaults')
  // A holder that arrives while a probe holds the room is itself refused: it is replaced.
  let holder: Socket | undefined
  let held = ''
  const hold = () => {
    holder?.destroy()
    held = ''
    const socket = connect(port, '127.0.0.1')
    socket.on('error', () => {})
    socket.on('data', (chunk) => { if (socket === holder) held += chunk })
    socket.write(`PUT /api/raw/held.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: ${64 * MIB}\r\n\r\n`)
    socket.write(Buffer.alloc(MIB))
    holder = socket
  }
  const nineMib = [Buffer.alloc(9 * MIB)]
  hold()
  let refused = await putStream(target('second.bin'), nineMib, 9 * MIB)
  await waitFor(async () => {
    if (held !== '') hold()
    else if (refused.status === 503) return true
    refused = await putStream(target('second.bin'), nineMib, 9 * MIB)
    return refused.status === 503 && held === ''
  }, { what: 'the first upload to hold its parts' })
  t.equal(held, '', 'the first upload is still in progress')
  t.same(JSON.parse(refused.body), { error: 'too many uploads in progress, try again shortly' })
  t.equal(refused.headers['retry-after'], '5')
  t.equal((await putStream(target('small.bin'), [Buffer.from('x')], 1)).status, 200, 'a small upload holds only its length: it fits beside')
  t.equal(held, '', 'the first upload was still in progress')
  holder!.destroy()
  await waitFor(async () => (await putStream(target('second.bin'), nineMib, 9 * MIB)).status === 200, { what: 'the room to come back' })
  t.pass('an upload fits again once the first is gone')
})

t.test('s3: a store paused mid-download cuts the answer off within S3_IDLE_TIMEOUT_MS; one paused before is 503 in seconds', async (t) => {
  const own = await startS3Server()
  t.teardown(() => own.close())
  const { target, alive, server } = await serve(t, 's3', { S3_IDLE_TIMEOUT_MS: '1000', S3_TIMEOUT_MS: '15000' }, own)
  t.equal((await putStream(target('movie.bin'), generatedFile(64), 64 * MIB)).status, 200)
  t.equal((await putStream(target('tiny.txt'), [Buffer.from('tiny')], 4)).status, 200)

  const cutOff = await new Promise<{ bytes: number, ms: number }>((resolve, reject) => {
    const started = performance.now()
    let bytes = 0
    import('node:http').then(({ request }) => request({ ...target('movie.bin'), host: '127.0.0.1' }, (res) => {
      res.once('data', () => { own.pause() })
      // A slow reader: the store's socket fills, so the pause is met while data is awaited.
      res.on('data', (chunk: Buffer) => { bytes += chunk.length })
      const done = () => resolve({ bytes, ms: performance.now() - started })
      res.once('aborted', done).once('error', done).once('end', done)
    }).on('error', reject).end())
  })
  t.ok(cutOff.bytes < 64 * MIB, `cut off after ${cutOff.bytes} bytes`)
  t.ok(cutOff.ms < 15_000, `within ${Math.round(cutOff.ms)} ms`)

  const { result: small, ms } = await timed(() => fetch(`${server.url}/api/raw/tiny.txt`, { headers: target('tiny.txt').headers }))
  t.equal(small.status, 503)
  t.equal(small.headers.get('retry-after'), '5')
  t.ok(ms < 5000, `a small GET answered 503 in ${Math.round(ms)} ms, not after S3_TIMEOUT_MS`)
  t.ok(await alive())
  own.resume()
  await waitFor(async () => (await fetch(`${server.url}/api/raw/tiny.txt`, { headers: target('tiny.txt').headers })).status === 200, { what: 'recovery' })
})
