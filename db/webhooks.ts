import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely'
import type { Database, WebhookDeliveriesTable, WebhooksTable } from './types.js'
import { runPrepared } from './dialect.js'

export interface Webhook {
  id: string
  userId: string
  url: string
  /** Only changes under it (a move counts for both of its paths); '' for all. */
  prefix: string
  secret: string
  createdAt: Date
  /** Its last retry failed: nothing more is queued for it. */
  disabled: boolean
  /** The API key it was made with: it stops when that key is revoked or expires. */
  apiKeyId: string | null
  expiresAt: Date | null
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed'

/** One change to tell one webhook of, and how telling it went. */
export interface Delivery {
  id: number
  webhookId: string
  op: string
  key: string
  from?: string
  size?: number
  etag?: string
  at: Date
  status: DeliveryStatus
  /** Attempts begun, the one running included. */
  attempts: number
  nextAttemptAt: Date
  lastError?: string
  finishedAt?: Date
}

/** A claimed delivery, with where it goes, the key that signs it, and whose it is; `lapsed` when
 *  the API key its webhook was made with is revoked or expired (it is not sent). */
export type ClaimedDelivery = Delivery & { url: string, secret: string, userId: string, lapsed: boolean }

const webhookOf = (row: Selectable<WebhooksTable>): Webhook => ({
  id: row.id, userId: row.user_id, url: row.url, prefix: row.prefix, secret: row.secret, createdAt: new Date(row.created_at), disabled: Number(row.disabled) === 1,
  apiKeyId: row.api_key_id, expiresAt: row.expires_at === null ? null : new Date(row.expires_at)
})

const deliveryOf = (row: Selectable<WebhookDeliveriesTable>): Delivery => ({
  id: Number(row.id),
  webhookId: row.webhook_id,
  op: row.op,
  key: row.key,
  ...row.from_key === null ? {} : { from: row.from_key },
  ...row.size === null ? {} : { size: Number(row.size) },
  ...row.etag === null ? {} : { etag: row.etag },
  at: new Date(row.at),
  status: row.status as DeliveryStatus,
  attempts: row.attempts,
  nextAttemptAt: new Date(row.next_attempt_at),
  ...row.last_error === null ? {} : { lastError: row.last_error },
  ...row.finished_at === null ? {} : { finishedAt: new Date(row.finished_at) }
})

/** `text` begins with the column's prefix. */
const underPrefix = (text: string) => sql<boolean>`substr(cast(${text} as text), 1, length(webhooks.prefix)) = webhooks.prefix`

/**
 * Queues `change` for each of its user's webhooks that want it, in the transaction that journals it:
 * a journaled change is queued, and a change that is not journaled is not. Resolves with how many.
 */
export async function queueDeliveries (trx: Kysely<Database>, change: { userId: string, op: string, key: string, from?: string, size?: number, etag?: string, at: Date }): Promise<number> {
  const { userId, op, key, from, size, etag, at } = change
  // Every write queues (a move's two paths are a shape of their own): built once, see runPrepared.
  const { affected } = await runPrepared(trx, `webhooks.queueDeliveries/${from === undefined ? 'put' : 'move'}`, (value) => {
    const wanted = from === undefined ? underPrefix(value('key')) : sql<boolean>`(${underPrefix(value('key'))} or ${underPrefix(value('from'))})`
    return sql`
      insert into webhook_deliveries (webhook_id, op, key, from_key, size, etag, at, status, attempts, next_attempt_at)
      select webhooks.id, cast(${value('op')} as text), cast(${value('key')} as text), cast(${value('from')} as text), cast(${value('size')} as bigint),
        cast(${value('etag')} as text), cast(${value('at')} as text), 'pending', 0, cast(${value('at')} as text)
      from webhooks where webhooks.user_id = ${value('userId')} and webhooks.disabled = 0 and ${wanted}`.compile(trx)
  }, { userId, op, key, from: from ?? null, size: size ?? null, etag: etag ?? null, at: at.toISOString() })
  return affected
}

export function createWebhookRepository (db: Kysely<Database>) {
  return {
    /** Adds `webhook` unless its user has `most` already; resolves with whether it was added. */
    async add (webhook: Omit<Webhook, 'disabled'>, most: number): Promise<boolean> {
      const { numAffectedRows } = await sql`
        insert into webhooks (id, user_id, url, prefix, secret, created_at, disabled, api_key_id, expires_at)
        select ${webhook.id}, ${webhook.userId}, ${webhook.url}, ${webhook.prefix}, ${webhook.secret}, ${webhook.createdAt.toISOString()}, 0,
          ${webhook.apiKeyId}, ${webhook.expiresAt?.toISOString() ?? null}
        where (select count(*) from webhooks where user_id = ${webhook.userId}) < ${most}`.execute(db)
      return Number(numAffectedRows ?? 0) === 1
    },

    async list (userId: string): Promise<Webhook[]> {
      return (await db.selectFrom('webhooks').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute()).map(webhookOf)
    },

    async find (userId: string, id: string): Promise<Webhook | undefined> {
      const row = await db.selectFrom('webhooks').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst()
      return row && webhookOf(row)
    },

    /** Removes a webhook and its queue; resolves with whether it was there. */
    async remove (userId: string, id: string): Promise<boolean> {
      return await db.transaction().execute(async (trx) => {
        const { numDeletedRows } = await trx.deleteFrom('webhooks').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst()
        if (Number(numDeletedRows) === 0) return false
        // Also without foreign keys (a host's SQLite may have them off).
        await trx.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute()
        return true
      })
    },

    /** A webhook's latest deliveries, newest first. */
    async deliveries (webhookId: string, limit: number): Promise<Delivery[]> {
      return (await db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('id', 'desc').limit(limit).execute()).map(deliveryOf)
    },

    /**
     * Takes up to `limit` deliveries that are due and that no instance holds, for this instance until
     * `until`, counting an attempt for each. Two instances never take the same one: the update checks
     * the claim again on the row it changes.
     */
    /**
     * Takes up to `limit` due deliveries, fairly between users: a user's deliveries are taken in
     * turns, at most `perUser` running at once on this instance counting `running`, so that one
     * user's backlog (a receiver that never answers) cannot take another's slots.
     */
    async claim (now: Date, until: Date, limit: number, perUser: number, running: ReadonlyMap<string, number>): Promise<ClaimedDelivery[]> {
      const at = now.toISOString()
      const free = (where: ExpressionBuilder<Database, 'webhook_deliveries'>) => where.or([where('claimed_until', 'is', null), where('claimed_until', '<', at)])
      const { rows: candidates } = await sql<{ id: number | string, user_id: string }>`
        select id, user_id from (
          select d.id, w.user_id, d.next_attempt_at,
            row_number() over (partition by w.user_id order by d.next_attempt_at, d.id) as turn
          from webhook_deliveries d join webhooks w on w.id = d.webhook_id
          where d.status = 'pending' and d.next_attempt_at <= ${at} and (d.claimed_until is null or d.claimed_until < ${at})
        ) due where turn <= ${perUser} order by turn, next_attempt_at, id limit ${limit * 2}`.execute(db)
      const taking = new Map(running)
      const picked: number[] = []
      for (const { id, user_id: userId } of candidates) {
        const held = taking.get(userId) ?? 0
        if (held >= perUser) continue
        taking.set(userId, held + 1)
        picked.push(Number(id))
        if (picked.length === limit) break
      }
      if (picked.length === 0) return []
      const claimed = await db.updateTable('webhook_deliveries')
        .set((eb) => ({ claimed_until: until.toISOString(), attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', picked).where('status', '=', 'pending').where(free)
        .returningAll().execute()
      if (claimed.length === 0) return []
      const webhooks = new Map((await db.selectFrom('webhooks').leftJoin('api_keys', 'api_keys.id', 'webhooks.api_key_id')
        .selectAll('webhooks').select(['api_keys.id as key_id', 'api_keys.revoked_at as key_revoked_at'])
        .where('webhooks.id', 'in', [...new Set(claimed.map((row) => row.webhook_id))]).execute()).map((row) => [row.id, row]))
      return claimed.flatMap((row) => {
        const webhook = webhooks.get(row.webhook_id)
        if (!webhook) return []
        const lapsed = webhook.api_key_id !== null && (webhook.key_id === null || webhook.key_revoked_at !== null || (webhook.expires_at !== null && webhook.expires_at <= at))
        return [{ ...deliveryOf(row), url: webhook.url, secret: webhook.secret, userId: webhook.user_id, lapsed }]
      })
    },

    async delivered (id: number, now: Date): Promise<void> {
      await db.updateTable('webhook_deliveries').set({ status: 'delivered', claimed_until: null, last_error: null, finished_at: now.toISOString() }).where('id', '=', id).execute()
    },

    /** The attempt failed; the next is at `next`. */
    async retry (id: number, next: Date, error: string): Promise<void> {
      await db.updateTable('webhook_deliveries').set({ claimed_until: null, next_attempt_at: next.toISOString(), last_error: error }).where('id', '=', id).execute()
    },

    /** An attempt that did not run (the instance is stopping): the delivery is free again at once, its attempt not counted. */
    async release (id: number): Promise<void> {
      await db.updateTable('webhook_deliveries').set((eb) => ({ claimed_until: null, attempts: eb('attempts', '-', 1) })).where('id', '=', id).where('status', '=', 'pending').execute()
    },

    /** The last retry failed: the delivery fails, its webhook is disabled, and what it still had queued fails with it. */
    async giveUp (delivery: Delivery, error: string, now: Date): Promise<void> {
      const finished_at = now.toISOString()
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('webhook_deliveries').set({ status: 'failed', claimed_until: null, last_error: error, finished_at }).where('id', '=', delivery.id).execute()
        await trx.updateTable('webhooks').set({ disabled: 1 }).where('id', '=', delivery.webhookId).execute()
        await trx.updateTable('webhook_deliveries').set({ status: 'failed', last_error: 'not sent: the webhook was disabled after a delivery\'s last retry failed', finished_at })
          .where('webhook_id', '=', delivery.webhookId).where('status', '=', 'pending').where('id', '!=', delivery.id).execute()
      })
    },

    /** Removes the deliveries that finished before `before`; resolves with how many. */
    async sweep (before: Date): Promise<number> {
      const { numDeletedRows } = await db.deleteFrom('webhook_deliveries').where('finished_at', '<', before.toISOString()).executeTakeFirst()
      return Number(numDeletedRows)
    }
  }
}

export type WebhookRepository = ReturnType<typeof createWebhookRepository>
