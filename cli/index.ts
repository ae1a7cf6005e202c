export interface CliIo {
  stdout: { write (text: string): unknown }
  stderr: { write (text: string): unknown }
  env: Record<string, string | undefined>
}

export const HELP = `stowage — client and admin commands for a Stowage service

Usage:
  stowage help                      this text

Client and admin commands arrive with the API key issue; see README.md.
`

/** Runs one command line; resolves to the exit code. */
export async function runCli (argv: string[], io: CliIo): Promise<number> {
  const [command] = argv
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    io.stdout.write(HELP)
    return 0
  }
  io.stderr.write(`stowage: unknown command "${command}"; run "stowage help"\n`)
  return 2
}
