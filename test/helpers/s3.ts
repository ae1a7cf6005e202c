import type { ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { spawnTied } from './server.js'

export const TEST_BUCKET = 'stowage-test'
export const TEST_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }

// Runs in its own process: s3rver's listing tokens need `node --openssl-legacy-provider`.
const S3RVER_PROCESS = `
const S3rver = require('s3rver')
const [directory, bucket, port, requestLog] = process.argv.slice(1)
const server = new S3rver({ address: '127.0.0.1', port: Number(port), directory, silent: true, configureBuckets: [{ name: bucket }] })
// s3rver writes an object's three files in place, where S3 publishes every PUT whole: two PUTs of
// one key at once would leave a mix of both, and a read beside a PUT half of it. So here a PUT is
// written aside and renamed into place, and the reads and writes of one key are made one at a time.
const { mkdir, rename } = require('node:fs/promises')
const { dirname } = require('node:path')
const { createHash, randomUUID } = require('node:crypto')
const { AsyncLocalStorage } = require('node:async_hooks')
const store = server.store
const tails = new Map()
// The keys the running step holds: s3rver's own steps call each other (getObject, getMetadata).
const holding = new AsyncLocalStorage()
const oneAtATime = (key, work) => {
  const held = holding.getStore() || []
  if (held.includes(key)) return work()
  const result = (tails.get(key) || Promise.resolve()).then(() => holding.run([...held, key], work))
  const tail = result.catch(() => {})
  tails.set(key, tail)
  tail.then(() => { if (tails.get(key) === tail) tails.delete(key) })
  return result
}
for (const [name, keyOf] of [['getMetadata', (bucket, key) => [bucket, key]], ['getObject', (bucket, key) => [bucket, key]],
  ['copyObject', (_b, _k, bucket, key) => [bucket, key]], ['deleteObject', (bucket, key) => [bucket, key]]]) {
  const original = store[name].bind(store)
  store[name] = (...args) => oneAtATime(keyOf(...args).join('/'), () => original(...args))
}
// s3rver's own putObject answers once the last byte is handed to the file, before it is written:
// a HEAD right after could still find fewer bytes. So here the bytes are written aside, to the end.
const { createWriteStream } = require('node:fs')
const { pipeline } = require('node:stream/promises')
const { Readable, Transform } = require('node:stream')
store.putObject = async (object) => {
  const aside = { bucket: '.staging', key: randomUUID() }
  const asidePath = store.getResourcePath(aside.bucket, aside.key, 'object')
  await mkdir(dirname(asidePath), { recursive: true })
  const md5 = createHash('md5')
  let size = 0
  const content = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content
  await pipeline(content, new Transform({ transform (chunk, _encoding, callback) { md5.update(chunk); size += chunk.length; callback(null, chunk) } }), createWriteStream(asidePath))
  const digest = md5.digest('hex')
  await store.putMetadata(aside.bucket, aside.key, object.metadata, digest)
  await oneAtATime(object.bucket + '/' + object.key, async () => {
    for (const resource of ['object.md5', 'metadata.json', 'object']) {
      const to = store.getResourcePath(object.bucket, object.key, resource)
      await mkdir(dirname(to), { recursive: true })
      await rename(store.getResourcePath(aside.bucket, aside.key, resource), to)
    }
  })
  return { size, md5: digest }
}
// s3rver's folder listing (a delimiter) skips the directories below a folder's first level, so a
// folder holding only folders (a/b/c.txt listed at the root) was not named at all, where S3 names
// it. So here a delimited listing reads every key under the prefix and names the folders itself.
const listEvery = store.listObjects.bind(store)
store.listObjects = async (bucket, options) => {
  const { delimiter, prefix = '', maxKeys = Infinity } = options
  if (!delimiter) return listEvery(bucket, options)
  const every = await listEvery(bucket, { ...options, delimiter: '', maxKeys: Infinity })
  const commonPrefixes = new Set()
  const objects = []
  let isTruncated = false
  for (const object of every.objects) {
    const at = object.key.slice(prefix.length).indexOf(delimiter)
    if (at !== -1) commonPrefixes.add(object.key.slice(0, prefix.length + at + 1))
    else if (objects.length < maxKeys) objects.push(object)
    else { isTruncated = true; break }
  }
  return { objects, commonPrefixes: [...commonPrefixes].sort(), isTruncated }
}
// s3rver reads x-amz-copy-source with decodeURI, which leaves %2B, %2C, %3B… encoded, where S3
// decodes them all: a copy of "a+b" looked for "a%2Bb". So here the header is decoded as S3 decodes
// it and encoded again as decodeURI undoes.
server.middleware.unshift(async (ctx, next) => {
  const source = ctx.headers['x-amz-copy-source']
  if (source) ctx.headers['x-amz-copy-source'] = encodeURI(decodeURIComponent(source))
  await next()
})
// s3rver answers 405 to AbortMultipartUpload, where S3 ends the upload (its parts go with it): here
// it is answered as S3 answers it, and the upload's parts are left to the folder's removal.
server.middleware.unshift(async (ctx, next) => {
  if (ctx.method === 'DELETE' && ctx.query.uploadId !== undefined) {
    ctx.status = 204
    return
  }
  await next()
})
// Every request as the store saw it, a line each (method, path and query, length), for the tests
// that count what reached the store.
server.middleware.unshift(async (ctx, next) => {
  require('node:fs').appendFileSync(requestLog, ctx.method + ' ' + ctx.url + ' ' + (ctx.headers['content-length'] || '') + '\\n')
  await next()
})
server.run().then(({ port }) => process.stdout.write(JSON.stringify({ port }) + '\\n'))
process.on('SIGTERM', () => server.close().finally(() => process.exit(0)))
`

export interface S3Server {
  endpoint: string
  bucket: string
  /** SIGSTOP: connections are accepted and never answered. */
  pause (): void
  resume (): void
  /** SIGKILL, as a crash would. */
  kill (): Promise<void>
  /** Starts it again on the same port and folder, after kill(). */
  restart (): Promise<void>
  close (): Promise<void>
  /** Every request it was sent so far: method, path and query, Content-Length. */
  requests (): Promise<Array<{ method: string, url: string, length?: number }>>
}

async function spawnS3rver (directory: string, port: number): Promise<{ child: ChildProcess, port: number }> {
  const child = spawnTied(process.execPath, ['--openssl-legacy-provider', '-e', S3RVER_PROCESS, directory, TEST_BUCKET, String(port), requestLogOf(directory)], {
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)))
  })
  return { child, port: (JSON.parse(firstLine) as { port: number }).port }
}

/** The variables that point a Stowage service (STORAGE_DRIVER=s3) at this test server. */
export function serviceEnv (s3: S3Server) {
  return {
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: s3.bucket,
    S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: TEST_S3_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: TEST_S3_CREDENTIALS.secretAccessKey
  }
}

const requestLogOf = (directory: string) => `${directory}.requests`

/** Starts s3rver (a real S3 protocol server) in a child process over a temporary folder. */
export async function startS3Server (): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'stowage-s3-'))
  let { child, port } = await spawnS3rver(directory, 0)
  const exited = (process: ChildProcess) => process.exitCode !== null || process.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => process.once('exit', () => resolve()))
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: TEST_BUCKET,
    pause: () => { child.kill('SIGSTOP') },
    resume: () => { child.kill('SIGCONT') },
    async kill () {
      const done = exited(child)
      child.kill('SIGKILL')
      await done
    },
    async restart () {
      ({ child, port } = await spawnS3rver(directory, port))
    },
    async close () {
      const done = exited(child)
      child.kill('SIGCONT')
      child.kill('SIGTERM')
      await done
      await rm(directory, { recursive: true, force: true })
      await rm(requestLogOf(directory), { force: true })
    },
    async requests () {
      const lines = (await readFile(requestLogOf(directory), 'utf8').catch(() => '')).split('\n').filter((line) => line !== '')
      return lines.map((line) => {
        const [method, url, length] = line.split(' ')
        return { method, url, ...length ? { length: Number(length) } : {} }
      })
    }
  }
}
