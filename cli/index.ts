import { ConfigError } from '../config.js'
import { ADMIN_HELP, runAdmin } from './admin.js'
import { UsageError, type CliIo } from './io.js'

export type { CliIo } from './io.js'

export const HELP = `stowage — command-line client and admin tool of a Stowage service

Usage:
  stowage help
  stowage admin create-org --name N [--aws-account-id A] [--auth-mode platform|aws-sso]
  stowage admin create-key --user U [--org O] [--name N]

${ADMIN_HELP}`

/** Runs one command line; resolves to the exit code. */
export async function runCli (argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv
  try {
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      io.stdout.write(HELP)
      return 0
    }
    if (command === 'admin') {
      io.stdout.write(JSON.stringify(await runAdmin(rest, io), null, 2) + '\n')
      return 0
    }
    throw new UsageError(`unknown command "${command}"; run "stowage help"`)
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`stowage: ${(error as Error).message}\n`)
      return 2
    }
    io.stderr.write(`stowage: ${(error as Error).message}\n`)
    return 1
  }
}
