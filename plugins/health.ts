import fp from 'fastify-plugin'
import { ping } from '../db/migrations.js'
import type { HealthReport } from '../schemas/health.js'
import { decorateStowage, stowageOf } from '../http/decorators.js'

type CheckResult = 'ok' | 'failing'

export interface HealthPluginOptions {
  /** A check that takes longer than this counts as failing. */
  timeoutMs?: number
  /** The store's answer is shared for this long, so that a flood of /health is not a flood of store calls. */
  storageCacheMs?: number
  /** Told every report, for metrics. */
  onReport?: (report: HealthReport) => void
}

async function withDeadline (work: Promise<unknown>, timeoutMs: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${timeoutMs} ms`)), timeoutMs)
  })
  try {
    await Promise.race([work, deadline])
  } finally {
    clearTimeout(timer)
  }
}

/** Runs `check` at most once per `maxAgeMs`; callers in between share its answer. */
function shared (check: () => Promise<CheckResult>, maxAgeMs: number) {
  let last: { result: Promise<CheckResult>, at: number } | undefined
  return () => {
    if (!last || Date.now() - last.at >= maxAgeMs) last = { result: check(), at: Date.now() }
    return last.result
  }
}

export const healthPlugin = fp<HealthPluginOptions>(async (app, { timeoutMs = 2000, storageCacheMs = 1000, onReport }) => {
  const run = (what: string, work: () => Promise<unknown>) => async (): Promise<CheckResult> => {
    try {
      await withDeadline(work(), timeoutMs, what)
      return 'ok'
    } catch (error) {
      app.log.warn({ err: error }, `${what} health check failed`)
      return 'failing'
    }
  }
  const { stowageDb, stowageFiles } = stowageOf(app)
  const checkDatabase = run('the database', () => ping(stowageDb))
  const checkStorage = shared(run('the file store', () => stowageFiles.check()), storageCacheMs)

  decorateStowage(app, 'stowageCheckHealth', async (): Promise<HealthReport> => {
    const [database, storage] = await Promise.all([checkDatabase(), checkStorage()])
    const failing = [database === 'failing' && 'the database', storage === 'failing' && 'the file store'].filter(Boolean)
    const checks = { database, storage }
    const report: HealthReport = failing.length === 0
      ? { status: 'ok', checks }
      : { status: 'unavailable', error: `${failing.join(' and ')} ${failing.length > 1 ? 'are' : 'is'} not answering`, checks }
    onReport?.(report)
    return report
  })
}, { name: 'stowage-health', fastify: '5.x', dependencies: ['stowage-db', 'stowage-storage'] })
