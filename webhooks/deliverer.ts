import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import type { FastifyBaseLogger } from 'fastify'
import type { ClaimedDelivery, WebhookRepository } from '../db/webhooks.js'
import { deadline, INPUT_LIMITS } from '../limits.js'
import { checkReachable, guardedLookup, hostOf, RefusedAddressError } from './addresses.js'
import { signature } from './signature.js'

/** After a failed attempt, the waits before the next ones (Standard Webhooks'); after the last, the webhook is disabled. */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]
// A receiver has this long to answer.
export const DELIVERY_TIMEOUT_MS = 10_000
// A claim outlasts its attempt by this much: time to save the outcome before another instance may take it.
const CLAIM_MARGIN_MS = 5_000
// The share of an instance's delivery slots one user's webhooks may hold at once.
const USER_SHARE = 1 / 4

/** A delivery's `webhook-id`: unique across databases (its webhook's random id), the same on every retry. */
export const messageIdOf = (webhookId: string, deliveryId: number) => `msg_${webhookId.replace(/^wh_/, '')}_${deliveryId}`

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed'

export interface DelivererOptions {
  repository: WebhookRepository
  /** Deliver to loopback and private addresses too (a receiver on the same host or network). */
  allowPrivate: boolean
  retryDelaysMs?: number[]
  timeoutMs?: number
  /** How often the queue is looked at for what is due (and what other instances queued). */
  pollMs?: number
  /** Attempts running at once on this instance. */
  concurrency?: number
  log: FastifyBaseLogger
  onOutcome?: (outcome: DeliveryOutcome, seconds: number) => void
}

const EVENT_TYPES: Record<string, string> = { put: 'file.put', delete: 'file.delete', move: 'file.move', folder: 'folder.create', 'folder-delete': 'folder.delete', share: 'share.mount', unshare: 'share.unmount' }

/** The event type a delivery's POST says (`type`) of a journal op. */
export const eventTypeOf = (op: string) => EVENT_TYPES[op] ?? `file.${op}`

/** The body Standard Webhooks describes: what happened, when, and to what. */
export function payloadOf ({ op, key, from, size, etag, at }: ClaimedDelivery) {
  return {
    type: eventTypeOf(op),
    timestamp: at.toISOString(),
    data: { key, ...from === undefined ? {} : { from }, ...size === undefined ? {} : { size }, ...etag === undefined ? {} : { etag } }
  }
}

/** Why an attempt failed, in words for the webhook's owner: never the URL, which may hold a token. */
function reasonOf (error: unknown, timeoutMs: number): string {
  if (error instanceof RefusedAddressError) return `refused: ${error.message}`
  const { name, code } = error as { name?: string, code?: string }
  if (name === 'TimeoutError' || (error as { cause?: { name?: string } }).cause?.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`
  return `could not reach the receiver (${code ?? name ?? 'error'})`
}

/**
 * Delivers the queued webhook deliveries that are due: each taken by one instance at a time (its
 * claim lapses if the instance dies, and another takes it), signed, POSTed without following
 * redirects, cut at `timeoutMs`, retried after RETRY_DELAYS_MS, the webhook disabled after the last.
 */
export function createDeliverer ({
  repository, allowPrivate, retryDelaysMs = RETRY_DELAYS_MS, timeoutMs = DELIVERY_TIMEOUT_MS, pollMs = 1000, concurrency = 16, log, onOutcome
}: DelivererOptions) {
  const closing = new AbortController()
  const running = new Set<Promise<void>>()
  const runningByUser = new Map<string, number>()
  const perUser = Math.max(1, Math.ceil(concurrency * USER_SHARE))
  let claiming: Promise<void> | undefined
  let again = false
  // Sockets are bounded as the attempts are: one per slot, kept a little while for the next delivery.
  const agentOptions = { keepAlive: true, maxSockets: concurrency, maxTotalSockets: concurrency, maxFreeSockets: concurrency, timeout: timeoutMs }
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) }
  const lookup = guardedLookup(allowPrivate)

  /**
   * POSTs `body`; resolves with the status once the answer has ended, or rejects when it has not
   * within the deadline. The answer's body is read and dropped up to INPUT_LIMITS.webhookAnswerBytes,
   * then its socket is closed: a receiver that trickles its answer holds nothing past the deadline.
   */
  async function post (url: URL, body: string, headers: Record<string, string>): Promise<number> {
    if (isIP(hostOf(url)) !== 0) await checkReachable(url, allowPrivate)
    const client = url.protocol === 'https:' ? https : http
    const cut = deadline(timeoutMs, [closing.signal])
    try {
      return await new Promise((resolve, reject) => {
        const request = client.request(url, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'Stowage-Webhooks' },
          agent: agents[url.protocol as keyof typeof agents],
          lookup,
          signal: cut.signal
        }, (response) => {
          const status = response.statusCode ?? 0
          let read = 0
          response.on('data', (chunk: Buffer) => {
            read += chunk.length
            if (read > INPUT_LIMITS.webhookAnswerBytes) {
              response.destroy()
              resolve(status)
            }
          })
          response.on('end', () => resolve(status))
          // Cut at the deadline (or the answer otherwise ended early): the deadline is the reason.
          const cutOff = (error?: Error) => reject(cut.signal.aborted ? cut.signal.reason : error ?? new Error('the answer was cut off'))
          response.on('error', cutOff)
          response.on('close', () => cutOff())
        })
        request.on('error', reject)
        request.end(body)
      })
    } finally {
      cut.done()
    }
  }

  /** Resolves with why the attempt failed, or undefined when it was delivered. */
  async function attempt (delivery: ClaimedDelivery): Promise<string | undefined> {
    const id = messageIdOf(delivery.webhookId, delivery.id)
    const body = JSON.stringify(payloadOf(delivery))
    const timestamp = Math.floor(Date.now() / 1000)
    try {
      const status = await post(new URL(delivery.url), body, {
        'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature(delivery.secret, id, timestamp, body)
      })
      if (status >= 200 && status < 300) return undefined
      return `the receiver answered ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`
    } catch (error) {
      return reasonOf(error, timeoutMs)
    }
  }

  async function deliver (delivery: ClaimedDelivery) {
    const started = performance.now()
    try {
      if (delivery.lapsed) {
        await repository.giveUp(delivery, 'not sent: the API key the webhook was made with was revoked or has expired', new Date())
        return
      }
      const error = await attempt(delivery)
      let outcome: DeliveryOutcome
      if (error === undefined) {
        await repository.delivered(delivery.id, new Date())
        outcome = 'delivered'
      } else if (closing.signal.aborted) {
        await repository.release(delivery.id)
        return
      } else if (delivery.attempts > retryDelaysMs.length) {
        await repository.giveUp(delivery, error, new Date())
        outcome = 'failed'
        log.warn({ webhookId: delivery.webhookId, deliveryId: delivery.id, error }, 'webhook disabled: a delivery failed its last retry')
      } else {
        await repository.retry(delivery.id, new Date(Date.now() + retryDelaysMs[delivery.attempts - 1]), error)
        outcome = 'retry'
        log.debug({ webhookId: delivery.webhookId, deliveryId: delivery.id, error, attempts: delivery.attempts }, 'webhook delivery failed; retried later')
      }
      onOutcome?.(outcome, (performance.now() - started) / 1000)
    } catch (error) {
      log.warn({ err: error, deliveryId: delivery.id }, 'a webhook delivery\'s outcome could not be saved; it is tried again when its claim lapses')
    }
  }

  /** Takes what is due, as much as there is room for; called on a timer, on a queued change and when an attempt ends. */
  function drain (): void {
    if (closing.signal.aborted) return
    if (claiming) {
      again = true
      return
    }
    claiming = (async () => {
      do {
        again = false
        const room = concurrency - running.size
        if (room <= 0) return
        const now = Date.now()
        const taken = await repository.claim(new Date(now), new Date(now + timeoutMs + CLAIM_MARGIN_MS), room, perUser, runningByUser)
        for (const delivery of taken) {
          runningByUser.set(delivery.userId, (runningByUser.get(delivery.userId) ?? 0) + 1)
          const task = deliver(delivery).finally(() => {
            running.delete(task)
            const left = runningByUser.get(delivery.userId)! - 1
            if (left === 0) runningByUser.delete(delivery.userId)
            else runningByUser.set(delivery.userId, left)
            drain()
          })
          running.add(task)
        }
        if (taken.length === room) again = true
      } while (again && !closing.signal.aborted)
    })().catch((error) => {
      log.warn({ err: error }, 'webhook deliveries could not be taken from the queue; trying again shortly')
    }).finally(() => { claiming = undefined })
  }

  let timer: NodeJS.Timeout | undefined
  return {
    start () {
      timer ??= setInterval(drain, pollMs).unref()
      drain()
    },
    /** Something was queued: look now rather than at the next tick. */
    drain,
    /** Stops taking deliveries; attempts running are cut and left to be taken again at once. */
    async close () {
      clearInterval(timer)
      closing.abort()
      await claiming
      await Promise.allSettled([...running])
      for (const agent of Object.values(agents)) agent.destroy()
    },
    stats: () => ({ running: running.size })
  }
}

export type Deliverer = ReturnType<typeof createDeliverer>
