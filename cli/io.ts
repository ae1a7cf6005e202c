export interface CliIo {
  stdout: { write (text: string | Uint8Array): unknown }
  /** Progress lines are drawn only when this is a terminal. */
  stderr: { write (text: string): unknown, isTTY?: boolean }
  env: Record<string, string | undefined>
}

/** A mistake in the command line: printed with no stack, exit code 2. */
export class UsageError extends Error {}
