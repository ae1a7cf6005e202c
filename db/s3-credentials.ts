import type { Kysely, Selectable } from 'kysely'
import { lookupOf } from './dialect.js'
import type { Database, S3CredentialsTable } from './types.js'

export interface S3Credential {
  accessKeyId: string
  userId: string
  orgId: string | null
  name: string
  secretSealed: string
  createdAt: Date
  lastUsedAt?: Date
  /** The API key it was made with, and when it expires (no later than that key). */
  apiKeyId: string | null
  expiresAt: Date | null
  /** Its deletes are final, not to the trash (for tools that delete their own lock files often). */
  skipTrash: boolean
}

/** A credential as a request finds it: with whether the key it was made with still stands. */
export interface FoundS3Credential extends S3Credential {
  keyRevoked: boolean
}

const credentialOf = (row: Selectable<S3CredentialsTable>): S3Credential => ({
  accessKeyId: row.access_key_id,
  userId: row.user_id,
  orgId: row.org_id,
  name: row.name,
  secretSealed: row.secret_sealed,
  createdAt: new Date(row.created_at),
  ...row.last_used_at === null ? {} : { lastUsedAt: new Date(row.last_used_at) },
  apiKeyId: row.api_key_id,
  expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
  skipTrash: Number(row.skip_trash) === 1
})

export function createS3CredentialRepository (db: Kysely<Database>) {
  // Every S3 request looks its key up: compiled once (see lookupOf).
  // The key it was made with is read in the same query: a revoked key's credentials stop at once.
  const findRow = lookupOf<Selectable<S3CredentialsTable> & { key_id: string | null, key_revoked_at: string | null }>(db, db.selectFrom('s3_credentials as c')
    .leftJoin('api_keys as k', 'k.id', 'c.api_key_id').selectAll('c').select(['k.id as key_id', 'k.revoked_at as key_revoked_at'])
    .where('c.access_key_id', '=', '').compile().sql)
  return {
    async add (credential: Omit<S3Credential, 'lastUsedAt'>): Promise<void> {
      await db.insertInto('s3_credentials').values({
        access_key_id: credential.accessKeyId,
        user_id: credential.userId,
        org_id: credential.orgId,
        name: credential.name,
        secret_sealed: credential.secretSealed,
        created_at: credential.createdAt.toISOString(),
        api_key_id: credential.apiKeyId,
        expires_at: credential.expiresAt?.toISOString() ?? null,
        skip_trash: credential.skipTrash ? 1 : 0
      }).execute()
    },

    async find (accessKeyId: string): Promise<FoundS3Credential | undefined> {
      const row = await findRow([accessKeyId])
      return row && { ...credentialOf(row), keyRevoked: row.api_key_id !== null && (row.key_id === null || row.key_revoked_at !== null) }
    },

    /** Whether an API key is revoked or gone: what was made with it stops. */
    async keyRevoked (keyId: string): Promise<boolean> {
      const key = await db.selectFrom('api_keys').select('revoked_at').where('id', '=', keyId).executeTakeFirst()
      return key === undefined || key.revoked_at !== null
    },

    async list (userId: string): Promise<S3Credential[]> {
      return (await db.selectFrom('s3_credentials').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('access_key_id').execute()).map(credentialOf)
    },

    async count (userId: string): Promise<number> {
      const row = await db.selectFrom('s3_credentials').select((eb) => eb.fn.countAll().as('count')).where('user_id', '=', userId).executeTakeFirst()
      return Number(row?.count ?? 0)
    },

    async remove (userId: string, accessKeyId: string): Promise<boolean> {
      const { numDeletedRows } = await db.deleteFrom('s3_credentials').where('access_key_id', '=', accessKeyId).where('user_id', '=', userId).executeTakeFirst()
      return Number(numDeletedRows) === 1
    },

    async touch (accessKeyId: string, at: Date): Promise<void> {
      await db.updateTable('s3_credentials').set({ last_used_at: at.toISOString() }).where('access_key_id', '=', accessKeyId).execute()
    }
  }
}

export type S3CredentialRepository = ReturnType<typeof createS3CredentialRepository>
