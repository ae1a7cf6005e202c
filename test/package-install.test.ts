import t from 'tap'
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { startServerProcess } from './helpers/server.js'
import { folderAtRepoDepth } from './helpers/repo-depth.js'
import { shellEnv } from './helpers/shell-env.js'

// The other production path: the package as npm packs it, installed into an empty folder with its
// production dependencies only, gives the `stowage` command and the service.
t.setTimeout(600_000)

/**
 * A lockfile for a host project that depends on the packed package: the package's production
 * dependencies exactly as package-lock.json has them (a development dependency left out is missing
 * there, so an import of one fails the test). npm then installs what the suite ran with, from the
 * cache the stage's own `npm ci` filled, rather than asking the registry about every package (two
 * to three minutes on a fresh machine, and the registry's newest can be a release whose own
 * dependency is not published yet: 2026-11-24, @aws-sdk/client-s3 3.1173.0).
 */
function hostLockfile (tarball: string, integrity: string): object {
  const { packages } = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, Record<string, unknown> & { dev?: boolean }> }
  const { name: _name, devDependencies: _devDependencies, ...stowage } = packages['']
  const production = Object.fromEntries(Object.entries(packages).filter(([path, entry]) => path && !entry.dev))
  return {
    name: 'host',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'host', dependencies: { stowage: `file:${tarball}` } },
      'node_modules/stowage': { ...stowage, resolved: `file:${tarball}`, integrity },
      ...production
    }
  }
}

t.test('the packed package, installed into an empty folder, serves and administers', { timeout: 600_000 }, async (t) => {
  t.ok(existsSync('dist/server.js'), 'built (npm ci runs the build)')
  const work = mkdtempSync(join(tmpdir(), 'stowage-package-'))
  t.teardown(() => rmSync(work, { recursive: true, force: true }))
  // The host project: its better-sqlite3 builds as the stage's did (see folderAtRepoDepth).
  const { made, folder: host } = folderAtRepoDepth('stowage-host-')
  t.teardown(() => rmSync(made, { recursive: true, force: true }))
  // The build already ran: packing again must not rebuild dist/ under the tests that are running.
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { encoding: 'utf8', env: shellEnv() })) as Array<{ filename: string, integrity: string, files: Array<{ path: string }> }>
  const tarball = packed.filename
  const shipped = packed.files.map((file) => file.path)
  t.same(shipped.filter((path) => /^(dist\/)?(bench|test)\/|\.map$/.test(path)), [], 'no benchmark or test code, and no source maps, in the tarball')
  t.ok(shipped.includes('dist/index.js') && shipped.includes('dist/index.d.ts') && shipped.includes('LICENSE'), 'the library, its types and the licence are')
  const tarballPath = relative(host, join(work, tarball))
  writeFileSync(join(host, 'package.json'), JSON.stringify({ name: 'host', private: true, dependencies: { stowage: `file:${tarballPath}` } }))
  writeFileSync(join(host, 'package-lock.json'), JSON.stringify(hostLockfile(tarballPath, packed.integrity)))
  const install = spawnSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: host, encoding: 'utf8', env: shellEnv() })
  t.equal(install.status, 0, `npm install of the tarball: ${install.stderr.slice(-2000)}`)
  if (install.status !== 0) return

  const installed = join(host, 'node_modules', 'stowage')
  t.notOk(existsSync(join(host, 'node_modules', 'typescript')), 'no development dependency came with it')
  const stowage = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [join(host, 'node_modules', '.bin', 'stowage'), ...args], { cwd: host, env: { ...process.env, ...env }, encoding: 'utf8' })
  t.equal(stowage(['--version']).stdout.trim(), `stowage ${JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version}`)

  const env = { DATABASE_URL: `sqlite:${join(work, 'data', 'stowage.db')}`, STORAGE_DIR: join(work, 'data', 'objects') }
  const server = await startServerProcess(env, [join(host, 'node_modules', '.bin', 'stowage'), 'serve'], { cwd: host, bare: true })
  t.teardown(() => { server.child.kill('SIGKILL') })
  t.match(await (await fetch(`${server.url}/health`)).json(), { status: 'ok' })
  const created = stowage(['admin', 'create-key', '--user', 'alice', '--name', 'package'], env)
  t.equal(created.status, 0, created.stderr)
  const key = (JSON.parse(created.stdout) as { key: string }).key
  const whoAmI = await fetch(`${server.url}/api/auth/credentials`, { headers: { authorization: `Bearer ${key}` } })
  t.match(await whoAmI.json(), { userId: 'alice' })
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)

  // A host project mounts the plugin from the package's main entry.
  writeFileSync(join(host, 'host.mjs'), `
    import Fastify from 'fastify'
    import { stowage } from 'stowage'
    const app = Fastify()
    app.get('/', async () => ({ host: true }))
    await app.register(stowage, { prefix: '/files', database: { url: process.env.DB }, storage: { dir: process.env.DIR } })
    const health = await app.inject({ url: '/files/health' })
    const root = await app.inject({ url: '/' })
    console.log(JSON.stringify({ health: health.json(), root: root.json() }))
    await app.close()
  `)
  const loaded = join(work, 'loaded.txt')
  const mounted = spawnSync(process.execPath, ['--import', resolve('test/fixtures/record-loads.mjs'), 'host.mjs'], {
    cwd: host, encoding: 'utf8', env: { ...process.env, DB: `sqlite:${join(work, 'host.db')}`, DIR: join(work, 'host-objects'), LOADED_MODULES_FILE: loaded }
  })
  t.equal(mounted.status, 0, mounted.stderr)
  t.match(JSON.parse(mounted.stdout), { health: { status: 'ok' }, root: { host: true } }, 'mounted under /files beside the host\'s route')
  const modules = readFileSync(loaded, 'utf8').split('\n')
  t.same(modules.filter((url) => /@aws-sdk\/client-|\/dist\/cli\//.test(url)), [], 'neither the CLI nor an AWS SDK client is loaded for the fs driver')
})
