import fp from 'fastify-plugin'
import { ping } from '../db/migrations.js'

declare module 'fastify' {
  interface FastifyInstance {
    checkHealth: () => Promise<HealthReport>
  }
}

export interface HealthReport {
  status: 'ok' | 'unavailable'
  error?: string
  checks: { database: 'ok' | 'failing' }
}

export interface HealthPluginOptions {
  /** A database that takes longer than this to answer counts as failing. */
  timeoutMs?: number
}

export const healthPlugin = fp<HealthPluginOptions>(async (app, { timeoutMs = 2000 }) => {
  app.decorate('checkHealth', async (): Promise<HealthReport> => {
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('database health check timed out')), timeoutMs)
    })
    try {
      await Promise.race([ping(app.db), deadline])
      return { status: 'ok', checks: { database: 'ok' } }
    } catch (error) {
      app.log.warn({ err: error }, 'database health check failed')
      return { status: 'unavailable', error: 'the database is not answering', checks: { database: 'failing' } }
    } finally {
      clearTimeout(timer)
    }
  })
}, { name: 'stowage-health', fastify: '5.x', dependencies: ['stowage-db'] })
