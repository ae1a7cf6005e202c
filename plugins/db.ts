import fp from 'fastify-plugin'
import type { Kysely } from 'kysely'
import { openDatabase, type DialectOptions } from '../db/dialect.js'
import { migrateToLatest } from '../db/migrations.js'
import type { Database } from '../db/types.js'
import { decorateStowage } from '../http/decorators.js'

export interface DbPluginOptions extends Omit<DialectOptions, 'log'> {
  /** `sqlite:<path>`, `sqlite::memory:` or `postgres://…`; or a Kysely instance of the host's, which
   *  is migrated here and left open on close. */
  url: string | Kysely<Database>
}

export const dbPlugin = fp<DbPluginOptions>(async (app, { url, ...options }) => {
  const owned = typeof url === 'string'
  const db = owned ? openDatabase(url, { ...options, log: app.log }) : url
  try {
    await migrateToLatest(db)
  } catch (error) {
    if (owned) await db.destroy()
    throw error
  }
  decorateStowage(app, 'stowageDb', db)
  if (owned) app.addHook('onClose', async () => { await db.destroy() })
}, { name: 'stowage-db', fastify: '5.x' })
