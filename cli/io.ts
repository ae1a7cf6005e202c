export interface CliIo {
  stdout: { write (text: string | Uint8Array): unknown }
  /** Progress lines are drawn only when this is a terminal. */
  stderr: { write (text: string): unknown, isTTY?: boolean }
  env: Record<string, string | undefined>
}

/** What went wrong under fetch's own "fetch failed": ECONNREFUSED, a name that does not resolve… */
export function causeOf (error: unknown): string {
  const cause = (error as { cause?: { code?: string, message?: string } }).cause
  return cause?.code ?? cause?.message ?? (error as Error).message
}

/** A mistake in the command line: printed with no stack, exit code 2. */
export class UsageError extends Error {}

/** A request the service refused, or could not be made: printed with no stack, exit code 1. */
export class RequestFailed extends Error {}
