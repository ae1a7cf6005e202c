import t from 'tap'
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServerProcess } from './helpers/server.js'
import { folderAtRepoDepth } from './helpers/repo-depth.js'
import { shellEnv } from './helpers/shell-env.js'

// No image can be built on these machines, so the Dockerfile's own steps run here: its build stage's
// npm commands on a fresh copy of the repository, then what its runtime stage copies, started with
// its ENV, CMD and HEALTHCHECK, and checked over HTTP. Only the system packages come from this machine.
t.setTimeout(600_000)
// The image runs one Node line, its FROM's: its steps are run on that line only (CI's stage for it),
// as the quick start and the package install run on every line.
const imageNode = /^FROM node:(\d+)/m.exec(readFileSync('Dockerfile', 'utf8'))?.[1]
const skip = process.versions.node.split('.')[0] !== imageNode ? `the image runs Node ${imageNode}: its steps are tested on that line` : false

interface Stage { name: string, lines: string[] }

function stagesOf (dockerfile: string): Stage[] {
  const stages: Stage[] = []
  const joined = dockerfile.replace(/\\\n/g, ' ').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'))
  for (const line of joined) {
    if (line.startsWith('FROM ')) stages.push({ name: / AS (\S+)$/i.exec(line)?.[1] ?? 'runtime', lines: [] })
    else stages.at(-1)!.lines.push(line)
  }
  return stages
}

const argument = (line: string, instruction: string) => line.startsWith(instruction + ' ') ? line.slice(instruction.length + 1) : undefined

t.test("the Dockerfile's install and start, run as its stages say", { skip, timeout: 600_000 }, async (t) => {
  const [build, runtime] = stagesOf(readFileSync('Dockerfile', 'utf8'))
  t.equal(build.name, 'build')
  const work = mkdtempSync(join(tmpdir(), 'stowage-image-'))
  t.teardown(() => rmSync(work, { recursive: true, force: true }))
  // The build context: its native modules build as the stage's did (see folderAtRepoDepth).
  const { made, folder: src } = folderAtRepoDepth('stowage-image-src-')
  t.teardown(() => rmSync(made, { recursive: true, force: true }))
  const app = join(work, 'app')
  const data = join(work, 'data')
  // The build context: the repository as committed, less what .dockerignore leaves out.
  const ignored = readFileSync('.dockerignore', 'utf8').split('\n').filter(Boolean)
  for (const file of execFileSync('git', ['ls-files'], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
    if (!ignored.some((pattern) => file === pattern || file.startsWith(pattern + '/'))) cpSync(file, join(src, file))
  }

  const steps = build.lines.map((line) => argument(line, 'RUN')).filter((run): run is string => run?.startsWith('npm ') === true)
  t.ok(steps.length >= 2, `the build stage's npm steps: ${steps.join('; ')}`)
  for (const step of steps) {
    const result = spawnSync('sh', ['-c', step], { cwd: src, encoding: 'utf8', env: shellEnv({ NODE_ENV: '' }) })
    t.equal(result.status, 0, step)
    if (result.status !== 0) return t.comment((result.stdout + result.stderr).slice(-3000))
  }
  t.notOk(existsSync(join(src, 'node_modules', 'typescript')), 'no development dependency is left')

  const env: Record<string, string> = {}
  for (const line of runtime.lines) {
    const copied = /^COPY --from=build \/src\/(\S+) \.\/(\S+)$/.exec(line)
    if (copied) cpSync(join(src, copied[1]), join(app, copied[2]), { recursive: true })
    for (const [, name, value] of (argument(line, 'ENV') ?? '').matchAll(/(\w+)=(\S+)/g)) env[name] = value.replace(/(^|:)\/data\b/, `$1${data}`)
  }
  t.match(env, { HOST: '0.0.0.0', NODE_ENV: 'production' }, 'the image listens on every interface')
  t.ok(runtime.lines.includes('USER node'), 'it runs as the unprivileged node user')
  const command = JSON.parse(argument(runtime.lines.find((line) => line.startsWith('CMD '))!, 'CMD')!) as string[]
  t.equal(command[0], 'node')

  const server = await startServerProcess({ ...env, PORT: '0' }, command.slice(1), { cwd: app, bare: true })
  t.teardown(() => { server.child.kill('SIGKILL') })
  const port = new URL(server.url).port

  const healthcheck = JSON.parse(/CMD (\[.*\])$/.exec(runtime.lines.find((line) => line.startsWith('HEALTHCHECK '))!)![1]) as string[]
  const probe = spawnSync(healthcheck[0] === 'node' ? process.execPath : healthcheck[0], healthcheck.slice(1), { env: { ...process.env, PORT: port }, encoding: 'utf8' })
  t.equal(probe.status, 0, 'the HEALTHCHECK passes')

  t.match(await (await fetch(`${server.url}/health`)).json(), { status: 'ok', checks: { database: 'ok', storage: 'ok' } })
  const created = spawnSync(process.execPath, ['bin/stowage.js', 'admin', 'create-key', '--user', 'alice', '--name', 'image'], { cwd: app, env: { ...process.env, ...env }, encoding: 'utf8' })
  t.equal(created.status, 0, `admin create-key in the image: ${created.stderr}`)
  const key = (JSON.parse(created.stdout) as { key: string }).key
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  const put = await fetch(`${server.url}/api/files/notes/hello.md`, { method: 'PUT', headers, body: JSON.stringify({ content: Buffer.from('# Hello').toString('base64') }) })
  t.equal(put.status, 200)
  t.same(await (await fetch(`${server.url}/api/files/notes/hello.md`, { headers })).json(), { content: Buffer.from('# Hello').toString('base64'), contentType: 'application/octet-stream' })
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0, 'SIGTERM ends it cleanly')
})
