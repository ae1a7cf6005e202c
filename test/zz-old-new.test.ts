// One-off: cefd409 against this tree, same run, same client loops (bench/http-loop.ts).
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { createInterface } from 'node:readline'
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { alternating, loop } from '../bench/http-loop.js'
import { startS3Server } from './helpers/s3.js'

const loader = ['--import=file:///work/main/node_modules/@tapjs/typescript/dist/esm/import.mjs']
const s3 = await startS3Server()
let port = 47100
async function start (tree: string, driver: string) {
  const dir = mkdtempSync(join(tmpdir(), 'cmp-'))
  const env = { ...process.env, TS_NODE_TRANSPILE_ONLY: '1', DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, STORAGE_DRIVER: driver, STORAGE_DIR: join(dir, 'objects'), S3_BUCKET: s3.bucket, S3_ENDPOINT: s3.endpoint, S3_FORCE_PATH_STYLE: 'true', AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', STORAGE_ROOT: `cmp${port}`, S3_CREDENTIALS_KEY: randomBytes(32).toString('base64'), TRASH_RETENTION_DAYS: '0', VERSION_RETENTION_DAYS: '0', LOG_LEVEL: 'warn', AUTH_FAILURES_PER_ADDRESS: '1000000000' }
  const made = spawnSync(process.execPath, [...loader, join(tree, 'cli/main.ts'), 'admin', 'create-key', '--user', `u${port}`, '--init', '--json'], { cwd: tree, env, encoding: 'utf8' })
  const key = JSON.parse(made.stdout).key as string
  const apiPort = port++
  const s3Port = port++
  const child = spawn(process.execPath, [...loader, join(tree, 'server.ts')], { cwd: tree, env: { ...env, PORT: String(apiPort), S3_API_PORT: String(s3Port) }, stdio: ['ignore', 'pipe', 'inherit'] })
  createInterface({ input: child.stdout! }).on('line', () => {})
  for (;;) { try { if ((await fetch(`http://127.0.0.1:${apiPort}/health`)).ok) break } catch {} await new Promise((r) => setTimeout(r, 200)) }
  const bearer = { authorization: `Bearer ${key}` }
  const base = `http://127.0.0.1:${apiPort}`
  const names = Array.from({ length: 1000 }, (_, i) => `list/k${String(i).padStart(4, '0')}.txt`)
  for (let i = 0; i < names.length; i += 16) await Promise.all(names.slice(i, i + 16).map((n) => fetch(`${base}/api/raw/${n}`, { method: 'PUT', headers: { ...bearer, 'content-type': 'text/plain' }, body: n })))
  const creds = await (await fetch(`${base}/api/s3-credentials`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: '{}' })).json() as { accessKeyId: string, secretAccessKey: string }
  const client = new S3Client({ endpoint: `http://127.0.0.1:${s3Port}`, region: 'us-east-1', forcePathStyle: true, credentials: creds })
  return {
    child, bearer, base,
    basic: { authorization: `Basic ${Buffer.from(`b:${key}`).toString('base64')}`, depth: '1' },
    list: await getSignedUrl(client, new ListObjectsV2Command({ Bucket: 'list', MaxKeys: 1000 }), { expiresIn: 3600 }),
    head: await getSignedUrl(client, new HeadObjectCommand({ Bucket: 'list', Key: 'k0500.txt' }), { expiresIn: 3600 })
  }
}
for (const driver of ['fs', 's3']) {
  const [old, now] = [await start('/tmp/old', driver), await start('/work/main', driver)]
  const both = (make: (s: typeof old) => (seconds: number) => Promise<number>) => alternating([() => make(old), () => make(now)])
  const r = {
    'ListObjectsV2 of 1,000': await both((s) => (sec) => loop(s.list, {}, sec)),
    'GET /api/files page': await both((s) => (sec) => loop(`${s.base}/api/files?prefix=list/&delimiter=/`, { headers: s.bearer }, sec)),
    'PROPFIND Depth 1 of 1,000': await both((s) => (sec) => loop(`${s.base}/dav/list/`, { method: 'PROPFIND', headers: s.basic }, sec)),
    HeadObject: await both((s) => (sec) => loop(s.head, { method: 'HEAD' }, sec)),
    'PUT 4 KiB': await both((s) => (sec) => loop(`${s.base}/api/raw/w.bin`, { method: 'PUT', headers: { ...s.bearer, 'content-type': 'application/octet-stream' }, body: Buffer.alloc(4096) }, sec))
  }
  for (const [name, [o, n]] of Object.entries(r)) console.log(`${driver}: ${name}: cefd409 ${o.toFixed(1)}/s, now ${n.toFixed(1)}/s, ${(n / o).toFixed(2)} x`)
  old.child.kill(); now.child.kill()
}
await s3.close()
