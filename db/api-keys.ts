import { CompiledQuery, type Insertable, type Kysely } from 'kysely'
import type { ApiKeyRow, ApiKeysTable, Database } from './types.js'

export function createApiKeyRepository (db: Kysely<Database>) {
  // Compiled once: building the query on every authenticated request cost as much as running it.
  const findByIdSql = db.selectFrom('api_keys').selectAll().where('id', '=', '').compile().sql

  return {
    async insert (row: Insertable<ApiKeysTable>) {
      await db.insertInto('api_keys').values(row).execute()
    },

    /** One lookup by primary key: the only query on the authentication path. */
    async findById (id: string): Promise<ApiKeyRow | undefined> {
      const { rows } = await db.executeQuery<ApiKeyRow>(CompiledQuery.raw(findByIdSql, [id]))
      return rows[0]
    },

    async listActive (userId: string, now: string) {
      return db.selectFrom('api_keys')
        .select(['id', 'name', 'start', 'created_at', 'last_used_at', 'expires_at'])
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .execute()
    },

    /** Resolves false when the user has no such unrevoked key. */
    async revoke (userId: string, id: string, now: string): Promise<boolean> {
      const result = await db.updateTable('api_keys')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },

    async touch (id: string, now: string) {
      await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute()
    }
  }
}

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>
