import type { Test } from 'tap'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { S3Server } from './s3.js'
import { startService } from './service.js'
import { waitFor } from './wait.js'

// The S3 endpoint's real clients (the AWS CLI, rclone, s3cmd, boto3) run as programs against a
// service process, as people run them.

/** Runs a program; resolves with its exit status and output (`input` on its standard input). */
export function run (command: string, args: string[], env: Record<string, string | undefined>, input?: Buffer) {
  return new Promise<{ status: number | null, stdout: string, stderr: string }>((resolve, reject) => {
    const child = spawn(command, args, { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (text: string) => { stdout += text })
    child.stderr.setEncoding('utf8').on('data', (text: string) => { stderr += text })
    child.on('error', reject).on('close', (status) => resolve({ status, stdout, stderr }))
    child.stdin.end(input)
  })
}

/** A service with its S3 endpoint, an S3 credential for alice (its deletes final with `skipTrash`), and a folder for the clients' files. */
export async function setupS3Service (t: Test, driver: 'fs' | 's3', s3: S3Server, { skipTrash = false } = {}) {
  const service = await startService(t, { driver, s3, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY: randomBytes(32).toString('base64') } })
  await waitFor(() => service.server.logs.some(({ msg }) => msg === 'S3 endpoint ready'), { what: 'the S3 endpoint' })
  const address = service.server.logs.find(({ msg }) => msg === 'S3 endpoint ready')!.address as string
  const endpoint = `http://127.0.0.1:${new URL(address).port}`
  const made = await fetch(`${service.url}/api/s3-credentials`, { method: 'POST', headers: { ...service.auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'clients', skipTrash }) })
  const { accessKeyId, secretAccessKey } = await made.json() as { accessKeyId: string, secretAccessKey: string }
  const home = await mkdtemp(join(tmpdir(), 'stowage-s3-clients-'))
  t.teardown(() => rm(home, { recursive: true, force: true }))
  // A CA bundle set for other tools makes rclone refuse plain http: none here, as on a person's machine.
  const env = { PATH: process.env.PATH, HOME: home, AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_DEFAULT_REGION: 'us-east-1', AWS_CONFIG_FILE: join(home, 'aws-config') }
  /** The files of a folder of the service, as the file API lists them. */
  const listed = async (prefix: string) => {
    const answer = await fetch(`${service.url}/api/files?prefix=${encodeURIComponent(prefix)}`, { headers: service.auth })
    return ((await answer.json()) as { files: Array<{ key: string }> }).files.map(({ key }) => key)
  }
  const trash = async () => ((await (await fetch(`${service.url}/api/trash`, { headers: service.auth })).json()) as { items: Array<{ key: string }> }).items.map(({ key }) => key)
  return { service, endpoint, accessKeyId, secretAccessKey, home, env, listed, trash }
}

/** A tree of files, with a name that needs encoding, and one large enough for multipart uploads. */
export async function makeTree (root: string) {
  const files: Record<string, Buffer> = {
    'a.txt': Buffer.from('alpha'),
    'nested/déjà vu + more.md': Buffer.from('# déjà'),
    'nested/deep/b.bin': randomBytes(1000),
    'large.bin': randomBytes(20 * 1024 * 1024 + 17)
  }
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true })
    await writeFile(join(root, path), content)
  }
  return files
}
