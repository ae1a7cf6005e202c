import { sql, type Kysely } from 'kysely'
import { createMemory, type FailureLimit, type FailureLimiterOptions } from '../limits.js'
import type { Database } from './types.js'

/**
 * A failure limit counted in the database, for all instances together (PostgreSQL): one upsert per
 * failure, one read before a costly check (a bcrypt compare, an STS call); an attempt that succeeds
 * from a cache asks nothing. What an instance has seen reach the limit it also remembers, so that it
 * refuses the rest of the window without asking again. `scope` keeps two limits' subjects apart.
 */
export function sharedFailureLimit (db: Kysely<Database>, scope: string, { max, windowMs, maxKeys = 100_000, now = Date.now }: FailureLimiterOptions): FailureLimit {
  const blockedUntil = createMemory<number>(maxKeys, now)
  const secondsUntil = (until: number) => Math.max(1, Math.ceil((until - now()) / 1000))
  const remember = (subject: string, failures: number, endsAt: string) => {
    const until = Date.parse(endsAt)
    if (failures >= max && until > now()) blockedUntil.set(subject, until, until)
  }
  const known = (subject: string) => {
    const until = blockedUntil.get(subject)
    return until === undefined ? 0 : secondsUntil(until)
  }
  return {
    known,

    async check (subject) {
      if (known(subject) > 0) return known(subject)
      const row = await db.selectFrom('auth_failures').select(['failures', 'window_ends_at'])
        .where('subject', '=', `${scope}:${subject}`).where('window_ends_at', '>', new Date(now()).toISOString()).executeTakeFirst()
      if (row) remember(subject, row.failures, row.window_ends_at)
      return known(subject)
    },

    async fail (subject) {
      const at = new Date(now()).toISOString()
      const endsAt = new Date(now() + windowMs).toISOString()
      // A window that has ended starts again at one.
      const { rows: [row] } = await sql<{ failures: number, window_ends_at: string }>`
        insert into auth_failures (subject, failures, window_ends_at) values (${`${scope}:${subject}`}, 1, ${endsAt})
        on conflict (subject) do update set
          failures = case when auth_failures.window_ends_at <= ${at} then 1 else auth_failures.failures + 1 end,
          window_ends_at = case when auth_failures.window_ends_at <= ${at} then ${endsAt} else auth_failures.window_ends_at end
        returning failures, window_ends_at`.execute(db)
      remember(subject, row.failures, row.window_ends_at)
      return row.failures === max
    }
  }
}

/** Forgets the windows that have ended; resolves with how many. */
export async function forgetEndedFailures (db: Kysely<Database>, now = new Date()): Promise<number> {
  const { numDeletedRows } = await db.deleteFrom('auth_failures').where('window_ends_at', '<=', now.toISOString()).executeTakeFirst()
  return Number(numDeletedRows)
}
