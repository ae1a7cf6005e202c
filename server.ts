import { buildApp } from './app.js'
import { ConfigError, loadConfig } from './config.js'
import { serveMetrics } from './metrics/listener.js'
import { startTracing } from './tracing/sdk.js'

async function main () {
  let config, tracing
  try {
    config = loadConfig(process.env)
    tracing = await startTracing(process.env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(error.message + '\n')
    process.exit(1)
  }

  const app = await buildApp(config, { tracing })
  if (tracing) {
    app.addHook('onClose', async () => {
      // Spans a collector never took are lost, not a reason to fail the shutdown.
      await tracing.shutdown().catch((error: unknown) => app.log.warn({ err: error }, 'traces could not be exported at shutdown'))
    })
  }
  const metricsServer = config.METRICS_PORT === undefined || !app.stowageMetrics
    ? undefined
    : await serveMetrics(app.stowageMetrics.registry, config.METRICS_PORT, config.METRICS_HOST)
  if (metricsServer) app.log.info({ address: metricsServer.address() }, 'metrics listening')
  app.addHook('onClose', async () => { metricsServer?.close() })
  let closing = false
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (closing) return
      closing = true
      app.log.info({ signal }, 'shutting down')
      // Requests in flight get SHUTDOWN_TIMEOUT_MS; a client trickling its body gets no more.
      setTimeout(() => {
        app.log.error({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, 'requests still in flight at the shutdown deadline; exiting')
        process.exit(1)
      }, config.SHUTDOWN_TIMEOUT_MS).unref()
      app.close().then(() => process.exit(0), (error) => {
        app.log.error({ err: error }, 'shutdown failed')
        process.exit(1)
      })
    })
  }
  const address = await app.listen({ port: config.PORT, host: config.HOST })
  // What a first run needs: where to go, and how to get in on the embedded defaults (no identity provider).
  app.log.info({ console: `${address}/console/` }, `the web console is at ${address}/console/`)
  if (!config.JWT_ISSUER) app.log.info('no identity provider is set: make a first API key with "./bin/stowage.js admin create-key --user NAME" (same DATABASE_URL), and sign in to the console with it')
  if (app.s3Endpoint) {
    const address = await app.s3Endpoint.listen({ port: config.S3_API_PORT, host: config.S3_API_HOST ?? config.HOST, listenTextResolver: (address) => `S3 endpoint listening at ${address}` })
    app.log.info({ address }, 'S3 endpoint ready')
  }
}

main().catch((error) => {
  process.stderr.write(`stowage failed to start: ${(error as Error).message}\n`)
  process.exit(1)
})
