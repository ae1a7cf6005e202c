import { UNAUTHORIZED } from '../plugins/errors.js'
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import openapiTS, { astToString } from 'openapi-typescript'
import { buildTestApp } from './helpers/app.js'

// A client generated at test time from the live document (openapi-typescript + openapi-fetch),
// type-checked with --strict, then run through the whole API.
t.test('a client generated from the document type-checks strictly and runs the whole API', async (t) => {
  const { app, close } = await buildTestApp({ env: { MAX_FILE_BYTES: '1000' } })
  t.teardown(close)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const { key } = await app.stowageKeys.create({ userId: 'generated-user', orgId: null })

  // Read in-process: a socket kept alive while tsc below holds this process would be closed by the
  // server under the flow's first request (ECONNRESET on a busy machine).
  const document = (await app.inject({ url: '/openapi.json' })).json()
  const dir = mkdtempSync(join(tmpdir(), 'stowage-client-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  symlinkSync(resolve('node_modules'), join(dir, 'node_modules'))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
  writeFileSync(join(dir, 'schema.d.ts'), astToString(await openapiTS(document)))
  cpSync('test/fixtures/generated-client-flow.ts', join(dir, 'flow.ts'))
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], skipLibCheck: true },
    files: ['flow.ts', 'schema.d.ts']
  }))
  const check = spawnSync(process.execPath, [resolve('node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' })
  t.equal(check.status, 0, `tsc --strict: ${check.stdout}${check.stderr}`)

  const { runFlow } = await import(pathToFileURL(join(dir, 'flow.ts')).href) as { runFlow (baseUrl: string, key: string): Promise<Record<string, any>> }
  const result = await runFlow(baseUrl, key)
  t.match(result.written, { key: 'notes/my résumé.md', contentType: 'text/markdown' })
  t.equal(result.untypedContentType, 'application/octet-stream', 'contentType may be left out')
  t.same(result.got, { content: Buffer.from('# Résumé\n').toString('base64'), contentType: 'text/markdown' })
  t.same(result.keys, ['notes/my résumé.md', 'notes/plain.bin'])
  t.match(result.location, { userId: 'generated-user', prefix: 'users/generated-user/files/' })
  t.match(result.created, { name: 'generated', key: /^stow_/ })
  t.match(result.bare, { name: '', expiresAt: null }, 'a bare POST /api/keys')
  t.ok(result.listedNames.includes('generated'))
  t.equal(result.revokedStatus, 204)
  t.equal(result.health, 'ok')
  t.same(result.statuses, [401, 404, 413, 204])
  t.same(result.errors, [UNAUTHORIZED, 'file not found: notes/nowhere.md', 'file is larger than 1000 bytes', 'the file has changed (If-Match)'], 'typed error bodies')
  t.match(result.raw.written, { key: 'media/clip.bin', size: 10, contentType: 'application/octet-stream', etag: /^"/ })
  t.equal(result.raw.etagHeader, result.raw.written.etag)
  t.same(result.raw.range, [206, 'bytes 2-4/10', [2, 3, 4]], 'a range')
  t.equal(result.raw.notModified, 304)
  t.equal(result.raw.stale, 412)
})
