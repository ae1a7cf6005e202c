import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'
import { bundled } from './bundle.js'

const SETPRIV = '/usr/bin/setpriv'

/** This process's Node options for a child that runs TypeScript too: the loaders .taprc names
 *  relative to the project, named in full (a child may start elsewhere, as a client's command), and
 *  not tap's own (see test/helpers/tap-free-children.mjs). */
export const NODE_ARGS = process.execArgv
  .filter((arg) => !arg.includes('/@tapjs/'))
  .map((arg) => arg.startsWith('--import=./') ? `--import=${pathToFileURL(resolve(arg.slice('--import='.length))).href}` : arg)

/**
 * A child process that dies with this one (util-linux's setpriv sets its parent-death signal): a
 * test file that its timeout ends leaves no server behind, which would hold the runner's output
 * open and keep CI waiting for ever.
 */
export function spawnTied (command: string, args: string[], options: SpawnOptions): ChildProcess {
  return existsSync(SETPRIV)
    ? spawn(SETPRIV, ['--pdeathsig', 'SIGKILL', '--', command, ...args], options)
    : spawn(command, args, options)
}

export interface ServerProcess {
  url: string
  child: ChildProcess
  /** The `msg` of every log line so far. */
  messages: string[]
  /** Every log line so far, parsed. */
  logs: Array<Record<string, unknown>>
  exited: Promise<number | null>
}

/** The server (or another command) in a process of its own, as an operator runs it; resolves once it
 *  listens. The server runs bundled (./bundle.ts); another command with this process's TypeScript
 *  loader, unless it is compiled (`bare`). */
export async function startServerProcess (
  env: Record<string, string>, command?: string[], { cwd, bare = false }: { cwd?: string, bare?: boolean } = {}
): Promise<ServerProcess> {
  const args = command ? [...(bare ? [] : NODE_ARGS), ...command] : [await bundled('server')]
  const child = spawnTied(process.execPath, args, {
    cwd,
    // The 'listening' line is logged at info.
    env: { ...process.env, PORT: '0', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const messages: string[] = []
  const logs: Array<Record<string, unknown>> = []
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as { msg: string }
      logs.push(entry)
      const { msg } = entry
      messages.push(msg)
      // Listening on 0.0.0.0, Fastify names each interface: loopback is one of them.
      const port = /^Server listening at http:\/\/(?:127\.0\.0\.1|0\.0\.0\.0):(\d+)$/.exec(msg)?.[1]
      if (port) resolve(`http://127.0.0.1:${port}`)
    })
    exited.then((code) => reject(new Error(`the server exited with ${code} before listening`)))
  })
  return { url, child, messages, logs, exited }
}
