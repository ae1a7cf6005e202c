import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

export const TEST_BUCKET = 'stowage-test'
export const TEST_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }

// Runs in its own process: s3rver's listing tokens need `node --openssl-legacy-provider`.
const S3RVER_PROCESS = `
const S3rver = require('s3rver')
const [directory, bucket, port] = process.argv.slice(1)
const server = new S3rver({ address: '127.0.0.1', port: Number(port), directory, silent: true, configureBuckets: [{ name: bucket }] })
// s3rver writes an object in place, where S3 publishes every PUT whole: two PUTs of one key at once
// would leave a mix of both, which S3 never does. So its writes of one key are made one at a time.
const tails = new Map()
for (const [name, keyOf] of [['putObject', (object) => object.bucket + '/' + object.key], ['copyObject', (_b, _k, bucket, key) => bucket + '/' + key], ['deleteObject', (bucket, key) => bucket + '/' + key]]) {
  const original = server.store[name].bind(server.store)
  server.store[name] = (...args) => {
    const key = keyOf(...args)
    const result = (tails.get(key) || Promise.resolve()).then(() => original(...args))
    const tail = result.catch(() => {})
    tails.set(key, tail)
    tail.then(() => { if (tails.get(key) === tail) tails.delete(key) })
    return result
  }
}
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
}

async function spawnS3rver (directory: string, port: number): Promise<{ child: ChildProcess, port: number }> {
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', S3RVER_PROCESS, directory, TEST_BUCKET, String(port)], {
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
    }
  }
}
