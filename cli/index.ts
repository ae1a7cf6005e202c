import { readFile } from 'node:fs/promises'
import { HELP, helpOf } from './help.js'
import { UsageError, type CliIo } from './io.js'
import type { AwsCredentialSource } from './client.js'

export type { CliIo } from './io.js'
export { HELP } from './help.js'

const CLIENT_COMMANDS = new Set(['login', 'logout', 'ls', 'find', 'get', 'put', 'rm', 'cp', 'mv', 'mkdir', 'rmdir', 'trash', 'versions', 'changes', 'share', 'sync', 'keys', 'whoami', 'aws-credentials', 's3', 's3-credentials', 'shares', 'shared'])

/** The version of the installed package: package.json is two folders up from dist/cli, one from cli. */
async function version (): Promise<string> {
  for (const path of ['../../package.json', '../package.json']) {
    try {
      const found = JSON.parse(await readFile(new URL(path, import.meta.url), 'utf8')) as { name?: string, version?: string }
      if (found.name === 'stowage' && found.version) return found.version
    } catch {}
  }
  return 'unknown'
}

/** Runs one command line; resolves to the exit code. Help, the version and mistakes in the command
 *  line answer without settings, and load neither the database drivers nor the AWS SDK. */
export async function runCli (argv: string[], io: CliIo, awsCredentials?: AwsCredentialSource): Promise<number> {
  const [command, ...rest] = argv
  try {
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      // `stowage help sync`: that command's lines only.
      const asked = command === 'help' ? rest[0] : undefined
      if (asked === undefined) io.stdout.write(HELP)
      else io.stdout.write(helpOf(asked) ?? `no command "${asked}"; run "stowage help" for all of them\n`)
      return asked === undefined || helpOf(asked) !== undefined ? 0 : 2
    }
    if (rest.includes('--help') || rest.includes('-h')) {
      const help = helpOf(command)
      if (help === undefined) throw new UsageError(`unknown command "${command}"; run "stowage help"`)
      io.stdout.write(help)
      return 0
    }
    if (command === '--version' || command === '-v' || command === 'version') {
      io.stdout.write(`stowage ${await version()}\n`)
      return 0
    }
    if (command === 'serve') {
      if (rest.length > 0) throw new UsageError('serve takes no arguments: it reads the same environment variables as npm start')
      // The service itself: it listens until SIGTERM or SIGINT, as npm start does.
      await import('../server.js')
      return await new Promise<number>(() => {})
    }
    if (command === 'admin') {
      const { runAdmin } = await import('./admin.js')
      io.stdout.write(JSON.stringify(await runAdmin(rest, io), null, 2) + '\n')
      return 0
    }
    if (!CLIENT_COMMANDS.has(command)) throw new UsageError(`unknown command "${command}"; run "stowage help"`)
    const { runClient } = await import('./client.js')
    await runClient(command, rest, io, awsCredentials)
    return 0
  } catch (error) {
    const misuse = error instanceof UsageError || (error as Error).name === 'ConfigError' ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true
    const code = misuse ? 2 : 1
    // With --json, a failure is JSON too, for the script that asked for it.
    if (rest.includes('--json')) io.stderr.write(JSON.stringify({ error: (error as Error).message, exitCode: code }) + '\n')
    else io.stderr.write(`stowage: ${(error as Error).message}\n`)
    return code
  }
}
