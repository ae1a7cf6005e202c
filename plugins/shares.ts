import fp from 'fastify-plugin'
import { createMountRepository } from '../db/mounts.js'
import { createShareRepository } from '../db/shares.js'
import { decorateStowage, stowageOf } from '../http/decorators.js'
import { createShares } from '../storage/shares.js'
import { sweepEvery } from '../http/sweep.js'

// How soon after its expiresAt a share's grantees read `unshare` in their journals (it is out of reach at once).
const EXPIRED_SHARES_SWEEP_MS = 30_000

export interface SharesPluginOptions {
  /** SHARES_ACROSS_ORGS: people of other organizations can be shared with (false by default). */
  acrossOrgs?: boolean
}

/** Shares between people (DESIGN §13): made, seen, changed and ended by their owners. */
export const sharesPlugin = fp<SharesPluginOptions>(async (app, { acrossOrgs = false }) => {
  const { stowageDb, stowagePeople, stowageFiles, stowageChanges } = stowageOf(app)
  const shares = createShares({ repository: createShareRepository(stowageDb), mounts: createMountRepository(stowageDb), people: stowagePeople, files: stowageFiles, journal: stowageChanges, acrossOrgs })
  // Someone who joins an organization receives what it shares with everyone.
  stowagePeople.onNoted(shares.mountOrgShares)
  decorateStowage(app, 'stowageShares', shares)
  sweepEvery(app, { everyMs: EXPIRED_SHARES_SWEEP_MS, what: 'mounts of expired shares', sweep: shares.sweepExpired })
}, { name: 'stowage-shares', fastify: '5.x', dependencies: ['stowage-db', 'stowage-people', 'stowage-storage'] })
