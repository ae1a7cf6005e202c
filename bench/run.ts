// npm run bench: the ratios of DESIGN.md §9, each pair measured in this one run on this machine.
import autocannon from 'autocannon'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { startIdp, TEST_AUDIENCE } from '../test/helpers/idp.js'
import { startS3Server, TEST_S3_CREDENTIALS } from '../test/helpers/s3.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const here = fileURLToPath(new URL('.', import.meta.url))

const children: ChildProcess[] = []
const s3Env = { AWS_ACCESS_KEY_ID: TEST_S3_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: TEST_S3_CREDENTIALS.secretAccessKey }

async function startNode (script: string, env: Record<string, string>, readyPattern?: RegExp): Promise<string> {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...s3Env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  children.push(child)
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! })
    lines.on('line', (text) => { if (!readyPattern || readyPattern.test(text)) resolve(text) })
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
  })
  child.stdout!.resume()
  return line
}

async function measure (title: string, url: string, headers: Record<string, string> = {}) {
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS })
  const failures = result.non2xx + result.errors + result.timeouts
  console.log(`${title.padEnd(58)} ${result.requests.average.toFixed(0).padStart(7)} req/s  p99 ${String(result.latency.p99).padStart(4)} ms${failures ? `  (${failures} failed)` : ''}`)
  if (failures) throw new Error(`${title}: ${failures} requests failed`)
  return result.requests.average
}

const ratio = (name: string, value: number, budget?: string) =>
  console.log(`  ratio ${name.padEnd(50)} ${value.toFixed(2)}${budget ? `  (budget ${budget})` : ''}`)

async function main () {
  const idp = await startIdp()
  const s3 = await startS3Server()
  const dataDir = await mkdtemp(join(tmpdir(), 'stowage-bench-'))
  try {
    const port = 3900 + Math.floor(Math.random() * 90)
    await startNode(join(here, '..', 'server.js'), {
      PORT: String(port),
      DATABASE_URL: `sqlite:${join(dataDir, 'stowage.db')}`,
      STORAGE_DRIVER: 's3',
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      JWT_ISSUER: idp.issuer,
      JWT_AUDIENCE: TEST_AUDIENCE,
      LOG_LEVEL: 'warn'
    }, /./).catch(() => undefined)
    const base = `http://127.0.0.1:${port}`
    for (let i = 0; i < 50 && !(await fetch(`${base}/health`).then((r) => r.ok, () => false)); i++) await sleep(100)

    const jwt = { authorization: `Bearer ${idp.token({ sub: 'bench-user' }, { expiresIn: 3600 })}` }
    console.log(`Stowage benchmark: ${CONNECTIONS} connections, ${SECONDS} s each, node ${process.version}\n`)

    const health = await measure('GET /health', `${base}/health`)
    const jwtCredentials = await measure('GET /api/auth/credentials (JWT)', `${base}/api/auth/credentials`, jwt)
    ratio('JWT credentials / health', jwtCredentials / health, '>= 0.8')

    const file = Buffer.alloc(4096, 'stowage').toString('base64')
    const put = await fetch(`${base}/api/files/bench/4k.bin`, {
      method: 'PUT', headers: { ...jwt, 'content-type': 'application/json' }, body: JSON.stringify({ content: file })
    })
    if (!put.ok) throw new Error(`PUT failed: ${put.status}`)
    const key = 'users/bench-user/files/bench/4k.bin'
    const reference = JSON.parse(await startNode(join(here, 'reference-server.js'), {
      S3_ENDPOINT: s3.endpoint, S3_BUCKET: s3.bucket, OBJECT_KEY: key
    })) as { port: number }

    console.log()
    const stowageGet = await measure('GET /api/files/{path}, 4 KiB, s3 driver (JWT)', `${base}/api/files/bench/4k.bin`, jwt)
    const referenceGet = await measure('reference: bare node GetObject + base64 JSON', `http://127.0.0.1:${reference.port}/`)
    const directGet = await measure('direct GetObject from s3rver', `${s3.endpoint}/${s3.bucket}/${key}`)
    ratio('file GET / reference server', stowageGet / referenceGet, '>= 0.8')
    ratio('file GET / direct GetObject', stowageGet / directGet, 'reported')
    ratio('reference server / direct GetObject', referenceGet / directGet, 'reported')
  } finally {
    for (const child of children) child.kill('SIGTERM')
    await idp.close()
    await s3.close()
    await rm(dataDir, { recursive: true, force: true })
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
