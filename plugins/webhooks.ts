import fp from 'fastify-plugin'
import { createWebhookRepository } from '../db/webhooks.js'
import { createDeliverer, type DelivererOptions } from '../webhooks/deliverer.js'
import { createWebhooks } from '../webhooks/service.js'
import { decorateStowage, stowageOf } from '../http/decorators.js'
import { sweepEvery } from '../http/sweep.js'

export interface WebhooksPluginOptions extends Partial<Pick<DelivererOptions, 'retryDelaysMs' | 'timeoutMs' | 'pollMs' | 'concurrency' | 'onOutcome'>> {
  /** Webhooks may point at loopback, private and link-local addresses (a receiver beside the service). Off by default. */
  allowPrivate?: boolean
}

// Finished deliveries are shown (GET /api/webhooks/{id}/deliveries) this long.
const FINISHED_KEPT_MS = 7 * 86_400_000

/** Webhooks: made and listed by their routes, their deliveries queued with each journal entry and sent from here. */
export const webhooksPlugin = fp<WebhooksPluginOptions>(async (app, { allowPrivate = false, ...delivery }) => {
  const { stowageDb: db, stowageChanges: journal } = stowageOf(app)
  const repository = createWebhookRepository(db)
  const deliverer = createDeliverer({ ...delivery, repository, allowPrivate, log: app.log.child({ component: 'webhooks' }) })
  decorateStowage(app, 'stowageWebhooks', { ...createWebhooks({ repository, allowPrivate }), stats: deliverer.stats })
  journal.onDeliveriesQueued(deliverer.drain)
  sweepEvery(app, { everyMs: 3600_000, what: 'finished webhook deliveries older than a week', sweep: () => repository.sweep(new Date(Date.now() - FINISHED_KEPT_MS)) })
  app.addHook('onReady', async () => { deliverer.start() })
  app.addHook('onClose', async () => { await deliverer.close() })
}, { name: 'stowage-webhooks', fastify: '5.x', dependencies: ['stowage-db', 'stowage-changes'] })
