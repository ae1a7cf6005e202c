import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import yauzl from 'yauzl'
import { Readable } from 'node:stream'
import { zipFolder } from '../storage/archive.js'
import { bearer, buildTestApp } from './helpers/app.js'
import { runCommand } from './helpers/cli.js'
import { startS3Server } from './helpers/s3.js'
import { startService } from './helpers/service.js'
import { generatedFile, putStream, sampleRss } from './helpers/streams.js'

const MIB = 1024 * 1024
const s3 = await startS3Server()
t.teardown(() => s3.close())

/** Every entry of a zip in memory: its name and bytes, read by yauzl, which checks each CRC. */
function unzip (zip: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true, strictFileNames: true }, (error, archive) => {
      if (error) return reject(error)
      const entries = new Map<string, Buffer>()
      archive.on('entry', (entry: yauzl.Entry) => {
        archive.openReadStream(entry, (error, stream) => {
          if (error) return reject(error)
          const chunks: Buffer[] = []
          stream.on('data', (chunk: Buffer) => chunks.push(chunk)).on('error', reject).on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks))
            archive.readEntry()
          })
        })
      })
      archive.on('end', () => resolve(entries)).on('error', reject)
      archive.readEntry()
    })
  })
}

/** A GET over a real socket, hashed as it arrives; `whole` is false when the answer was cut off. */
function download (port: number, path: string, headers: Record<string, string>, onBytes?: (bytes: number) => void) {
  return new Promise<{ status: number, bytes: number, whole: boolean, contentType?: string }>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers }, (res) => {
      let bytes = 0
      res.on('data', (chunk: Buffer) => { bytes += chunk.length; onBytes?.(bytes) })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, whole: true, contentType: res.headers['content-type'] }))
      res.on('error', () => resolve({ status: res.statusCode ?? 0, bytes, whole: false }))
    }).on('error', reject).end()
  })
}

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: every file under the prefix, named relative to it in UTF-8, byte-identical`, async (t) => {
    const { app, close } = await buildTestApp({ driver, s3 })
    t.teardown(close)
    const { key } = await app.stowageKeys.create({ userId: `user-${randomUUID()}`, orgId: null })
    const headers = bearer(key)
    const files = new Map([
      ['trip/notes.txt', Buffer.from('day one')],
      ['trip/photos/café.jpg', randomBytes(300_000)],
      ['trip/photos/日本/夜.png', randomBytes(1000)],
      ['trip/empty.txt', Buffer.alloc(0)],
      ['tripod.txt', Buffer.from('beside the folder')]
    ])
    for (const [path, body] of files) {
      const res = await app.inject({ method: 'PUT', url: `/api/raw/${encodeURI(path)}`, headers, payload: body })
      t.equal(res.statusCode, 200, res.payload)
    }
    const res = await app.inject({ url: '/api/archive?prefix=trip/', headers })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-type'], 'application/zip')
    t.equal(res.headers['content-disposition'], 'attachment; filename*=UTF-8\'\'trip.zip')
    const entries = await unzip(res.rawPayload)
    t.same([...entries.keys()].sort(), ['empty.txt', 'notes.txt', 'photos/café.jpg', 'photos/日本/夜.png'])
    for (const [name, bytes] of entries) t.ok(bytes.equals(files.get(`trip/${name}`)!), `${name} byte-identical`)

    const whole = await unzip((await app.inject({ url: '/api/archive?prefix=', headers })).rawPayload)
    t.equal(whole.size, 5, 'an empty prefix zips every file')
    t.equal((await app.inject({ url: '/api/archive?prefix=nothing/', headers })).statusCode, 404)
    t.equal((await app.inject({ url: '/api/archive?prefix=../', headers })).statusCode, 400)
    t.equal((await app.inject({ url: '/api/archive', headers })).statusCode, 400, 'the prefix is asked for')
    t.equal((await app.inject({ url: '/api/archive?prefix=trip/' })).statusCode, 401)

    // What a person ticked in a folder: a file and a folder, each under its own name.
    const chosen = (body: unknown, auth = headers) => app.inject({ method: 'POST', url: '/api/archive', headers: auth, payload: body as object })
    const picked = await chosen({ prefix: 'trip/', names: ['notes.txt', 'photos/'] })
    t.equal(picked.statusCode, 200, picked.statusCode === 200 ? 'the zip of what was chosen' : picked.payload)
    t.equal(picked.headers['content-disposition'], 'attachment; filename*=UTF-8\'\'trip.zip')
    const pickedEntries = await unzip(picked.rawPayload)
    t.same([...pickedEntries.keys()].sort(), ['notes.txt', 'photos/café.jpg', 'photos/日本/夜.png'], 'only what was chosen, the folder whole')
    for (const [name, bytes] of pickedEntries) t.ok(bytes.equals(files.get(`trip/${name}`)!), `${name} byte-identical`)
    t.same([...(await unzip((await chosen({ prefix: '', names: ['tripod.txt', 'tripod.txt'] })).rawPayload)).keys()], ['tripod.txt'], 'a name chosen twice is zipped once')
    const missing = await chosen({ prefix: 'trip/', names: ['notes.txt', 'gone.txt'] })
    t.equal(missing.statusCode, 404, 'a chosen file that is not there: 404 before the zip begins')
    t.match(missing.json(), { error: /gone\.txt/ })
    t.equal((await chosen({ prefix: 'trip/', names: ['nothing/'] })).statusCode, 404)
    t.equal((await chosen({ prefix: 'trip/', names: [] })).statusCode, 400, 'nothing chosen')
    t.equal((await chosen({ prefix: 'trip/', names: ['../../other/secret.txt'] })).statusCode, 400, 'a name that climbs out')
    t.equal((await chosen({ prefix: 'trip/', names: Array.from({ length: 1001 }, (_, i) => `f${i}`) })).statusCode, 400, 'at most 1,000 names')
    t.equal((await chosen({ prefix: 'trip/', names: ['notes.txt'] }, {} as typeof headers)).statusCode, 401)
  })

  t.test(`${driver}: names in Latin with accents, Cyrillic, CJK and an emoji read as written by Info-ZIP's unzip and Python's zipfile`, async (t) => {
    const { app, close } = await buildTestApp({ driver, s3 })
    t.teardown(close)
    const { key } = await app.stowageKeys.create({ userId: `user-${randomUUID()}`, orgId: null })
    const names = ['é-1.txt', 'Ærøskøbing/çà.txt', 'Москва.txt', '漢字/日本語.txt', '🎉 party.txt']
    for (const name of names) {
      t.equal((await app.inject({ method: 'PUT', url: `/api/raw/intl/${encodeURI(name)}`, headers: bearer(key), payload: name })).statusCode, 200)
    }
    const res = await app.inject({ url: '/api/archive?prefix=intl/', headers: bearer(key) })
    t.equal(res.statusCode, 200)
    const folder = await mkdtemp(join(tmpdir(), 'stowage-zip-'))
    t.teardown(() => rm(folder, { recursive: true, force: true }))
    const zip = join(folder, 'intl.zip')
    await writeFile(zip, res.rawPayload)

    const listed = await runCommand('unzip', ['-Z1', zip], process.env)
    t.equal(listed.status, 0, listed.stderr)
    t.same(listed.stdout.split('\n').filter(Boolean).sort(), [...names].sort(), 'unzip -Z1 lists the names as written')
    const extracted = await runCommand('unzip', ['-q', zip, '-d', join(folder, 'out')], process.env)
    t.equal(extracted.status, 0, extracted.stderr)
    for (const name of names) t.equal(await readFile(join(folder, 'out', name), 'utf8'), name, `unzip -d extracts ${name} under its name`)
    const python = await runCommand('python3', ['-c', 'import sys, zipfile, json; print(json.dumps(zipfile.ZipFile(sys.argv[1]).namelist()))', zip], process.env)
    t.equal(python.status, 0, python.stderr)
    t.same((JSON.parse(python.stdout) as string[]).sort(), [...names].sort(), 'Python\'s zipfile reads the names as written')
  })

  t.test(`${driver}: ZIP64 fields, where a length or an offset needs them, read by unzip, Python's zipfile and yauzl (the threshold lowered from 4 GiB)`, async (t) => {
    const { app, close } = await buildTestApp({ driver, s3 })
    t.teardown(close)
    const userId = `user-${randomUUID()}`
    const files = new Map([['big/a.bin', randomBytes(5000)], ['big/b.txt', Buffer.from('small, far in')], ['big/c.bin', randomBytes(3000)]])
    for (const [path, body] of files) await app.stowageFiles.write({ userId, orgId: null }, path, Readable.from([body]))
    const zipped = Buffer.concat(await (await zipFolder(app.stowageFiles, userId, 'big/', { zip64From: 1000 })).toArray())
    const folder = await mkdtemp(join(tmpdir(), 'stowage-zip64-'))
    t.teardown(() => rm(folder, { recursive: true, force: true }))
    const zip = join(folder, 'big.zip')
    await writeFile(zip, zipped)
    const tested = await runCommand('unzip', ['-t', zip], process.env)
    t.equal(tested.status, 0, tested.stdout + tested.stderr)
    t.match(tested.stdout, /No errors detected/)
    const python = await runCommand('python3', ['-c', 'import sys, zipfile, json; z = zipfile.ZipFile(sys.argv[1]); print(json.dumps({i.filename: [i.file_size, z.read(i).hex()] for i in z.infolist()}))', zip], process.env)
    t.equal(python.status, 0, python.stderr)
    const read = JSON.parse(python.stdout) as Record<string, [number, string]>
    for (const [path, body] of files) t.same(read[path.slice('big/'.length)], [body.length, body.toString('hex')], `${path} as written`)
    const entries = await unzip(zipped)
    for (const [path, body] of files) t.ok(entries.get(path.slice('big/'.length))?.equals(body), `yauzl reads ${path}`)
  })

  t.test(`${driver}: a zip larger than the upload memory budget, with the server's memory flat`, async (t) => {
    const service = await startService(t, { driver, s3, env: { UPLOAD_MEMORY_BYTES: String(32 * MIB) } })
    const target = (path: string) => ({ port: service.port, path: `/api/raw/${path}`, headers: service.auth })
    for (let i = 0; i < 6; i++) t.equal((await putStream(target(`big/part-${i}.bin`), generatedFile(16), 16 * MIB)).status, 200)
    const rss = sampleRss(service.server.child.pid!)
    const got = await download(service.port, '/api/archive?prefix=big/', service.auth)
    const { growthBytes } = rss.stop()
    t.equal(got.status, 200)
    t.ok(got.whole)
    t.ok(got.bytes > 96 * MIB, `${(got.bytes / MIB).toFixed(1)} MiB of zip`)
    t.ok(growthBytes < 64 * MIB, `RSS grew by ${(growthBytes / MIB).toFixed(1)} MiB for a 96 MiB zip`)
  })
}

t.test('a zip whose store stops answering mid-way is cut off, never ended as if whole', async (t: Test) => {
  const service = await startService(t, { driver: 's3', s3, env: { S3_IDLE_TIMEOUT_MS: '1000' } })
  const target = (path: string) => ({ port: service.port, path: `/api/raw/${path}`, headers: service.auth })
  for (let i = 0; i < 4; i++) t.equal((await putStream(target(`cut/${i}.bin`), generatedFile(8), 8 * MIB)).status, 200)
  let paused = false
  const got = await download(service.port, '/api/archive?prefix=cut/', service.auth, (bytes) => {
    if (!paused && bytes > 4 * MIB) {
      paused = true
      s3.pause()
    }
  })
  s3.resume()
  t.ok(paused)
  t.equal(got.status, 200, 'the answer had begun')
  t.notOk(got.whole, 'and ends as an error, not as a short zip')
  t.ok(got.bytes < 32 * MIB)
})
