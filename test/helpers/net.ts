import { createServer } from 'node:net'

/** The URL of a local port with nothing listening on it: a peer that is down. */
export async function closedPortUrl (): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return `http://127.0.0.1:${port}`
}
