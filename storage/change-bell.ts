import pg from 'pg'

/**
 * A user's journal grew at `paths` (a move's two; undefined: anywhere): whoever waits on this
 * instance for that user's changes under a prefix of one of them is woken, and nobody else, so
 * that an idle wait costs nothing when changes that cannot concern it are made.
 */
export interface ChangeBell {
  ring (userId: string, paths?: string[]): void
  /** Resolves true when `userId` is rung under `prefix`, false when `ms` pass or `signal` aborts
   *  first. Holds no database connection while it waits. */
  wait (userId: string, ms: number, signal?: AbortSignal, prefix?: string): Promise<boolean>
  close (): Promise<void>
}

interface Waiter { prefix: string, wake (): void }

/** The waiters of this process, per user. */
export function createLocalBell (): ChangeBell & { ringAll (): void } {
  const waiters = new Map<string, Set<Waiter>>()
  return {
    ring (userId, paths) {
      for (const waiter of waiters.get(userId) ?? []) {
        if (paths === undefined || paths.some((path) => path.startsWith(waiter.prefix))) waiter.wake()
      }
    },
    wait (userId, ms, signal, prefix = '') {
      return new Promise<boolean>((resolve) => {
        const set = waiters.get(userId) ?? new Set()
        waiters.set(userId, set)
        const done = (rung: boolean) => {
          clearTimeout(timer)
          signal?.removeEventListener('abort', gone)
          set.delete(waiter)
          if (set.size === 0 && waiters.get(userId) === set) waiters.delete(userId)
          resolve(rung)
        }
        const waiter: Waiter = { prefix, wake: () => done(true) }
        const gone = () => done(false)
        const timer = setTimeout(gone, ms)
        set.add(waiter)
        signal?.addEventListener('abort', gone, { once: true })
        if (signal?.aborted) gone()
      })
    },
    /** Everyone: they look at their journal again (a notification may have been missed). */
    ringAll () {
      for (const set of waiters.values()) for (const waiter of set) waiter.wake()
    },
    close: async () => {}
  }
}

function notificationOf (payload: string): { userId: string, paths?: string[] } | undefined {
  try {
    const { u, p } = JSON.parse(payload) as { u?: unknown, p?: unknown }
    if (typeof u !== 'string') return undefined
    return { userId: u, paths: Array.isArray(p) && p.every((path) => typeof path === 'string') ? p : undefined }
  } catch {
    // An instance of the version before paths were told: its payload is the user alone.
    return { userId: payload }
  }
}

export interface ListeningBellOptions {
  url: string
  channel: string
  log?: { warn (details: object, message: string): void }
  /** Before listening again after the connection is lost. */
  retryMs?: number
}

/**
 * The local bell, also rung by PostgreSQL's NOTIFY on `channel` from any instance: one connection of
 * its own per instance (LISTEN holds it), outside the pool, opened again when it drops.
 */
export function createListeningBell ({ url, channel, log, retryMs = 1000 }: ListeningBellOptions): ChangeBell {
  const local = createLocalBell()
  let client: pg.Client | undefined
  let closed = false
  let retry: NodeJS.Timeout | undefined

  async function listen () {
    const connection = new pg.Client({ connectionString: url, keepAlive: true })
    connection.on('notification', (message) => {
      const rung = message.payload ? notificationOf(message.payload) : undefined
      if (rung) local.ring(rung.userId, rung.paths)
    })
    connection.on('error', (error) => {
      log?.warn({ err: error }, 'the change journal\'s LISTEN connection failed; listening again')
      void connection.end().catch(() => {})
      if (client === connection) again()
    })
    try {
      await connection.connect()
      await connection.query(`LISTEN ${channel}`)
      if (closed) {
        await connection.end()
        return
      }
      client = connection
      // What was notified while no connection listened is found by looking again.
      local.ringAll()
    } catch (error) {
      log?.warn({ err: error }, 'the change journal could not LISTEN; trying again')
      void connection.end().catch(() => {})
      again()
    }
  }
  function again () {
    client = undefined
    if (!closed) retry = setTimeout(() => { void listen() }, retryMs).unref()
  }
  void listen()

  return {
    ring: local.ring,
    wait: local.wait,
    async close () {
      closed = true
      clearTimeout(retry)
      await client?.end().catch(() => {})
    }
  }
}
