import { connect, createServer, type AddressInfo, type Socket } from 'node:net'

/** The URL of a local port with nothing listening on it: a peer that is down. */
export async function closedPortUrl (): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return `http://127.0.0.1:${port}`
}

/**
 * A TCP proxy to `target` that, while armed, drops the connection carrying the client's byte
 * `after` (counted across connections from when it was armed), and then passes everything,
 * counting in `sentAfterCut` what clients send after the cut.
 */
export async function startCuttingProxy (target: URL, after: number) {
  const cut = { armed: true, seen: 0, sentAfterCut: 0 }
  const open = new Set<Socket>()
  const proxy = createServer((client) => {
    const server = connect(Number(target.port), target.hostname)
    for (const socket of [client, server]) {
      open.add(socket)
      socket.once('close', () => open.delete(socket))
    }
    client.on('data', (chunk: Buffer) => {
      if (!cut.armed) cut.sentAfterCut += chunk.length
      else if ((cut.seen += chunk.length) > after) {
        cut.armed = false
        client.destroy()
        server.destroy()
        return
      }
      server.write(chunk)
    })
    server.pipe(client)
    client.on('error', () => server.destroy())
    server.on('error', () => client.destroy())
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    cut,
    arm: () => Object.assign(cut, { armed: true, seen: 0, sentAfterCut: 0 }),
    close: () => new Promise<void>((resolve) => {
      proxy.close(() => resolve())
      for (const socket of open) socket.destroy()
    })
  }
}

/** A connection to a local port, once it is open. */
export function openSocket (port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket))
    socket.once('error', reject)
  })
}

/** Resolves with everything the server sent once the connection closes. */
export function answerOnClose (socket: Socket): Promise<string> {
  let answer = ''
  socket.on('data', (chunk) => { answer += chunk })
  socket.on('error', () => {})
  return new Promise((resolve) => socket.once('close', () => resolve(answer)))
}

/** Sends `request` as raw bytes over a real socket (what light-my-request and fetch would not send
 *  as it is) and reads the answer to the end of the connection. */
export async function rawRequest (port: number, request: string): Promise<{ status: number, head: string, body: string }> {
  const socket = await openSocket(port)
  const answer = answerOnClose(socket)
  socket.end(request)
  const [head, body = ''] = (await answer).split('\r\n\r\n')
  return { status: Number(head.split(' ')[1]), head, body }
}
