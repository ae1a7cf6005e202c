import { sql, type Kysely } from 'kysely'
import { foldCase } from './names.js'
import type { Database } from './types.js'

/** A person as others see them: who a share is with. */
export interface Person {
  userId: string
  orgId: string | null
  email?: string
  name?: string
}

/** What an authentication says of a person: their organization, and what their token names them. */
export interface Profile {
  orgId: string | null
  email?: string
  name?: string
}

/** People found at once by a search: DESIGN §13's "at most 20". */
const FOUND = 20

const personOf = (row: { user_id: string, org_id: string | null, email: string | null, name: string | null }): Person => ({
  userId: row.user_id,
  orgId: row.org_id,
  ...(row.email ? { email: row.email } : {}),
  ...(row.name ? { name: row.name } : {})
})

/** The people Stowage has authenticated (DESIGN §13). */
export function createPeopleRepository (db: Kysely<Database>) {
  const sameOrg = (orgId: string | null) => orgId === null ? sql<boolean>`org_id is null` : sql<boolean>`org_id = ${orgId}`
  return {
    async find (userId: string): Promise<Person | undefined> {
      const row = await db.selectFrom('people').select(['user_id', 'org_id', 'email', 'name']).where('user_id', '=', userId).executeTakeFirst()
      return row && personOf(row)
    },

    /** The people of `userIds` who are known, by id: one query for a list of them. */
    async findAll (userIds: string[]): Promise<Map<string, Person>> {
      const wanted = [...new Set(userIds)]
      if (wanted.length === 0) return new Map()
      const rows = await db.selectFrom('people').select(['user_id', 'org_id', 'email', 'name']).where('user_id', 'in', wanted).execute()
      return new Map(rows.map((row) => [row.user_id, personOf(row)]))
    },

    /**
     * The person's row as `profile` says, written only when it differs: an email or a name the
     * profile does not give (an API key's caller) is kept as it was. Answers the row as it is now.
     */
    async note (userId: string, profile: Profile): Promise<Person> {
      const known = await this.find(userId)
      const email = profile.email ?? known?.email
      const name = profile.name ?? known?.name
      const person: Person = { userId, orgId: profile.orgId, ...(email ? { email } : {}), ...(name ? { name } : {}) }
      if (known && known.orgId === person.orgId && known.email === person.email && known.name === person.name) return known
      const row = {
        org_id: person.orgId,
        email: person.email ?? null,
        name: person.name ?? null,
        email_folded: person.email ? foldCase(person.email) : null,
        name_folded: person.name ? foldCase(person.name) : null,
        updated_at: new Date().toISOString()
      }
      await db.insertInto('people').values({ user_id: userId, ...row })
        .onConflict((conflict) => conflict.column('user_id').doUpdateSet(row)).execute()
      return person
    },

    /** The ids of everyone of `orgId` (null: of no organization). */
    async members (orgId: string | null): Promise<string[]> {
      return (await db.selectFrom('people').select('user_id').where(sameOrg(orgId)).execute()).map((row) => row.user_id)
    },

    /** The person whose email is `email`, in any case. */
    async findByEmail (email: string): Promise<Person | undefined> {
      const row = await db.selectFrom('people').select(['user_id', 'org_id', 'email', 'name']).where('email_folded', '=', foldCase(email)).orderBy('user_id').executeTakeFirst()
      return row && personOf(row)
    },

    /** At most 20 people of `orgId` (null: those of none) whose email or name begins with `text`, in any case, `except` left out. */
    async search (orgId: string | null, text: string, except: string): Promise<Person[]> {
      const pattern = `${foldCase(text).replace(/[\\%_]/g, (character) => `\\${character}`)}%`
      const rows = await db.selectFrom('people').select(['user_id', 'org_id', 'email', 'name'])
        .where(sameOrg(orgId)).where('user_id', '<>', except)
        .where(sql<boolean>`(email_folded like ${pattern} escape '\\' or name_folded like ${pattern} escape '\\')`)
        .orderBy(sql`coalesce(name_folded, email_folded)`).orderBy('user_id').limit(FOUND).execute()
      return rows.map(personOf)
    }
  }
}

export type PeopleRepository = ReturnType<typeof createPeopleRepository>
