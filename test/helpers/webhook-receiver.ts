import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { waitFor } from './wait.js'

export interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
}

export interface WebhookEvent {
  type: string
  timestamp: string
  data: { key: string, from?: string, size?: number, etag?: string }
}

/**
 * A webhook receiver on loopback, as a user's would be: it keeps every POST it gets and answers
 * each as `respond` says (200 by default; it may also hang, never answering).
 */
export async function startReceiver () {
  const received: Received[] = []
  let respond: (request: Received, response: ServerResponse) => void = (_request, response) => { response.end('ok') }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const got = { path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() }
      received.push(got)
      respond(got, response)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    /** How the next requests are answered. */
    answer (how: typeof respond) { respond = how },
    /** The events POSTed to `path`, each checked with `secret` by Standard Webhooks' own verifier. */
    verified (path: string, secret: string): WebhookEvent[] {
      const verifier = new Webhook(secret)
      return received.filter((got) => got.path === path).map((got) => verifier.verify(got.body, got.headers as Record<string, string>) as WebhookEvent)
    },
    waitFor: (count: number, path?: string) =>
      waitFor(() => received.filter((got) => path === undefined || got.path === path).length >= count, { what: `${count} webhook deliveries${path ? ` to ${path}` : ''}` }),
    async close () {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>
