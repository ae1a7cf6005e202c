import type { FastifyInstance } from 'fastify'

/**
 * Runs `sweep` once the app is ready and then every `everyMs`, on every instance (a sweep skips or
 * shares what another is doing): what it removed is logged, and a failure is logged at warn and
 * tried again next time. `what` names the things removed, as in "expired uploads".
 */
export function sweepEvery (app: FastifyInstance, { everyMs, what, sweep }: { everyMs: number, what: string, sweep: () => Promise<number> }) {
  async function run () {
    try {
      const removed = await sweep()
      if (removed > 0) app.log.info({ removed }, `${what} removed`)
    } catch (error) {
      app.log.warn({ err: error }, `${what} could not be removed; trying again later`)
    }
  }
  const timer = setInterval(() => { void run() }, everyMs)
  timer.unref()
  app.addHook('onReady', async () => { void run() })
  app.addHook('onClose', async () => { clearInterval(timer) })
}
