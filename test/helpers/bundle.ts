import { randomBytes } from 'node:crypto'
import { existsSync, statSync } from 'node:fs'
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'rolldown'

// The server and the CLI as the tests start them in processes of their own: bundled into
// .test-build/ by rolldown (which the console's build installs), their packages left outside.
// Run through the TypeScript loader, a server took about 5 s of CPU to start, 1.8 s of it the
// loader's hooks answering the ~3,500 module lookups of a start on a thread of their own, and the
// suite starts hundreds; bundled, 2.8 s. The folder is one below the project, as dist/ is, so
// what the code finds from its own file (the built console, package.json) is found the same.
// A bundle is made again when a file in it changed (its manifest keeps their sizes and times).

const PROJECT = fileURLToPath(new URL('../../', import.meta.url))
const FOLDER = join(PROJECT, '.test-build')
const MANIFEST = join(FOLDER, 'manifest.json')
const ENTRIES = { server: 'server.ts', cli: 'cli/main.ts' }
type Entry = keyof typeof ENTRIES

interface Manifest {
  entries: Record<Entry, string>
  /** Every source file in the bundles: its path, size and modification time. */
  files: Array<[string, number, number]>
}

const unchanged = ([path, size, mtimeMs]: Manifest['files'][number]) => {
  const now = statSync(path, { throwIfNoEntry: false })
  return now?.size === size && now.mtimeMs === mtimeMs
}

async function current (): Promise<Manifest | undefined> {
  try {
    const manifest = JSON.parse(await readFile(MANIFEST, 'utf8')) as Manifest
    if (Object.values(manifest.entries).every((file) => existsSync(file)) && manifest.files.every(unchanged)) return manifest
  } catch {}
  return undefined
}

async function bundle (): Promise<Manifest> {
  const id = randomBytes(4).toString('hex')
  const { output } = await build({
    cwd: PROJECT,
    input: ENTRIES,
    platform: 'node',
    external: (source) => !source.startsWith('.') && !source.startsWith('/'),
    // The sources import each other as `.js`, as NodeNext wants.
    resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
    output: { dir: FOLDER, format: 'esm', entryFileNames: `[name]-${id}.mjs`, chunkFileNames: `[name]-${id}-[hash].mjs` },
    logLevel: 'warn'
  })
  const chunks = output.flatMap((file) => file.type === 'chunk' ? [file] : [])
  const entries = Object.fromEntries(chunks.filter((chunk) => chunk.isEntry).map((chunk) => [chunk.name, join(FOLDER, chunk.fileName)])) as Record<Entry, string>
  const sources = [...new Set(chunks.flatMap((chunk) => chunk.moduleIds))].filter((path) => path.startsWith(PROJECT))
  const files = await Promise.all(sources.map(async (path): Promise<Manifest['files'][number]> => {
    const { size, mtimeMs } = await stat(path)
    return [path, size, mtimeMs]
  }))
  const manifest = { entries, files }
  // Another test process may be bundling too: each writes files of its own, and the manifest whole.
  await writeFile(`${MANIFEST}.${id}`, JSON.stringify(manifest))
  await rename(`${MANIFEST}.${id}`, MANIFEST)
  await removeOld()
  return manifest
}

/** Bundles of earlier versions, once no test could still be running one (a day on). */
async function removeOld () {
  const dayAgo = Date.now() - 24 * 3600_000
  for (const name of await readdir(FOLDER)) {
    const path = join(FOLDER, name)
    if (name !== 'manifest.json' && (await stat(path)).mtimeMs < dayAgo) await rm(path, { force: true })
  }
}

let made: Promise<Manifest> | undefined

/** The file to run with `node` for `entry`, bundled from the sources as they are now. */
export async function bundled (entry: Entry): Promise<string> {
  made ??= current().then((manifest) => manifest ?? bundle())
  return (await made).entries[entry]
}
