import { randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database, Organization } from './types.js'

export interface NewOrganization {
  name: string
  awsAccountId?: string | null
  authMode?: Organization['auth_mode']
}

export function createOrganizationRepository (db: Kysely<Database>) {
  return {
    async create ({ name, awsAccountId = null, authMode = 'platform' }: NewOrganization): Promise<Organization> {
      const row: Organization = {
        id: randomUUID(), name, aws_account_id: awsAccountId, auth_mode: authMode, created_at: new Date().toISOString()
      }
      await db.insertInto('organizations').values(row).execute()
      return row
    },

    async findById (id: string): Promise<Organization | undefined> {
      return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst()
    },

    async findByAwsAccount (accountId: string): Promise<Organization[]> {
      return db.selectFrom('organizations').selectAll().where('aws_account_id', '=', accountId).execute()
    }
  }
}

export type OrganizationRepository = ReturnType<typeof createOrganizationRepository>
