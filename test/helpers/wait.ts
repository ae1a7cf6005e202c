import type { LogStream } from '../../app.js'

/** Polls `check` until it holds; generous by default, for a busy machine. */
export async function waitFor (check: () => boolean | Promise<boolean>, { timeoutMs = 30_000, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A log stream that keeps its lines, parsed, for assertions. */
export function captureLogs () {
  const entries: Array<Record<string, unknown>> = []
  const stream: LogStream = { write: (line) => { entries.push(JSON.parse(line) as Record<string, unknown>) } }
  return {
    stream,
    entries,
    text: () => entries.map((entry) => JSON.stringify(entry)).join('\n'),
    count: (msg: string) => entries.filter((entry) => entry.msg === msg).length,
    waitForMessage: (msg: string, times = 1) => waitFor(() => entries.filter((entry) => entry.msg === msg).length >= times, { what: `log "${msg}"` })
  }
}

/** Runs `work` and returns its result with the milliseconds it took. */
export async function timed<T> (work: () => Promise<T>): Promise<{ result: T, ms: number }> {
  const started = performance.now()
  const result = await work()
  return { result, ms: performance.now() - started }
}
