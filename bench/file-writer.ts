// The least a server can do for a raw PUT of a new file, what the raw route is read against: the
// body to a temporary file while its MD5 is taken, renamed into place, a line of JSON. No framework,
// no authentication, no database: nothing checked and nothing recorded.
import { createHash } from 'node:crypto'
import { mkdir, open, rename } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'

const folder = process.env.STORAGE_DIR!
await mkdir(folder, { recursive: true })
let made = 0

const server = createServer(async (req, res) => {
  const temporary = join(folder, `.${made++}`)
  try {
    const handle = await open(temporary, 'wx', 0o600)
    const md5 = createHash('md5')
    let size = 0
    try {
      for await (const chunk of req) {
        md5.update(chunk)
        size += chunk.length
        await handle.write(chunk)
      }
    } finally {
      await handle.close()
    }
    await rename(temporary, join(folder, encodeURIComponent(req.url!)))
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url, size, etag: `"${md5.digest('hex')}"` }))
  } catch {
    res.writeHead(500).end()
  }
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port }) + '\n')
})
