import { createServer, type Server } from 'node:http'
import type { Registry } from 'prom-client'

/** `GET /metrics` on a listener of its own, so that a public API never exposes it. */
export async function serveMetrics (registry: Registry, port: number, host: string): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n')
      return
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => response.writeHead(500).end()
    )
  })
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve))
  return server
}
