import { spawn } from 'node:child_process'
import { bundled } from './bundle.js'
import { sampleRss } from './streams.js'

/** The `stowage` command as a process of its own, bundled (./bundle.ts), so that it needs nothing
 *  from its environment, which may be a client's own: the AWS CLI runs it as a credential_process. */
export const CLI_COMMAND = [process.execPath, await bundled('cli')]

/** A command in a process of its own, its peak resident memory growth sampled meanwhile. Not
 *  spawnSync: the server answering the command runs in this process. */
export function runCommand (file: string, args: string[], env: Record<string, string | undefined>) {
  return new Promise<{ status: number | null, stdout: string, stderr: string, rssGrowthBytes: number }>((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    const rss = sampleRss(child.pid!)
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (text: string) => { stdout += text })
    child.stderr.setEncoding('utf8').on('data', (text: string) => { stderr += text })
    child.on('error', reject).on('exit', () => { growth = rss.stop().growthBytes })
    let growth = 0
    child.on('close', (status) => resolve({ status, stdout, stderr, rssGrowthBytes: growth }))
  })
}
