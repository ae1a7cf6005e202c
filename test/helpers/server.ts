import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'

export interface ServerProcess {
  url: string
  child: ChildProcess
  /** The `msg` of every log line so far. */
  messages: string[]
  exited: Promise<number | null>
}

/** `server.ts` (or another command) in a process of its own, as an operator runs it; resolves once it listens. */
export async function startServerProcess (env: Record<string, string>, command = ['server.ts']): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...process.execArgv, ...command], {
    // The 'listening' line is logged at info.
    env: { ...process.env, PORT: '0', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const messages: string[] = []
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const { msg } = JSON.parse(line) as { msg: string }
      messages.push(msg)
      const listening = /^Server listening at (http:\/\/127\.0\.0\.1:\d+)$/.exec(msg)?.[1]
      if (listening) resolve(listening)
    })
    exited.then((code) => reject(new Error(`the server exited with ${code} before listening`)))
  })
  return { url, child, messages, exited }
}
