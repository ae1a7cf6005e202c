import fp from 'fastify-plugin'
import { createShareRepository } from '../db/shares.js'
import { decorateStowage, stowageOf } from '../http/decorators.js'
import { createShares } from '../storage/shares.js'

export interface SharesPluginOptions {
  /** SHARES_ACROSS_ORGS: people of other organizations can be shared with (false by default). */
  acrossOrgs?: boolean
}

/** Shares between people (DESIGN §13): made, seen, changed and ended by their owners. */
export const sharesPlugin = fp<SharesPluginOptions>(async (app, { acrossOrgs = false }) => {
  const { stowageDb, stowagePeople, stowageFiles } = stowageOf(app)
  decorateStowage(app, 'stowageShares', createShares({ repository: createShareRepository(stowageDb), people: stowagePeople, files: stowageFiles, acrossOrgs }))
}, { name: 'stowage-shares', fastify: '5.x', dependencies: ['stowage-db', 'stowage-people', 'stowage-storage'] })
