import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

export const TEST_BUCKET = 'stowage-test'
export const TEST_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }

// Runs in its own process: s3rver's listing tokens need `node --openssl-legacy-provider`.
const S3RVER_PROCESS = `
const S3rver = require('s3rver')
const [directory, bucket] = process.argv.slice(1)
const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: bucket }] })
server.run().then(({ port }) => process.stdout.write(JSON.stringify({ port }) + '\\n'))
process.on('SIGTERM', () => server.close().finally(() => process.exit(0)))
`

export interface S3Server {
  endpoint: string
  bucket: string
  close (): Promise<void>
}

/** Starts s3rver (a real S3 protocol server) in a child process over a temporary folder. */
export async function startS3Server (): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'stowage-s3-'))
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', S3RVER_PROCESS, directory, TEST_BUCKET], {
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)))
  })
  const { port } = JSON.parse(firstLine) as { port: number }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: TEST_BUCKET,
    async close () {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
      await rm(directory, { recursive: true, force: true })
    }
  }
}
