import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** Passes the request through to the test S3: its body as it comes, or `body` when the front read it. */
export type Forward = (body?: Buffer) => void

/**
 * An HTTP front before the test S3 that passes every request through, unless `answers` took it
 * (it then returns true, and answers it itself or forwards it later): what the tests put between
 * the service and s3rver to log, check or fail its requests.
 */
export async function startS3Front (target: URL, answers: (incoming: IncomingMessage, answer: ServerResponse, forward: Forward) => boolean = () => false) {
  const front = createServer((incoming, answer) => {
    const forward: Forward = (body) => {
      const upstream = request({ host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers }, (reply) => {
        answer.writeHead(reply.statusCode!, reply.headers)
        reply.pipe(answer)
      })
      upstream.on('error', () => answer.destroy())
      if (body) upstream.end(body)
      else incoming.pipe(upstream)
    }
    if (!answers(incoming, answer, forward)) forward()
  })
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve))
  return {
    endpoint: `http://127.0.0.1:${(front.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => { front.closeAllConnections(); front.close(() => resolve()) })
  }
}
