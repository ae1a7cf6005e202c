import pg from 'pg'

/** A user's journal grew: whoever waits for that user's changes on this instance is woken. */
export interface ChangeBell {
  ring (userId: string): void
  /** Resolves true when `userId` is rung, false when `ms` pass or `signal` aborts first. Holds no
   *  database connection while it waits. */
  wait (userId: string, ms: number, signal?: AbortSignal): Promise<boolean>
  close (): Promise<void>
}

/** The waiters of this process, per user. */
export function createLocalBell (): ChangeBell & { ringAll (): void } {
  const waiters = new Map<string, Set<() => void>>()
  return {
    ring (userId) {
      for (const wake of waiters.get(userId) ?? []) wake()
    },
    wait (userId, ms, signal) {
      return new Promise<boolean>((resolve) => {
        const set = waiters.get(userId) ?? new Set()
        waiters.set(userId, set)
        const done = (rung: boolean) => {
          clearTimeout(timer)
          signal?.removeEventListener('abort', gone)
          set.delete(wake)
          if (set.size === 0 && waiters.get(userId) === set) waiters.delete(userId)
          resolve(rung)
        }
        const wake = () => done(true)
        const gone = () => done(false)
        const timer = setTimeout(gone, ms)
        set.add(wake)
        signal?.addEventListener('abort', gone, { once: true })
        if (signal?.aborted) gone()
      })
    },
    /** Everyone: they look at their journal again (a notification may have been missed). */
    ringAll () {
      for (const set of waiters.values()) for (const wake of set) wake()
    },
    close: async () => {}
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
    connection.on('notification', (message) => { if (message.payload) local.ring(message.payload) })
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
