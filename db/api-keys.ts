import { sql, type Insertable, type Kysely } from 'kysely'
import { lookupOf } from './dialect.js'
import type { ApiKeyRow, ApiKeysTable, Database, Organization } from './types.js'

/** What verification needs of a key's row. */
export type ApiKeyCheck = Pick<ApiKeyRow, 'id' | 'user_id' | 'org_id' | 'key_hash' | 'last_used_at' | 'expires_at' | 'revoked_at' | 'aws_sso_only'>

export function createApiKeyRepository (db: Kysely<Database>) {
  // Compiled once: building the query on every authenticated request cost as much as running it.
  // Only the columns verification reads, and no join: the row costs SQLite less than half as much.
  const findById = lookupOf<ApiKeyCheck>(db, db.selectFrom('api_keys')
    .select(['id', 'user_id', 'org_id', 'key_hash', 'last_used_at', 'expires_at', 'revoked_at', 'aws_sso_only'])
    .where('id', '=', '')
    .compile().sql)

  return {
    async insert (row: Insertable<ApiKeysTable>) {
      await db.insertInto('api_keys').values(row).execute()
    },

    /** One lookup by primary key: the only query on the authentication path of most keys. */
    findById: async (id: string): Promise<ApiKeyCheck | undefined> => findById([id]),

    /** The auth mode of an organization: a second lookup, for keys minted through the AWS method only. */
    async orgAuthMode (orgId: string): Promise<Organization['auth_mode'] | undefined> {
      return (await db.selectFrom('organizations').select('auth_mode').where('id', '=', orgId).executeTakeFirst())?.auth_mode
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

    /** Whether `id` is `ancestorId` or one of the keys created through it, at any depth. */
    async descendsFrom (id: string, ancestorId: string): Promise<boolean> {
      const { rows } = await sql<{ found: number }>`
        with recursive lineage(id) as (
          select id from api_keys where id = ${ancestorId}
          union all
          select k.id from api_keys k join lineage l on k.parent_id = l.id
        )
        select 1 as found from lineage where id = ${id}`.execute(db)
      return rows.length > 0
    },

    /** Revokes the user's unrevoked key and every key created through it, in one statement;
     *  resolves false when the user has no such unrevoked key. */
    async revokeWithDescendants (userId: string, id: string, now: string): Promise<boolean> {
      const result = await sql`
        with recursive lineage(id) as (
          select id from api_keys where id = ${id} and user_id = ${userId} and revoked_at is null
          union all
          select k.id from api_keys k join lineage l on k.parent_id = l.id
        )
        update api_keys set revoked_at = ${now} where revoked_at is null and id in (select id from lineage)`.execute(db)
      return (result.numAffectedRows ?? 0n) > 0n
    },

    async touch (id: string, now: string) {
      await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute()
    }
  }
}

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>
