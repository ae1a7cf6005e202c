// The yardstick of the fs driver's raw GET: the smallest Node server that streams the same bytes
// from the same file (the object's body, after its 256-byte header). No framework, no auth.
import { createReadStream, statSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const HEADER_BYTES = 256
const path = process.env.OBJECT_FILE as string

const server = createServer((_req, res) => {
  const size = statSync(path).size - HEADER_BYTES
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size })
  createReadStream(path, { start: HEADER_BYTES, highWaterMark: 256 * 1024 }).pipe(res)
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port }) + '\n')
})
