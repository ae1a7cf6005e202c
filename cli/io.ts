export interface CliIo {
  stdout: { write (text: string | Uint8Array): unknown }
  /** Progress lines are drawn only when this is a terminal. */
  stderr: { write (text: string): unknown, isTTY?: boolean }
  env: Record<string, string | undefined>
  /** Ends what would go on until stopped (`changes --follow`, `sync --watch`): they return. A
   *  process is stopped by its signals instead. */
  signal?: AbortSignal
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

/** A JSON POST that carries its own credential (the sign-in routes): the status and the parsed body. */
export async function postJson (base: string, path: string, body?: object) {
  let response: Response
  try {
    response = await fetch(`${base.replace(/\/+$/, '')}${path}`, {
      method: 'POST', ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {})
    })
  } catch (error) {
    throw new RequestFailed(`cannot reach ${base} (${causeOf(error)})`)
  }
  const answer = await response.json().catch(() => ({})) as Record<string, unknown>
  return { status: response.status, statusText: response.statusText, answer }
}
