import fp from 'fastify-plugin'
import { Kysely } from 'kysely'
import { createDialect, type DialectOptions } from '../db/dialect.js'
import { migrateToLatest } from '../db/migrations.js'
import type { Database } from '../db/types.js'

export interface DbPluginOptions extends Omit<DialectOptions, 'log'> {
  /** `sqlite:<path>`, `sqlite::memory:` or `postgres://…`; or a Kysely instance of the host's, which
   *  is migrated here and left open on close. */
  url: string | Kysely<Database>
}

export const dbPlugin = fp<DbPluginOptions>(async (app, { url, ...options }) => {
  const owned = typeof url === 'string'
  const db = owned ? new Kysely<Database>({ dialect: createDialect(url, { ...options, log: app.log }) }) : url
  try {
    await migrateToLatest(db)
  } catch (error) {
    if (owned) await db.destroy()
    throw error
  }
  app.decorate('stowageDb', db)
  if (owned) app.addHook('onClose', async () => { await db.destroy() })
}, { name: 'stowage-db', fastify: '5.x' })
