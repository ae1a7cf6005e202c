// Small in-process limits shared by the services: counts of failures per key in a fixed window,
// and a bound on how many of one costly operation run at once; and the bounds of what a request may
// send, each checked by the one function that reads that input.
import { BusyError } from './errors.js'

/** What one request may send, read where it is read (docs/security.md says why each is what it is). */
export const INPUT_LIMITS = {
  /** An S3 XML body (a Delete of 1,000 keys of 1,024 bytes, a CompleteMultipartUpload of 10,000 parts). */
  s3XmlBytes: 2 * 1024 * 1024,
  /** Elements of an S3 XML body: 10,000 parts of up to 7 elements each, and the document's own. */
  s3XmlElements: 70_016,
  /** Keys of one DeleteObjects, and parts of one CompleteMultipartUpload: S3's own limits. */
  s3DeleteKeys: 1000,
  s3CompleteParts: 10_000,
  /** A chunk header or a trailer line of an aws-chunked body. */
  awsChunkLineBytes: 8192,
  /** The trailer of an aws-chunked body: S3 takes a checksum and a signature, a handful at most. */
  awsTrailerLines: 8,
  /** A WebDAV request body (PROPFIND, PROPPATCH, LOCK), and its elements. */
  davXmlBytes: 1024 * 1024,
  davXmlElements: 10_000,
  /** Properties one PROPFIND may name, or one PROPPATCH set and remove. */
  davProperties: 256,
  /** What a lock keeps of the owner a client names (a name, a URL). */
  davLockOwnerBytes: 4096,
  /** How deep any XML body may nest. */
  xmlDepth: 32,
  /** What is read of a webhook receiver's answer before its socket is closed. */
  webhookAnswerBytes: 64 * 1024,
  /** An image file read into memory to be transformed (a 100-megapixel JPEG is about 30 MiB). */
  imageSourceBytes: 64 * 1024 * 1024,
  /** The width and height a transform may ask for. */
  imageSide: 2500
} as const

export interface FailureLimiterOptions {
  /** Failures allowed per key in one window; the next attempt is refused until the window ends. */
  max: number
  windowMs: number
  /** Keys remembered at most; the oldest window is forgotten first. */
  maxKeys?: number
  now?: () => number
}

/**
 * Failures only, which @fastify/rate-limit cannot count (it counts every request): a caller whose
 * credentials work is never slowed, one that keeps failing is refused before any costly check.
 */
export function createFailureLimiter ({ max, windowMs, maxKeys = 100_000, now = Date.now }: FailureLimiterOptions) {
  const windows = new Map<string, { count: number, endsAt: number }>()
  return {
    /** Seconds until `key` may try again; 0 when it may now. */
    retryAfterSeconds (key: string): number {
      const window = windows.get(key)
      if (!window || window.endsAt <= now() || window.count < max) return 0
      return Math.ceil((window.endsAt - now()) / 1000)
    },

    /** Counts a failure; true when it is the one that reaches the limit. */
    fail (key: string): boolean {
      let window = windows.get(key)
      if (!window || window.endsAt <= now()) {
        windows.delete(key)
        window = { count: 0, endsAt: now() + windowMs }
        windows.set(key, window)
        if (windows.size > maxKeys) windows.delete(windows.keys().next().value as string)
      }
      return ++window.count === max
    }
  }
}

/**
 * A failure limit as the authentication chain asks it: `known` from this process's memory alone
 * (no I/O, on every attempt), `check` from every instance's count (before a costly check only),
 * `fail` counting one more (resolving true when it is the one that reaches the limit).
 */
export interface FailureLimit {
  known (subject: string): number
  check (subject: string): Promise<number>
  fail (subject: string): Promise<boolean>
}

/** A FailureLimit of this process only (one instance, as on SQLite). */
export function inProcessFailureLimit (options: FailureLimiterOptions): FailureLimit {
  const limiter = createFailureLimiter(options)
  return {
    known: (subject) => limiter.retryAfterSeconds(subject),
    check: async (subject) => limiter.retryAfterSeconds(subject),
    fail: async (subject) => limiter.fail(subject)
  }
}

/** Runs `work` on the items `together` at a time, each group once the one before has ended. */
export async function inGroups<T> (items: readonly T[], together: number, work: (item: T) => Promise<unknown>) {
  for (let at = 0; at < items.length; at += together) await Promise.all(items.slice(at, at + together).map(work))
}

/** Runs at most `limit` tasks at once; the rest wait their turn in order. `stats()` says how many of each. */
export function createSemaphore (limit: number) {
  let running = 0
  const waiting: Array<() => void> = []
  const run = async function run<T> (task: () => Promise<T>): Promise<T> {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve))
    else running++
    try {
      return await task()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else running--
    }
  }
  return Object.assign(run, { stats: () => ({ running, queued: waiting.length }) })
}

/** A bounded map that forgets its oldest entry first; entries may carry an expiry. */
export function createMemory<V> (maxEntries: number, now = Date.now) {
  const entries = new Map<string, { value: V, until: number }>()
  return {
    get (key: string): V | undefined {
      const entry = entries.get(key)
      if (!entry) return undefined
      if (entry.until <= now()) { entries.delete(key); return undefined }
      return entry.value
    },
    set (key: string, value: V, until = Infinity) {
      entries.delete(key)
      entries.set(key, { value, until })
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string)
    }
  }
}

/**
 * Upload bytes held across the process, up to `limit`: take() refuses what would go past it with
 * 503 (BusyError), which a client may retry shortly.
 */
export function createByteBudget (limit: number) {
  let used = 0
  let refused = 0
  const budget = {
    take (bytes: number) {
      if (used + bytes > limit) {
        refused++
        throw new BusyError('too many uploads in progress, try again shortly')
      }
      used += bytes
    },
    give (bytes: number) { used -= bytes },
    stats: () => ({ held: used, limit, refused })
  }
  return {
    ...budget,
    /**
     * Holds what `body` will: its declared length, up to `most` (what one write buffers), at once;
     * a body of unknown length takes more as it arrives. `release` gives it all back.
     */
    holdFor (body: AsyncIterable<Buffer>, declared: number | undefined, most: number) {
      let held = 0
      const hold = (bytes: number) => {
        const more = Math.min(bytes, most) - held
        if (more <= 0) return
        budget.take(more)
        held += more
      }
      if (declared !== undefined) hold(declared)
      return {
        body: declared !== undefined
          ? body
          : (async function * () {
              let received = 0
              for await (const chunk of body) {
                received += chunk.length
                hold(received)
                yield chunk
              }
            })(),
        release () {
          budget.give(held)
          held = 0
        }
      }
    }
  }
}

export type ByteBudget = ReturnType<typeof createByteBudget>

/**
 * A signal that aborts when `ms` pass (a TimeoutError) or any of `signals` aborts, held by a timer of
 * its own: `AbortSignal.any([AbortSignal.timeout(ms)])` may be garbage collected before it fires
 * (nodejs/node#57736), and a deadline that never comes is a hang. Call `done()` when the work ends.
 */
export function deadline (ms: number, signals: AbortSignal[] = []) {
  const controller = new AbortController()
  const abort = (reason: unknown) => { if (!controller.signal.aborted) controller.abort(reason) }
  const timer = setTimeout(() => abort(new DOMException(`no answer within ${ms / 1000} s`, 'TimeoutError')), ms)
  const follows = signals.map((signal) => {
    const follow = () => abort(signal.reason)
    if (signal.aborted) follow()
    else signal.addEventListener('abort', follow, { once: true })
    return () => signal.removeEventListener('abort', follow)
  })
  return {
    signal: controller.signal,
    done () {
      clearTimeout(timer)
      for (const unfollow of follows) unfollow()
    }
  }
}

/**
 * At most `running` tasks at once, and `waiting` more in line: past that a task is refused at once
 * (503, BusyError saying `what`), so that a flood neither runs together nor piles up.
 */
export function createSlots (running: number, waiting: number, what: string) {
  let busy = 0
  const line: Array<() => void> = []
  const release = () => {
    const next = line.shift()
    if (next) next()
    else busy--
  }
  return {
    async run<T> (task: () => Promise<T>): Promise<T> {
      if (busy >= running) {
        if (line.length >= waiting) throw new BusyError(`too many ${what} in progress, try again shortly`)
        await new Promise<void>((resolve) => line.push(resolve))
      } else busy++
      try {
        return await task()
      } finally {
        release()
      }
    }
  }
}
