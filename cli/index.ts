import { ConfigError } from '../config.js'
import { ADMIN_HELP, runAdmin } from './admin.js'
import { runClient, type AwsCredentialSource } from './client.js'
import { UsageError, type CliIo } from './io.js'

export type { CliIo } from './io.js'

export const HELP = `stowage — command-line client and admin tool of a Stowage service

Usage:
  stowage login --url URL --api-key KEY
  stowage login --url URL --aws-sso --server-id ID [--sts-region R] [--sts-endpoint URL]
  stowage ls [PREFIX]                         every page of your files
  stowage get PATH [-o FILE]                  to standard output unless -o
  stowage put FILE PATH [--content-type T]
  stowage rm PATH
  stowage keys create [--name N] | keys ls | keys revoke ID
  stowage whoami
  stowage help

  --json gives machine-readable output. Settings live in $STOWAGE_CONFIG, else
  $XDG_CONFIG_HOME/stowage/config.json, else ~/.config/stowage/config.json (mode 0600).
  In aws-sso mode every request is signed with the AWS default credential chain; missing or
  expired credentials are an error, never a fallback to an API key.

${ADMIN_HELP}`

/** Runs one command line; resolves to the exit code. */
export async function runCli (argv: string[], io: CliIo, awsCredentials?: AwsCredentialSource): Promise<number> {
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
    await runClient(command, rest, io, awsCredentials)
    return 0
  } catch (error) {
    const misuse = error instanceof UsageError || error instanceof ConfigError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true
    io.stderr.write(`stowage: ${(error as Error).message}\n`)
    return misuse ? 2 : 1
  }
}
