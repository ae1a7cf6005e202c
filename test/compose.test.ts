import t from 'tap'
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { loadConfig } from '../config.js'

// compose.yaml cannot be started on these machines (no Docker engine), so its parts are checked
// against each other: each Stowage instance's configuration loads, and names the database, store,
// bucket and credentials that the other services define.
interface Service { environment?: Record<string, string>, depends_on?: Record<string, { condition: string }>, ports?: string[], entrypoint?: string[], command?: string }
const compose = parse(readFileSync('compose.yaml', 'utf8'), { merge: true }) as { services: Record<string, Service>, configs: Record<string, { content: string }> }
const { postgres, minio, bucket } = compose.services
const instances = Object.entries(compose.services).filter(([name]) => name.startsWith('stowage'))

t.test('two Stowage instances, each with a configuration that loads', async (t) => {
  t.equal(instances.length, 2)
  const ports = instances.map(([, service]) => service.ports?.[0]?.split(':')[0])
  t.equal(new Set(ports).size, 2, `each on its own host port: ${ports.join(', ')}`)
  for (const [name, service] of instances) {
    t.doesNotThrow(() => loadConfig(service.environment), `${name}'s configuration loads`)
    t.same(service.depends_on, { postgres: { condition: 'service_healthy' }, bucket: { condition: 'service_completed_successfully' } }, `${name} starts after the database and the bucket`)
  }
})

t.test('the instances name the PostgreSQL, MinIO and bucket that compose defines', async (t) => {
  const bucketJob = bucket.entrypoint!.join(' ')
  for (const [name, service] of instances) {
    const config = loadConfig(service.environment)
    const database = new URL(config.DATABASE_URL)
    t.equal(database.hostname, 'postgres', name)
    t.equal(database.username, postgres.environment!.POSTGRES_USER)
    t.equal(database.password, postgres.environment!.POSTGRES_PASSWORD)
    t.equal(database.pathname, `/${postgres.environment!.POSTGRES_DB}`)
    t.equal(config.STORAGE_DRIVER, 's3')
    t.equal(new URL(config.S3_ENDPOINT!).hostname, 'minio')
    t.equal(config.S3_FORCE_PATH_STYLE, true, 'MinIO needs path-style addressing')
    t.equal(service.environment!.AWS_ACCESS_KEY_ID, minio.environment!.MINIO_ROOT_USER)
    t.equal(service.environment!.AWS_SECRET_ACCESS_KEY, minio.environment!.MINIO_ROOT_PASSWORD)
    t.match(bucketJob, `mc mb --ignore-existing local/${config.S3_BUCKET}`, 'the bucket job creates their bucket')
  }
  t.match(bucketJob, `mc alias set local http://minio:9000 ${minio.environment!.MINIO_ROOT_USER} ${minio.environment!.MINIO_ROOT_PASSWORD}`)
})

t.test('the prometheus service scrapes each instance on its METRICS_PORT', async (t) => {
  const scrape = parse(compose.configs.prometheus.content) as { scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }> }
  const targets = scrape.scrape_configs.flatMap((job) => job.static_configs.flatMap((group) => group.targets)).sort()
  const expected = instances.map(([name, service]) => `${name}:${loadConfig(service.environment).METRICS_PORT}`).sort()
  t.same(targets, expected)
  for (const [name, service] of instances) {
    t.equal(loadConfig(service.environment).METRICS_HOST, '0.0.0.0', `${name}'s metrics listen beyond its own loopback, inside the compose network`)
    t.notOk(service.ports?.some((port) => port.endsWith(':9464')), `${name} does not publish its metrics port`)
  }
})
