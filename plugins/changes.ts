import fp from 'fastify-plugin'
import { CHANGES_CHANNEL, createChangeRepository } from '../db/changes.js'
import { isPostgres } from '../db/dialect.js'
import { createMountRepository } from '../db/mounts.js'
import { createListeningBell, createLocalBell } from '../storage/change-bell.js'
import { createJournal } from '../storage/changes.js'
import { DEFAULT_CHANGES_RETENTION_DAYS } from '../defaults.js'
import { decorateStowage, stowageOf } from '../http/decorators.js'
import { sweepEvery } from '../http/sweep.js'

export interface ChangesPluginOptions {
  /** How long journal entries are kept (30 days by default); a cursor older than that is 410. */
  retentionDays?: number
  /** PostgreSQL's URL, for the one LISTEN connection that hears other instances' changes. Without
   *  it (a host's own Kysely), a wait is woken by this instance's changes only, others' are seen
   *  when it ends. */
  databaseUrl?: string
}

/** The change journal (read by GET /api/changes, written by the publisher) and its waiting clients. */
export const changesPlugin = fp<ChangesPluginOptions>(async (app, { retentionDays = DEFAULT_CHANGES_RETENTION_DAYS, databaseUrl }) => {
  const db = stowageOf(app).stowageDb
  const bell = isPostgres(db) && databaseUrl ? createListeningBell({ url: databaseUrl, channel: CHANGES_CHANNEL, log: app.log }) : createLocalBell()
  const journal = createJournal({ repository: createChangeRepository(db), bell, mounts: createMountRepository(db) })
  decorateStowage(app, 'stowageChanges', journal)
  const retentionMs = retentionDays * 86_400_000
  sweepEvery(app, { everyMs: 3600_000, what: 'change journal entries past CHANGES_RETENTION_DAYS', sweep: () => journal.sweep(retentionMs) })
  app.addHook('onClose', async () => { await bell.close() })
}, { name: 'stowage-changes', fastify: '5.x', dependencies: ['stowage-db'] })
