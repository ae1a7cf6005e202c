import t, { type Test } from 'tap'
import type { Socket } from 'node:net'
import { answerOnClose, openSocket } from './helpers/net.js'
import { isAlive, startService, stopServer } from './helpers/service.js'
import { timed, waitFor } from './helpers/wait.js'

// Each test runs the real server in a process of its own and talks to it over real sockets:
// these limits live in Node's HTTP server, which app.inject never reaches.
async function serve (t: Test, env: Record<string, string>) {
  const service = await startService(t, { env })
  const restart = async (more: Record<string, string>) => {
    const server = await service.start(more)
    return { server, port: Number(new URL(server.url).port) }
  }
  return { server: service.server, port: service.port, key: service.key, restart }
}

const putHead = (key: string, length: number | 'chunked') =>
  `PUT /api/files/slow.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
  `${length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`}\r\n\r\n`

t.test('a body trickling in is cut off at HTTP_REQUEST_TIMEOUT_MS; the server lives on', async (t) => {
  const { server, port, key } = await serve(t, { HTTP_REQUEST_TIMEOUT_MS: '2000', HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_IDLE_TIMEOUT_MS: '30000' })
  const socket = await openSocket(port)
  const done = answerOnClose(socket)
  socket.write(putHead(key, 1000) + '{"content":"')
  const trickle = setInterval(() => socket.writable && socket.write('A'), 200)
  t.teardown(() => clearInterval(trickle))
  const { ms } = await timed(() => done)
  clearInterval(trickle)
  t.ok(ms < 15_000, `closed after ${Math.round(ms)} ms, though a byte came every 200 ms`)
  t.ok(await isAlive(server))
})

t.test('a body that stalls is cut off at HTTP_IDLE_TIMEOUT_MS', async (t) => {
  const { server, port, key } = await serve(t, { HTTP_IDLE_TIMEOUT_MS: '1000' })
  const socket = await openSocket(port)
  const done = answerOnClose(socket)
  socket.write(putHead(key, 1000) + '{"content":"AAAA')
  const { ms } = await timed(() => done)
  t.ok(ms < 15_000, `closed after ${Math.round(ms)} ms`)
  t.ok(await isAlive(server))
})

t.test('headers that trickle in are answered 408 {error} at HTTP_HEADERS_TIMEOUT_MS', async (t) => {
  const { server, port } = await serve(t, { HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_IDLE_TIMEOUT_MS: '30000' })
  const socket = await openSocket(port)
  const done = answerOnClose(socket)
  socket.write('GET /health HTTP/1.1\r\nHost: x\r\n')
  let n = 0
  const trickle = setInterval(() => socket.writable && socket.write(`X-${n++}: y\r\n`), 200)
  t.teardown(() => clearInterval(trickle))
  const { result: answer, ms } = await timed(() => done)
  clearInterval(trickle)
  t.match(answer, /^HTTP\/1\.1 408 /)
  t.same(JSON.parse(answer.split('\r\n\r\n')[1]), { error: 'the request took too long to arrive' })
  t.ok(ms < 15_000, `closed after ${Math.round(ms)} ms`)
  t.ok(await isAlive(server))
})

t.test('uploads held in memory stay under UPLOAD_MEMORY_BYTES: past it, 503 with Retry-After; the room comes back', async (t) => {
  // One upload of MAX_FILE_BYTES needs about 470 KB: two fit in 1 MiB, a third does not.
  const { server, port, key } = await serve(t, { MAX_FILE_BYTES: '300000', UPLOAD_MEMORY_BYTES: '1048576' })
  const length = 450_000
  // A holder whose head arrives while a probe upload is in flight is itself refused: open another.
  const holders: Socket[] = []
  const holderClosed: Array<Promise<string>> = []
  const answered = new Set<Socket>()
  const hold = async (i: number) => {
    const socket = await openSocket(port)
    socket.on('data', () => answered.add(socket))
    holders[i] = socket
    holderClosed[i] = answerOnClose(socket)
    socket.write(putHead(key, length) + '{"content":"AAAA')
  }
  await Promise.all([hold(0), hold(1)])
  const upload = () => fetch(`${server.url}/api/files/third.bin`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: Buffer.alloc(300_000).toString('base64') })
  })
  let third = await upload()
  await waitFor(async () => {
    for (const [i, socket] of holders.entries()) {
      if (answered.has(socket)) { socket.destroy(); await hold(i) }
    }
    return (third = await upload()).status !== 200
  }, { what: 'the two stalled uploads to hold their room' })
  t.equal(third.status, 503)
  t.equal(third.headers.get('retry-after'), '5')
  t.same(await third.json(), { error: 'too many uploads in progress, try again shortly' })
  for (const socket of holders) socket.destroy()
  await Promise.all(holderClosed)
  await waitFor(async () => (await upload()).status === 200, { what: 'an upload to fit again once the others are gone' })
})

t.test('an answer nobody reads is dropped at HTTP_IDLE_TIMEOUT_MS', async (t) => {
  const limits = { MAX_FILE_BYTES: '20000000', UPLOAD_MEMORY_BYTES: '67108864' }
  // The big file goes in under the default idle timeout: on a busy machine, storing 16 MiB can keep
  // the connection silent for longer than the 1 s under test, and the PUT itself would be dropped.
  const staging = await serve(t, limits)
  const put = await fetch(`${staging.server.url}/api/files/big.bin`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${staging.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: Buffer.alloc(16 * 1024 * 1024).toString('base64') })
  })
  t.equal(put.status, 200)
  await stopServer(staging.server)
  const { server, port } = await staging.restart({ ...limits, HTTP_IDLE_TIMEOUT_MS: '1000' })
  const key = staging.key
  const socket = await openSocket(port)
  socket.write(`GET /api/files/big.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`)
  // Read nothing for a while: the answer fills the socket buffers and the connection goes silent.
  // (A paused socket would not even notice that the server closed it.)
  socket.pause()
  await new Promise((resolve) => setTimeout(resolve, 4000))
  let received = 0
  socket.on('data', (chunk: Buffer) => { received += chunk.length })
  socket.resume()
  await new Promise((resolve) => socket.once('close', resolve))
  const expected = Buffer.alloc(16 * 1024 * 1024).toString('base64').length
  t.ok(received < expected, `the connection was dropped part way (${received} of over ${expected} bytes)`)
  t.ok(await isAlive(server))
})

/** Writes `chunk` over and over, as a client that does not read early answers does, counting the
 *  writes that went through and keeping the first error. */
function keepSending (t: Test, socket: Socket, chunk: Buffer) {
  const sent = { writes: 0, error: undefined as Error | undefined }
  socket.on('error', (error) => { sent.error ??= error })
  const timer = setInterval(() => {
    if (socket.writable) socket.write(chunk, (error) => { if (error) sent.error ??= error; else sent.writes++ })
  }, 20)
  t.teardown(() => clearInterval(timer))
  return sent
}

t.test('an upload refused with 413 while the client is still sending: the answer arrives, the rest is dropped for a moment, then the connection closes', async (t) => {
  const { server, port, key } = await serve(t, { MAX_FILE_BYTES: '1000' })
  for (const framing of ['declared', 'chunked']) {
    const socket = await openSocket(port)
    let answer = ''
    socket.on('data', (chunk) => { answer += chunk })
    const closing = new Promise((resolve) => socket.once('close', resolve))
    socket.write(putHead(key, framing === 'declared' ? 50_000_000 : 'chunked'))
    const data = Buffer.alloc(64 * 1024, 'A')
    const sent = keepSending(t, socket, framing === 'declared' ? data : Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]))
    await waitFor(() => answer.includes('"error"') || socket.destroyed, { what: `the 413 (${framing})` })
    t.match(answer, /^HTTP\/1\.1 413 /, `${framing}: the 413 reached the client`)
    t.match(answer, /\{"error":"file is larger than 1000 bytes"\}$/)
    // Closing at once would reset the connection under the writes that follow.
    const before = sent.writes
    await waitFor(() => sent.writes >= before + 10 || sent.error !== undefined || !socket.writable, { what: 'ten more writes' })
    t.ok(sent.writes >= before + 10 && sent.error === undefined, `${framing}: the client could keep sending just after the answer`)
    await closing
    t.pass(`${framing}: a client that never stops is cut off`)
  }
  t.ok(await isAlive(server))
})

t.test('after SIGTERM, requests in flight have SHUTDOWN_TIMEOUT_MS; then the process exits', async (t) => {
  const { server, port, key } = await serve(t, { SHUTDOWN_TIMEOUT_MS: '1500', HTTP_REQUEST_TIMEOUT_MS: '600000', HTTP_IDLE_TIMEOUT_MS: '600000' })
  const socket = await openSocket(port)
  answerOnClose(socket)
  socket.write(putHead(key, 1000) + '{"content":"')
  const trickle = setInterval(() => socket.writable && socket.write('A'), 200)
  t.teardown(() => clearInterval(trickle))
  await waitFor(() => server.messages.includes('incoming request'), { what: 'the request to be in flight' })
  server.child.kill('SIGTERM')
  const { result: code, ms } = await timed(() => server.exited)
  clearInterval(trickle)
  t.equal(code, 1, 'exit 1: it did not finish cleanly')
  t.ok(ms < 15_000, `exited after ${Math.round(ms)} ms`)
  t.ok(server.messages.includes('requests still in flight at the shutdown deadline; exiting'))
})
