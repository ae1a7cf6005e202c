import { CompiledQuery, sql, type Insertable, type Kysely } from 'kysely'
import type { ApiKeyRow, ApiKeysTable, Database, Organization } from './types.js'

/** A key's row with the auth mode of its organization, which decides aws_sso_only keys. */
export type ApiKeyWithOrg = ApiKeyRow & { org_auth_mode: Organization['auth_mode'] | null }

export function createApiKeyRepository (db: Kysely<Database>) {
  // Compiled once: building the query on every authenticated request cost as much as running it.
  const findByIdSql = db.selectFrom('api_keys')
    .leftJoin('organizations', 'organizations.id', 'api_keys.org_id')
    .selectAll('api_keys')
    .select('organizations.auth_mode as org_auth_mode')
    .where('api_keys.id', '=', '')
    .compile().sql

  return {
    async insert (row: Insertable<ApiKeysTable>) {
      await db.insertInto('api_keys').values(row).execute()
    },

    /** One lookup by primary key: the only query on the authentication path. */
    async findById (id: string): Promise<ApiKeyWithOrg | undefined> {
      const { rows } = await db.executeQuery<ApiKeyWithOrg>(CompiledQuery.raw(findByIdSql, [id]))
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
