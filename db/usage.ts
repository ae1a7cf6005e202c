import { sql, type Kysely, type Transaction } from 'kysely'
import { isPostgres, statementOf } from './dialect.js'
import { inTransaction as inRecording } from './recording.js'
import type { Database } from './types.js'

/** Whose bytes: a user, whose organization's quota applies unless the user has one. */
export interface Owner { userId: string, orgId: string | null }

/** What an event adds to a user's usage (negative: takes away). */
export interface UsageChange { fileBytes?: number, fileCount?: number, trashBytes?: number, versionBytes?: number, uploadBytes?: number }

export interface Usage { fileBytes: number, fileCount: number, trashBytes: number, versionBytes: number, uploadBytes: number, reservedBytes: number }

const NONE: Usage = { fileBytes: 0, fileCount: 0, trashBytes: 0, versionBytes: 0, uploadBytes: 0, reservedBytes: 0 }
// No quota: larger than any usage.
const UNLIMITED = sql<number>`9223372036854775807`

export const userSubject = (userId: string) => `user:${userId}`
export const orgSubject = (orgId: string) => `org:${orgId}`

/**
 * Usage per user, and the quotas that bound it. Room is claimed by one conditional UPDATE of the
 * user's row, so that writers on any number of instances never take it past the quota together;
 * it is given back, or settled into what was really stored, when the write ends.
 */
export function createUsageRepository (db: Kysely<Database>, defaultQuota: number | null) {
  // The user's own quota, else the organization's, else QUOTA_BYTES; null when none applies.
  const quotaOf = ({ userId, orgId }: Owner) => sql<number | string | null>`coalesce(
    (select bytes from quotas where subject = ${userSubject(userId)}),
    (select bytes from quotas where subject = ${orgId === null ? null : orgSubject(orgId)}),
    cast(${defaultQuota} as bigint))`
  // quotaOf's parameters, for the statements compiled with it.
  const quotaParameters = ({ userId, orgId }: Owner) => [userSubject(userId), orgId === null ? null : orgSubject(orgId), defaultQuota]

  // Every write runs these: compiled once (see statementOf), their parameters in the order written.
  const changeRow = statementOf(db, sql`insert into storage_usage (user_id, file_bytes, file_count, trash_bytes, version_bytes, upload_bytes, reserved_bytes)
    values (${''}, ${0}, ${0}, ${0}, ${0}, ${0}, ${0})
    on conflict (user_id) do update set file_bytes = storage_usage.file_bytes + excluded.file_bytes,
      file_count = storage_usage.file_count + excluded.file_count, trash_bytes = storage_usage.trash_bytes + excluded.trash_bytes,
      version_bytes = storage_usage.version_bytes + excluded.version_bytes, upload_bytes = storage_usage.upload_bytes + excluded.upload_bytes,
      reserved_bytes = storage_usage.reserved_bytes + excluded.reserved_bytes`.compile(db).sql)
  const claimOf = (column: 'reserved_bytes' | 'upload_bytes') => statementOf(db, sql`update storage_usage set ${sql.ref(column)} = ${sql.ref(column)} + ${0}
    where user_id = ${''}
    and file_bytes + trash_bytes + version_bytes + upload_bytes + reserved_bytes + ${0} <= coalesce(${quotaOf({ userId: '', orgId: '' })}, ${UNLIMITED})`.compile(db).sql)
  const claims = { reserved_bytes: claimOf('reserved_bytes'), upload_bytes: claimOf('upload_bytes') }
  const addReservation = statementOf(db, sql`insert into quota_reservations (id, user_id, bytes, expires_at) values (${''}, ${''}, ${0}, ${''})`.compile(db).sql)
  const takeReservation = statementOf<{ bytes: number | string }>(db, sql`delete from quota_reservations where id = ${''} returning bytes`.compile(db).sql)

  async function change (trx: Kysely<Database>, userId: string, { fileBytes = 0, fileCount = 0, trashBytes = 0, versionBytes = 0, uploadBytes = 0 }: UsageChange, released = 0) {
    await changeRow(trx, [userId, fileBytes, fileCount, trashBytes, versionBytes, uploadBytes, -released])
  }

  /** Adds `bytes` to `column` unless the usage would pass the quota; false when it would. */
  async function claim (trx: Kysely<Database>, owner: Owner, column: 'reserved_bytes' | 'upload_bytes', bytes: number): Promise<boolean> {
    const attempt = async () => (await claims[column](trx, [bytes, owner.userId, bytes, ...quotaParameters(owner)])).affected > 0
    if (await attempt()) return true
    // A user's first write: the row is made (or another writer made it meanwhile), then asked again.
    await trx.insertInto('storage_usage').values({ user_id: owner.userId, ...rowOf(NONE) })
      .onConflict((conflict) => conflict.column('user_id').doNothing()).execute()
    return await attempt()
  }

  /** The quota that applies to `owner`; null when none does. */
  // Asked before every write when QUOTA_BYTES is unset: compiled once.
  const quotaRow = statementOf<{ bytes: number | string | null }>(db, sql`select ${quotaOf({ userId: '', orgId: '' })} as bytes`.compile(db).sql)
  async function quota (owner: Owner, executor: Kysely<Database> = db): Promise<number | null> {
    const { rows: [found] } = await quotaRow(executor, quotaParameters(owner))
    return found?.bytes === null || found?.bytes === undefined ? null : Number(found.bytes)
  }

  const inTransaction = <T>(work: (trx: Transaction<Database>) => Promise<T>) => db.transaction().execute(work)

  return {
    /** Holds `bytes` for a write in flight, as reservation `id`, until `expiresAt` unless renewed. */
    async reserve (owner: Owner, id: string, bytes: number, expiresAt: Date): Promise<boolean> {
      return inTransaction(async (trx) => {
        if (!(await claim(trx, owner, 'reserved_bytes', bytes))) return false
        await addReservation(trx, [id, owner.userId, bytes, expiresAt.toISOString()])
        return true
      })
    },

    /** Adds `bytes` to reservation `id`, within the quota. */
    async grow (owner: Owner, id: string, bytes: number): Promise<boolean> {
      return inTransaction(async (trx) => {
        if (!(await claim(trx, owner, 'reserved_bytes', bytes))) return false
        await trx.updateTable('quota_reservations').set({ bytes: sql<number>`bytes + ${bytes}` }).where('id', '=', id).execute()
        return true
      })
    },

    async renew (id: string, expiresAt: Date): Promise<void> {
      await db.updateTable('quota_reservations').set({ expires_at: expiresAt.toISOString() }).where('id', '=', id).execute()
    },

    /** Ends reservation `id` (if it has not expired), applying what its write changed; in `trx` when given. */
    async settle (userId: string, id: string, changed: UsageChange = {}, trx?: Kysely<Database>): Promise<void> {
      await inRecording(db, trx, async (trx) => {
        const { rows: [held] } = await takeReservation(trx, [id])
        await change(trx, userId, changed, Number(held?.bytes ?? 0))
      })
    },

    /** The declared length of a resumable upload, held until it is published or dropped. */
    claimUpload: (owner: Owner, bytes: number) => claim(db, owner, 'upload_bytes', bytes),

    /** An event that needs no room (a delete, a move, the trash); in `trx` when given. */
    change: (userId: string, changed: UsageChange, trx: Kysely<Database> = db) => change(trx, userId, changed),

    /** Reservations of writes whose instance died, given back; resolves with how many. */
    async expire (now = new Date()): Promise<number> {
      const expired = await db.selectFrom('quota_reservations').select(['id', 'user_id']).where('expires_at', '<=', now.toISOString()).limit(100).execute()
      for (const { id, user_id: userId } of expired) await this.settle(userId, id)
      return expired.length
    },

    quota,
    /** Whether a quota bounds everyone (QUOTA_BYTES), so that no write need ask. */
    alwaysBounded: defaultQuota !== null,

    /**
     * The quota that bounds a write of `owner`, asked before its body is read. On SQLite in a
     * transaction that writes nothing: a database another process holds refuses the write there
     * (503), before anything is stored, as a reservation's transaction would. (PostgreSQL's key lock
     * opens the write's transaction before it publishes.)
     */
    quotaForWrite: (owner: Owner) => isPostgres(db) ? quota(owner) : inTransaction(async (trx) => await quota(owner, trx)),

    async read (owner: Owner): Promise<{ usage: Usage, quotaBytes: number | null }> {
      const row = await db.selectFrom('storage_usage').selectAll().where('user_id', '=', owner.userId).executeTakeFirst()
      return { usage: row ? usageOf(row) : NONE, quotaBytes: await quota(owner) }
    },

    /** Sets a user's counts to what a recount found; reservations in flight are kept. */
    async replace (userId: string, counted: Omit<Usage, 'reservedBytes'>): Promise<void> {
      const { reserved_bytes: _kept, ...values } = rowOf({ ...counted, reservedBytes: 0 })
      await db.insertInto('storage_usage').values({ user_id: userId, ...values, reserved_bytes: 0 })
        .onConflict((conflict) => conflict.column('user_id').doUpdateSet(values)).execute()
    },

    /** Every user with a usage row. */
    async users (): Promise<string[]> {
      return (await db.selectFrom('storage_usage').select('user_id').execute()).map((row) => row.user_id)
    },

    /** What the database itself knows of a user's usage: the trash's items, the versions and the unfinished uploads. */
    async recordedElsewhere (userId: string): Promise<{ trashBytes: number, versionBytes: number, uploadBytes: number }> {
      const trash = await db.selectFrom('trash').select((eb) => eb.fn.sum<number | string | null>('size').as('bytes')).where('user_id', '=', userId).executeTakeFirst()
      const versions = await db.selectFrom('versions').select((eb) => eb.fn.sum<number | string | null>('size').as('bytes')).where('user_id', '=', userId).executeTakeFirst()
      const uploads = await db.selectFrom('uploads').select((eb) => eb.fn.sum<number | string | null>('size').as('bytes'))
        .where('user_id', '=', userId).where('etag', 'is', null).executeTakeFirst()
      return { trashBytes: Number(trash?.bytes ?? 0), versionBytes: Number(versions?.bytes ?? 0), uploadBytes: Number(uploads?.bytes ?? 0) }
    },

    /** Every user's row, and the quotas set. */
    async all () {
      const users = await db.selectFrom('storage_usage').selectAll().orderBy('user_id').execute()
      const quotas = await db.selectFrom('quotas').selectAll().orderBy('subject').execute()
      return {
        users: users.map((row) => ({ userId: row.user_id, ...usageOf(row) })),
        quotas: quotas.map((row) => ({ subject: row.subject, bytes: Number(row.bytes) }))
      }
    },

    /** `bytes` null removes the subject's quota. */
    async setQuota (subject: string, bytes: number | null): Promise<void> {
      if (bytes === null) {
        await db.deleteFrom('quotas').where('subject', '=', subject).execute()
        return
      }
      await db.insertInto('quotas').values({ subject, bytes }).onConflict((conflict) => conflict.column('subject').doUpdateSet({ bytes })).execute()
    }
  }
}

export type UsageRepository = ReturnType<typeof createUsageRepository>

function rowOf ({ fileBytes, fileCount, trashBytes, versionBytes, uploadBytes, reservedBytes }: Usage) {
  return { file_bytes: fileBytes, file_count: fileCount, trash_bytes: trashBytes, version_bytes: versionBytes, upload_bytes: uploadBytes, reserved_bytes: reservedBytes }
}

function usageOf (row: Record<'file_bytes' | 'file_count' | 'trash_bytes' | 'version_bytes' | 'upload_bytes' | 'reserved_bytes', number | string>): Usage {
  return {
    fileBytes: Number(row.file_bytes),
    fileCount: Number(row.file_count),
    trashBytes: Number(row.trash_bytes),
    versionBytes: Number(row.version_bytes),
    uploadBytes: Number(row.upload_bytes),
    reservedBytes: Number(row.reserved_bytes)
  }
}
