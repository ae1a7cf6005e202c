// The smallest Node server that does the work of the s3 driver's raw GET: one request to the store,
// its body piped to the client. No SDK, no framework, no auth (s3rver serves anonymous GETs). With
// three processes on two cores, a relay costs the machine what Stowage does: this separates the two.
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'

const target = process.env.OBJECT_URL as string

const server = createServer((_req, res) => {
  request(target, (upstream) => {
    res.writeHead(upstream.statusCode ?? 502, { 'content-length': upstream.headers['content-length'] ?? 0 })
    upstream.pipe(res)
  }).on('error', () => res.destroy()).end()
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port }) + '\n')
})
