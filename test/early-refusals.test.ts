import t from 'tap'
import { request } from 'node:http'
import { startS3Server } from './helpers/s3.js'
import { startService } from './helpers/service.js'

const MIB = 1024 * 1024
const LIMIT = 4 * MIB
const s3 = await startS3Server()
t.teardown(() => s3.close())

/**
 * A request as SDKs send one: node:http with no agent (`Connection: close`), the whole body written
 * in 64 KiB blocks before anything is read. Resolves with the answer, or with the error the client
 * saw instead (EPIPE, ECONNRESET).
 */
function sendWholeBody (url: string, method: string, headers: Record<string, string>, length: number) {
  return new Promise<{ status?: number, body?: string, error?: string }>((resolve) => {
    const sent = request(url, { method, agent: false, headers: { ...headers, 'content-length': String(length) } })
    sent.on('response', (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (text: string) => { body += text }).on('end', () => resolve({ status: res.statusCode, body }))
    })
    sent.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }))
    const block = Buffer.alloc(64 * 1024, 'A')
    for (let written = 0; written < length; written += block.length) sent.write(block)
    sent.end()
  })
}

const tusPiece = { 'tus-resumable': '1.0.0', 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: every refusal answered before the body is read reaches a client that writes its whole body first, 20 times in a row`, async (t) => {
    const service = await startService(t, { driver, s3, env: { MAX_UPLOAD_BYTES: String(LIMIT), MAX_FILE_BYTES: String(LIMIT), QUOTA_BYTES: String(2 * MIB), LINKS_VIA: 'stowage' } })
    const { url, auth } = service
    t.equal((await fetch(`${url}/api/raw/kept.txt`, { method: 'PUT', headers: auth, body: 'kept' })).status, 200)
    const link = await (await fetch(`${url}/api/links`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ path: 'linked.bin', method: 'upload' }) })).json() as { url: string }
    const created = await fetch(`${url}/api/uploads`, { method: 'POST', headers: { ...auth, 'tus-resumable': '1.0.0', 'upload-length': String(MIB), 'upload-metadata': `path ${Buffer.from('tus.bin').toString('base64')}` } })
    t.equal(created.status, 201)
    const upload = new URL(created.headers.get('location')!, url).href
    const refused = { authorization: 'Bearer stow_0000000000000000000000000000000000000000000000' }
    const octets = { 'content-type': 'application/octet-stream' }

    const cases: Array<[string, string, string, Record<string, string>, number, number]> = [
      ['raw PUT over MAX_UPLOAD_BYTES', 'PUT', `${url}/api/raw/big.bin`, { ...auth, ...octets }, 2 * LIMIT, 413],
      ['raw PUT whose If-Match fails', 'PUT', `${url}/api/raw/kept.txt`, { ...auth, ...octets, 'if-match': '"other"' }, LIMIT, 412],
      ['raw PUT with a refused key', 'PUT', `${url}/api/raw/a.bin`, { ...refused, ...octets }, LIMIT, 401],
      ['raw PUT over the quota', 'PUT', `${url}/api/raw/a.bin`, { ...auth, ...octets }, LIMIT, 507],
      ['JSON PUT over MAX_FILE_BYTES', 'PUT', `${url}/api/files/a.json`, { ...auth, 'content-type': 'application/json' }, 2 * LIMIT, 413],
      ['JSON PUT that is not JSON', 'PUT', `${url}/api/files/a.json`, { ...auth, 'content-type': 'text/plain' }, LIMIT, 415],
      ['JSON PUT with a refused key', 'PUT', `${url}/api/files/a.json`, { ...refused, 'content-type': 'application/json' }, LIMIT, 401],
      ['tus PATCH past the Upload-Length', 'PATCH', upload, { ...auth, ...tusPiece }, 2 * LIMIT, 413],
      ['tus PATCH of another type', 'PATCH', upload, { ...auth, ...tusPiece, 'content-type': 'text/plain' }, LIMIT, 415],
      ['tus PATCH with a refused key', 'PATCH', upload, { ...refused, ...tusPiece }, LIMIT, 401],
      ['upload link over MAX_UPLOAD_BYTES', 'PUT', link.url, octets, 2 * LIMIT, 413]
    ]
    for (const [what, method, target, headers, length, status] of cases) {
      const answers = []
      for (let i = 0; i < 20; i++) answers.push(await sendWholeBody(target, method, headers, length))
      const wrong = answers.filter((answer) => answer.status !== status || !/"error"/.test(answer.body ?? ''))
      t.same(wrong, [], `${what}: ${status} and its {error} every time`)
    }
    t.equal(await (await fetch(`${url}/api/raw/kept.txt`, { headers: auth })).text(), 'kept', 'nothing refused changed the file')
    t.ok(await service.alive())
  })
}
