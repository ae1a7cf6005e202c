import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * An HTTP front before the test S3 that passes every request through, unless `answers` answered it
 * itself (it then returns true): what the tests put between the service and s3rver to log, check
 * or fail its requests.
 */
export async function startS3Front (target: URL, answers: (incoming: IncomingMessage, answer: ServerResponse) => boolean = () => false) {
  const front = createServer((incoming, answer) => {
    if (answers(incoming, answer)) return
    const upstream = request({ host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers }, (reply) => {
      answer.writeHead(reply.statusCode!, reply.headers)
      reply.pipe(answer)
    })
    upstream.on('error', () => answer.destroy())
    incoming.pipe(upstream)
  })
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve))
  return {
    endpoint: `http://127.0.0.1:${(front.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => { front.closeAllConnections(); front.close(() => resolve()) })
  }
}
