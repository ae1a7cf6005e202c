export interface CliIo {
  stdout: { write (text: string | Uint8Array): unknown }
  stderr: { write (text: string): unknown }
  env: Record<string, string | undefined>
}

/** A mistake in the command line: printed with no stack, exit code 2. */
export class UsageError extends Error {}
