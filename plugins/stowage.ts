import type { FastifyPluginAsync } from 'fastify'
import { authRoutes } from '../routes/auth.js'
import { baseUrlOf } from '../routes/base-url.js'
import { filesRoutes } from '../routes/files.js'
import { rawRoutes } from '../routes/raw.js'
import { uploadRoutes } from '../routes/uploads.js'
import { uploadsPlugin } from './uploads.js'
import { linksPlugin, type LinksPluginOptions } from './links.js'
import { operationRoutes, type OperationRoutesOptions } from '../routes/operations.js'
import { trashRoutes } from '../routes/trash.js'
import { versionRoutes } from '../routes/versions.js'
import { changeRoutes } from '../routes/changes.js'
import { changesPlugin, type ChangesPluginOptions } from './changes.js'
import { webhooksPlugin, type WebhooksPluginOptions } from './webhooks.js'
import { webhookRoutes } from '../routes/webhooks.js'
import { webhookSchemas } from '../schemas/webhooks.js'
import { s3CredentialsPlugin, type S3CredentialsPluginOptions } from './s3-credentials.js'
import { s3CredentialRoutes } from '../routes/s3-credentials.js'
import { s3CredentialSchemas } from '../schemas/s3-credentials.js'
import { folderRoutes } from '../routes/folders.js'
import { usageRoutes } from '../routes/usage.js'
import { peopleRoutes } from '../routes/people.js'
import { shareRoutes } from '../routes/shares.js'
import { sharedRoutes } from '../routes/shared.js'
import { shareSchemas } from '../schemas/shares.js'
import { peopleSchemas } from '../schemas/people.js'
import { imageRoutes } from '../routes/images.js'
import { imageSchemas } from '../schemas/images.js'
import { imagesPlugin, type ImagesPluginOptions } from './images.js'
import { webdavRoutes } from './webdav.js'
import { linkRoutes, type LinkRoutesOptions } from '../routes/links.js'
import { createByteBudget } from '../limits.js'
import { healthRoutes } from '../routes/health.js'
import { keysRoutes } from '../routes/keys.js'
import { consoleRoutes, type ConsoleRoutesOptions } from '../routes/console.js'
import { authSchemas } from '../schemas/auth.js'
import { sharedSchemas } from '../schemas/common.js'
import { fileSchemas } from '../schemas/files.js'
import { healthSchemas } from '../schemas/health.js'
import { keySchemas } from '../schemas/keys.js'
import { linkSchemas } from '../schemas/links.js'
import { operationSchemas } from '../schemas/operations.js'
import { trashSchemas } from '../schemas/trash.js'
import { versionSchemas } from '../schemas/versions.js'
import { changeSchemas } from '../schemas/changes.js'
import { folderSchemas } from '../schemas/folders.js'
import { usageSchemas } from '../schemas/usage.js'
import { authPlugin, type AuthPluginOptions } from './auth.js'
import { dbPlugin, type DbPluginOptions } from './db.js'
import { errorHandler, notFoundHandler, schemaErrorFormatter } from './errors.js'
import { healthPlugin, type HealthPluginOptions } from './health.js'
import { identityPlugin, type IdentityPluginOptions } from './identity.js'
import { keysPlugin, type KeysPluginOptions } from './keys.js'
import { peoplePlugin } from './people.js'
import { sharesPlugin, type SharesPluginOptions } from './shares.js'
import { openapiPlugin, type OpenApiPluginOptions } from './openapi.js'
import { storagePlugin, type StoragePluginOptions } from './storage.js'
import { metricsPlugin } from './metrics.js'
import { createMetrics, type Metrics } from '../metrics/metrics.js'
import { dialectName, poolStats } from '../db/dialect.js'
import { observeWithAll } from '../identity/http.js'
import { createSpans } from '../tracing/spans.js'
import { createObservers } from '../metrics/observers.js'
import { stowageOf } from '../http/decorators.js'
import { DEFAULT_BCRYPT_COST, DEFAULT_KEY_PREFIX, DEFAULT_LINK_MAX_SECONDS, DEFAULT_UPLOAD_EXPIRY_SECONDS, DEFAULT_UPLOAD_MEMORY_BYTES } from '../defaults.js'

export interface StowageOptions {
  /** `sqlite:…` or `postgres://…` with its deadlines, or a Kysely instance of the host's. */
  database: DbPluginOptions
  /** A driver and its settings (`fs` by default), or `store`: an ObjectStore of the host's. */
  storage?: Partial<StoragePluginOptions>
  /** The change journal's retention. */
  changes?: Omit<ChangesPluginOptions, 'databaseUrl'>
  /** Webhooks: whether they may point at private addresses, and their deliveries' pace. */
  webhooks?: Omit<WebhooksPluginOptions, 'onOutcome'>
  /** S3 credentials: the key their secrets are sealed under (without it, none), temporary ones' lifetime. */
  s3Credentials?: S3CredentialsPluginOptions
  /** Images transformed on the server: the largest decoded, and how many at once per instance. */
  images?: ImagesPluginOptions
  /** Upload limits; how long an unfinished resumable upload is kept (a day by default). */
  uploads?: { memoryBytes?: number, timeoutMs?: number, expirySeconds?: number }
  /** Unset issuer, server id or role turn the JWT method, the AWS method and refresh off. */
  identity?: IdentityPluginOptions
  keys?: Partial<KeysPluginOptions>
  /** Extra authenticators, tried after Stowage's own, and the failure limits. */
  auth?: AuthPluginOptions
  health?: HealthPluginOptions
  /** Route groups to mount; all by default. `raw`: the streamed file routes, /api/raw/{path};
   *  `uploads`: resumable uploads (tus), /api/uploads; `links`: signed links, /api/links and /links;
   *  `operations`: copy, move and zip, /api/copies, /api/moves, /api/archive; `folders`: /api/folders;
   *  `trash`: /api/trash; `versions`: /api/versions; `changes`: /api/changes; `webhooks`: /api/webhooks; `s3Credentials`: /api/s3-credentials;
   *  `usage`: /api/usage; `images`: /api/images; `webdav`: WebDAV at /dav/; `console`: the web console, /console/. */
  routes?: {
    health?: boolean, auth?: boolean, files?: boolean, raw?: boolean, uploads?: boolean, links?: boolean, keys?: boolean, operations?: boolean, folders?: boolean, trash?: boolean, versions?: boolean, changes?: boolean, webhooks?: boolean, s3Credentials?: boolean, usage?: boolean, people?: boolean, shares?: boolean, images?: boolean, webdav?: boolean, console?: boolean
  }
  /** Shares between people: SHARES_ACROSS_ORGS. */
  shares?: SharesPluginOptions
  /** The web console: where clients reach the service (PUBLIC_URL), for the page's links. */
  console?: ConsoleRoutesOptions
  /** Signed links: the longest lifetime (7 days by default, as S3 allows), the signing secret
   *  (else one kept in the database), links to the store itself where it can (true by default). */
  links?: Partial<Omit<LinkRoutesOptions, 'uploadMemory'>> & LinksPluginOptions
  /** Folder copies and moves: how long one request works before it answers isTruncated (10 s by default). */
  operations?: OperationRoutesOptions
  /**
   * Prometheus metrics of this mount, in a registry of their own: decorated as `stowageMetrics`
   * (`.registry`) for the host to serve or merge. Off by default; `true` makes a registry, or pass
   * one made with `createMetrics`.
   */
  metrics?: boolean | Metrics
  /**
   * Spans of Stowage's calls to its store, database, identity provider and STS, made through
   * `@opentelemetry/api` and recorded by the tracer provider the process registers. Off by default.
   * (A span per request is @fastify/otel's, which the host registers; buildApp does when OTEL_* ask.)
   */
  tracing?: boolean
  /**
   * Serve `/openapi.json` and, with `docs`, a `/docs` page, for Stowage's routes only. Off when the
   * host app has its own @fastify/swagger: Stowage's routes then appear in the host's document.
   */
  openapi?: false | (OpenApiPluginOptions & { docs?: boolean })
}

/** Swagger UI at /docs: its scripts and styles from `assets` only (Swagger UI sets some styles inline), its data from this origin. */
const docsPolicy = (assets: string) => [
  "default-src 'none'", `script-src ${assets}`, `style-src ${assets} 'unsafe-inline'`, "img-src 'self' data:", "font-src 'self' data:",
  "connect-src 'self'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'"
].join('; ')

const ALL_SCHEMAS = [...sharedSchemas, ...fileSchemas, ...authSchemas, ...healthSchemas, ...keySchemas, ...linkSchemas, ...operationSchemas, ...folderSchemas, ...trashSchemas, ...versionSchemas, ...changeSchemas, ...webhookSchemas, ...s3CredentialSchemas, ...usageSchemas, ...peopleSchemas, ...shareSchemas, ...imageSchemas]

/**
 * All of Stowage in one encapsulated plugin: schemas, error handling, services and routes live in
 * its own scope, so it mounts under any prefix, more than once, beside a host's own schemas,
 * decorators, handlers and document. `buildApp(config)` is this plugin with options from the
 * environment.
 */
export const stowage: FastifyPluginAsync<StowageOptions> = async (app, options) => {
  // A scope inherits its parent's schemas: Stowage mounted inside another Stowage scope has them.
  for (const schema of ALL_SCHEMAS) if (!app.getSchema(schema.$id as string)) app.addSchema(schema)
  app.setErrorHandler(errorHandler)
  app.setSchemaErrorFormatter(schemaErrorFormatter)
  // At the root, 404 is the host's (or buildApp's) to answer; under a prefix, Stowage answers its own.
  if (app.prefix !== '') app.setNotFoundHandler(notFoundHandler)

  const openapi = options.openapi ?? {}
  if (openapi !== false && !app.hasDecorator('swagger')) {
    await app.register(openapiPlugin, openapi)
    if (openapi.docs) {
      const { default: swaggerUi } = await import('@fastify/swagger-ui')
      // The only other page of this origin that runs script: its own files only, framed nowhere.
      await app.register(async (docs) => {
        docs.addHook('onSend', async (request, reply) => {
          reply.header('content-security-policy', docsPolicy(`${baseUrlOf(request, openapi.publicUrl)}${app.prefix}/docs/static/`))
        })
        await docs.register(swaggerUi, { routePrefix: '/docs' })
      })
    }
  }

  const metrics = options.metrics === true ? createMetrics() : options.metrics || undefined
  if (metrics) await app.register(metricsPlugin, { metrics })
  const storage = { driver: 'fs' as const, ...options.storage }
  const observers = createObservers(metrics, options.tracing ? createSpans() : undefined, {
    storePeer: storage.store ? 'object-store' : storage.driver === 's3' ? 's3' : 'file-system',
    databaseSystem: typeof options.database.url === 'string' && dialectName(options.database.url) === 'postgres' ? 'postgresql' : 'sqlite'
  })

  await app.register(dbPlugin, { ...options.database, onQuery: observers.onQuery })
  await app.register(changesPlugin, { ...options.changes, databaseUrl: typeof options.database.url === 'string' ? options.database.url : undefined })
  await app.register(webhooksPlugin, { ...options.webhooks, onOutcome: metrics && ((result, seconds) => {
    metrics.webhookDeliveries.inc({ result })
    metrics.webhookDeliveryDuration.observe(seconds)
  }) })
  await app.register(storagePlugin, { ...storage, instrument: observers.instrumentStore })
  await app.register(imagesPlugin, { ...options.images })
  await app.register(healthPlugin, { ...options.health, onReport: metrics && ((report) => {
    for (const [check, result] of Object.entries(report.checks)) metrics.readiness.set({ check }, result === 'ok' ? 1 : 0)
  }) })
  await app.register(identityPlugin, { ...options.identity, observeCall: observeWithAll(options.identity?.observeCall, observers.observeCall) })
  await app.register(s3CredentialsPlugin, { ...options.s3Credentials })
  await app.register(keysPlugin, { prefix: DEFAULT_KEY_PREFIX, bcryptCost: DEFAULT_BCRYPT_COST, ...options.keys })
  await app.register(peoplePlugin)
  await app.register(sharesPlugin, { ...options.shares })
  await app.register(authPlugin, { ...options.auth, onOutcome: metrics && ((method, result) => metrics.authAttempts.inc({ method, result })) })

  const routes = { health: true, auth: true, files: true, raw: true, uploads: true, links: true, keys: true, operations: true, folders: true, trash: true, versions: true, changes: true, webhooks: true, s3Credentials: true, usage: true, people: true, shares: true, images: true, webdav: true, console: true, ...options.routes }
  // One budget for every upload in memory, JSON or streamed.
  const uploadMemory = createByteBudget(options.uploads?.memoryBytes ?? DEFAULT_UPLOAD_MEMORY_BYTES)
  if (metrics) {
    const scope = stowageOf(app)
    Object.assign(metrics.sources, {
      bcrypt: () => scope.stowageKeys.stats(),
      uploadMemory: () => uploadMemory.stats(),
      databasePool: () => poolStats(scope.stowageDb),
      changes: () => ({ waiting: scope.stowageChanges.waiting() }),
      webhooks: () => scope.stowageWebhooks.stats()
    })
  }
  if (routes.health) await app.register(healthRoutes)
  if (routes.auth) await app.register(authRoutes)
  if (routes.files) await app.register(filesRoutes, { uploadMemory, uploadTimeoutMs: options.uploads?.timeoutMs })
  if (routes.raw) await app.register(rawRoutes, { uploadMemory })
  if (routes.links) {
    await app.register(linksPlugin, { secret: options.links?.secret })
    await app.register(linkRoutes, { uploadMemory, maxSeconds: DEFAULT_LINK_MAX_SECONDS, viaStore: true, ...options.links })
  }
  if (routes.uploads) {
    await app.register(uploadsPlugin, { expiryMs: (options.uploads?.expirySeconds ?? DEFAULT_UPLOAD_EXPIRY_SECONDS) * 1000 })
    await app.register(uploadRoutes, { uploadMemory })
  }
  if (routes.keys) await app.register(keysRoutes)
  if (routes.operations) await app.register(operationRoutes, { ...options.operations })
  if (routes.folders) await app.register(folderRoutes)
  if (routes.trash) await app.register(trashRoutes)
  if (routes.versions) await app.register(versionRoutes)
  if (routes.changes) await app.register(changeRoutes)
  if (routes.webhooks) await app.register(webhookRoutes)
  if (routes.s3Credentials) await app.register(s3CredentialRoutes)
  if (routes.usage) await app.register(usageRoutes)
  if (routes.people) await app.register(peopleRoutes)
  if (routes.shares) {
    await app.register(shareRoutes)
    await app.register(sharedRoutes)
  }
  if (routes.images) await app.register(imageRoutes)
  if (routes.webdav) await app.register(webdavRoutes, { uploadMemory })
  if (routes.console) await app.register(consoleRoutes, { ...options.console })
}
