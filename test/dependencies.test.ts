import t from 'tap'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

// npm's own range semantics (semver, which npm installs), typed for the two calls made here.
const semver = createRequire(import.meta.url)('semver') as { minVersion (range: string): { version: string } | null, satisfies (version: string, range: string): boolean }

// `npm ci` on each Node line the service supports installs without an EBADENGINE warning: every
// package the lock file installs accepts the oldest Node of each line package.json names.

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } }
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { engines?: { node?: string } | string[], optional?: boolean }> }
const oldest = pkg.engines.node.split('||').map((range) => semver.minVersion(range.trim())!.version)

t.test('every locked package accepts the oldest Node of each supported line', async (t) => {
  t.same(oldest, ['20.19.0', '22.12.0', '24.0.0'])
  const refusing: string[] = []
  for (const [path, entry] of Object.entries(lock.packages)) {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node
    // Platform packages of other machines (optional, not installed here) are not installed, so not checked.
    if (path === '' || range === undefined || !existsSync(path)) continue
    for (const version of oldest) {
      if (!semver.satisfies(version, range)) refusing.push(`${path.replace(/^.*node_modules\//, '')} needs node ${range}, not ${version}`)
    }
  }
  t.same(refusing, [], 'no package warns EBADENGINE')
})
