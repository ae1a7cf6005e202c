import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from './types.js'

/**
 * A secret the instances share, made at random by whichever asks first and kept in the database
 * (which its backups therefore hold, as they hold the key hashes).
 */
export async function sharedSecret (db: Kysely<Database>, name: string): Promise<Buffer> {
  await db.insertInto('settings').values({ name, value: randomBytes(32).toString('base64') })
    .onConflict((conflict) => conflict.column('name').doNothing()).execute()
  const { value } = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirstOrThrow()
  return Buffer.from(value, 'base64')
}
