import { randomBytes } from 'node:crypto'
import type { Delivery, Webhook, WebhookRepository } from '../db/webhooks.js'
import { BadRequestError, NotFoundError } from '../errors.js'
import { checkPrefix } from '../storage/paths.js'
import { checkReachable, RefusedAddressError } from './addresses.js'
import { newSecret } from './signature.js'
import { eventTypeOf, messageIdOf } from './deliverer.js'
import type { MadeWithKey } from '../s3/credentials.js'

// Webhooks one user may have.
export const MAX_WEBHOOKS = 25
// Deliveries GET /api/webhooks/{id}/deliveries shows.
export const SHOWN_DELIVERIES = 100
export const MAX_URL_LENGTH = 2048

const described = ({ id, url, prefix, createdAt, disabled }: Webhook) => ({ id, url, prefix, createdAt: createdAt.toISOString(), disabled })

const describedDelivery = ({ id, webhookId, op, key, status, attempts, lastError, nextAttemptAt, finishedAt }: Delivery) => ({
  id: messageIdOf(webhookId, id), type: eventTypeOf(op), op, key, status, attempts,
  ...lastError === undefined ? {} : { lastError },
  ...status === 'pending' ? { nextAttemptAt: nextAttemptAt.toISOString() } : {},
  ...status === 'delivered' && finishedAt ? { deliveredAt: finishedAt.toISOString() } : {}
})

/** Parses a webhook URL: http(s) only, to a host that may be reached. */
async function checkUrl (text: string, allowPrivate: boolean): Promise<URL> {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new BadRequestError('url is not a URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BadRequestError('url must be http or https')
  try {
    await checkReachable(url, allowPrivate)
  } catch (error) {
    if (error instanceof RefusedAddressError) throw new BadRequestError(`url is refused: ${error.message}${allowPrivate ? '' : ' (WEBHOOK_ALLOW_PRIVATE=true allows private addresses)'}`)
    throw error
  }
  return url
}

/** A user's webhooks: made with a secret shown once, listed, removed, and their deliveries shown. */
export function createWebhooks ({ repository, allowPrivate }: { repository: WebhookRepository, allowPrivate: boolean }) {
  return {
    /** A webhook made with an API key (`madeWith`) stops when that key is revoked or expires. */
    async create (userId: string, { url, prefix = '' }: { url: string, prefix?: string }, madeWith?: MadeWithKey) {
      const checked = await checkUrl(url, allowPrivate)
      const webhook = {
        id: `wh_${randomBytes(12).toString('base64url')}`, userId, url: checked.href, prefix: checkPrefix(prefix), secret: newSecret(), createdAt: new Date(),
        apiKeyId: madeWith?.id ?? null, expiresAt: madeWith?.expiresAt ? new Date(madeWith.expiresAt) : null
      }
      if (!await repository.add(webhook, MAX_WEBHOOKS)) throw new BadRequestError(`you have ${MAX_WEBHOOKS} webhooks, the most there may be: delete one first`)
      return { id: webhook.id, url: webhook.url, prefix: webhook.prefix, secret: webhook.secret, createdAt: webhook.createdAt.toISOString() }
    },

    list: async (userId: string) => ({ webhooks: (await repository.list(userId)).map(described) }),

    async remove (userId: string, id: string) {
      if (!await repository.remove(userId, id)) throw new NotFoundError('no such webhook')
    },

    async deliveries (userId: string, id: string) {
      const webhook = await repository.find(userId, id)
      if (!webhook) throw new NotFoundError('no such webhook')
      return { deliveries: (await repository.deliveries(webhook.id, SHOWN_DELIVERIES)).map(describedDelivery) }
    }
  }
}

export type Webhooks = ReturnType<typeof createWebhooks>
