import fp from 'fastify-plugin'
import { Kysely } from 'kysely'
import { createDialect, type DialectOptions } from '../db/dialect.js'
import { migrateToLatest } from '../db/migrations.js'
import type { Database } from '../db/types.js'

declare module 'fastify' {
  interface FastifyInstance {
    db: Kysely<Database>
  }
}

export interface DbPluginOptions extends Omit<DialectOptions, 'log'> {
  /** `sqlite:<path>`, `sqlite::memory:` or `postgres://…` */
  url: string
}

export const dbPlugin = fp<DbPluginOptions>(async (app, { url, ...options }) => {
  const db = new Kysely<Database>({ dialect: createDialect(url, { ...options, log: app.log }) })
  try {
    await migrateToLatest(db)
  } catch (error) {
    await db.destroy()
    throw error
  }
  app.decorate('db', db)
  app.addHook('onClose', async () => { await db.destroy() })
}, { name: 'stowage-db', fastify: '5.x' })
