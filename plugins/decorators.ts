import type { FastifyInstance, preHandlerHookHandler } from 'fastify'
import type { Kysely } from 'kysely'
import type { Database } from '../db/types.js'
import type { KeyService } from '../keys/service.js'
import type { FileService } from '../storage/files.js'
import type { Quotas } from '../storage/quotas.js'
import type { Metrics } from '../metrics/metrics.js'
import type { FailureLimitHooks, ProviderCallLimits } from './auth.js'
import type { HealthReport } from './health.js'
import type { IdentityService } from './identity.js'

/**
 * What Stowage's concern plugins decorate onto the scope they are registered in. The names carry a
 * prefix, so that they cannot clash with a host app's own `db` or `keys`; and they are not declared
 * on every FastifyInstance, since a host app outside that scope does not have them.
 */
export interface StowageDecorators {
  stowageDb: Kysely<Database>
  stowageFiles: FileService
  /** Usage and quotas, per user. */
  stowageQuotas: Quotas
  stowageKeys: KeyService
  stowageIdentity: IdentityService
  /** The authentication chain as one hook: JWT, then API key, then AWS-signed identity. */
  stowageAuthenticate: preHandlerHookHandler
  /** The chain's per-address failure limit, for routes authenticated by what they carry. */
  stowageLimitFailures: FailureLimitHooks
  /** The per-address budget of calls to the identity provider, and device polls' pace. */
  stowageLimitProviderCalls: ProviderCallLimits
  /** Readiness: the database and the file store, each within its own deadline. */
  stowageCheckHealth: () => Promise<HealthReport>
  /** With `metrics` on: Stowage's Prometheus registry and instruments. */
  stowageMetrics?: Metrics
}

/** A scope in which the concern plugins are registered, typed as such. */
export function stowageOf (app: FastifyInstance): StowageDecorators {
  return app as unknown as StowageDecorators
}
