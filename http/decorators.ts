import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify'
import type { Kysely } from 'kysely'
import type { Database } from '../db/types.js'
import type { KeyService } from '../keys/service.js'
import type { People } from '../identity/people.js'
import type { Shares } from '../storage/shares.js'
import type { FileService } from '../storage/files.js'
import type { Quotas } from '../storage/quotas.js'
import type { Metrics } from '../metrics/metrics.js'
import type { Locker } from '@tus/utils'
import type { IdentityService } from '../identity/service.js'
import type { LinkSigner } from '../storage/links.js'
import type { StagedUploadStore } from '../storage/tus-store.js'
import type { HealthReport } from '../schemas/health.js'
import type { Journal } from '../storage/changes.js'
import type { Webhooks } from '../webhooks/service.js'
import type { S3Credentials } from '../s3/credentials.js'
import type { Multipart } from '../storage/multipart.js'
import type { NameIndex } from '../storage/names.js'
import type { ImageCache } from '../storage/image-cache.js'
import type { Images } from '../storage/images.js'

/** For routes authenticated by what they carry (a refresh token, a code): `admit` refuses an address
 *  that keeps failing, `count` (an onSend hook) counts each 401 against it before it is sent, so
 *  that the client's next request finds it counted, as the chain does. */
export interface FailureLimitHooks {
  admit (request: FastifyRequest): Promise<void>
  count <T>(request: FastifyRequest, reply: FastifyReply, payload: T): Promise<T>
  /** The same limit for a front end that answers in its own protocol (S3). */
  address: AddressFailureLimit
}

/** Seconds an address must wait (0: none): as this instance knows, or as the database says; and a failure of it. */
export interface AddressFailureLimit {
  known (address: string): number
  wait (address: string): Promise<number>
  fail (address: string): Promise<void>
}

/** For the routes that call the identity provider for whoever asks (sign-in, refresh, logout): every
 *  call counts against the caller's address, whatever its outcome; a device code is polled at most
 *  once per DEVICE_POLL_SECONDS, faster is RFC 8628's slow_down. */
export interface ProviderCallLimits {
  admit (request: FastifyRequest): Promise<void>
  admitDevicePoll (deviceCode: string): Promise<void>
}

/**
 * What Stowage's concern plugins decorate onto the scope they are registered in. The names carry a
 * prefix, so that they cannot clash with a host app's own `db` or `keys`; and they are not declared
 * on every FastifyInstance, since a host app outside that scope does not have them.
 */
export interface StowageDecorators {
  stowageDb: Kysely<Database>
  stowageFiles: FileService
  /** The index of names: its first-start build and its reindex against the store. */
  stowageNames: NameIndex
  /** Derived images kept in the store, dropped when their source changes. */
  stowageImageCache: ImageCache
  /** Images transformed on the server: for the images routes and download links with a transform. */
  stowageImages: Images
  /** Usage and quotas, per user. */
  stowageQuotas: Quotas
  stowageKeys: KeyService
  /** The people Stowage has authenticated, for shares: noted by the authentication chain. */
  stowagePeople: People
  /** Shares between people, as their owners make and end them. */
  stowageShares: Shares
  stowageIdentity: IdentityService
  /** The authentication chain as one hook: JWT, then API key, then AWS-signed identity. */
  stowageAuthenticate: preHandlerHookHandler
  /** The chain's per-address failure limit, for routes authenticated by what they carry. */
  stowageLimitFailures: FailureLimitHooks
  /** The per-address budget of calls to the identity provider, and device polls' pace. */
  stowageLimitProviderCalls: ProviderCallLimits
  /** Readiness: the database and the file store, each within its own deadline. */
  stowageCheckHealth: () => Promise<HealthReport>
  /** The change journal: written by the publisher, read by GET /api/changes. */
  stowageChanges: Journal
  /** A user's webhooks, and how many deliveries this instance is sending. */
  stowageWebhooks: Webhooks & { stats: () => { running: number } }
  /** S3 multipart uploads: parts kept apart, then joined into one write of the file. */
  stowageMultipart: Multipart
  /** S3 credentials; undefined without S3_CREDENTIALS_KEY. */
  stowageS3Credentials?: S3Credentials
  /** Signs and checks the links Stowage serves. */
  stowageLinks: LinkSigner
  /** Resumable uploads' store and locks; undefined when the file store cannot stage writes. */
  stowageUploads?: { store: StagedUploadStore, locker: Locker }
  /** With `metrics` on: Stowage's Prometheus registry and instruments. */
  stowageMetrics?: Metrics
}

/** A scope in which the concern plugins are registered, typed as such. */
export function stowageOf (app: FastifyInstance): StowageDecorators {
  return app as unknown as StowageDecorators
}

/** Sets one of Stowage's decorators on `app`: a name or a type that is not StowageDecorators' does not compile. */
export function decorateStowage<K extends keyof StowageDecorators> (app: FastifyInstance, name: K, value: StowageDecorators[K]) {
  // The names are not declared on FastifyInstance (see above), so Fastify's own typing of decorate cannot check them.
  app.decorate<unknown>(name, value)
}
