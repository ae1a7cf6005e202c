import t from 'tap'
import { randomBytes } from 'node:crypto'
import { CreateBucketCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3'
import { startService } from './helpers/service.js'
import { waitFor } from './helpers/wait.js'

// A burst of writes queues for the database's connections instead of failing: 300 PutObjects at
// once across two instances, each with a pool of 2 (a burst 150 deep per instance) and a second
// to open a connection (not to wait for one), all stored.
// (On SQLite there is no pool.)
const skip = process.env.TEST_DATABASE_URL ? false : 'a burst against the PostgreSQL pool: the PostgreSQL run covers it'

t.test('300 concurrent PutObjects across two instances on PostgreSQL are all stored', { skip }, async (t) => {
  const service = await startService(t, { instances: 2, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY: randomBytes(32).toString('base64'), DATABASE_POOL_SIZE: '2', DATABASE_CONNECT_TIMEOUT_MS: '1000' } })
  const endpoints = await Promise.all(service.servers.map(async (server) => {
    await waitFor(() => server.logs.some(({ msg }) => msg === 'S3 endpoint ready'), { what: 'the S3 endpoint' })
    return `http://127.0.0.1:${new URL(server.logs.find(({ msg }) => msg === 'S3 endpoint ready')!.address as string).port}`
  }))
  const credentials = await (await fetch(`${service.url}/api/s3-credentials`, { method: 'POST', headers: { ...service.auth, 'content-type': 'application/json' }, body: '{}' })).json() as { accessKeyId: string, secretAccessKey: string }
  const clients = endpoints.map((endpoint) => new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials, maxAttempts: 1, requestHandler: { httpAgent: { maxSockets: 200 } } }))
  t.teardown(() => { for (const client of clients) client.destroy() })
  await clients[0].send(new CreateBucketCommand({ Bucket: 'burst' }))
  const body = Buffer.alloc(256 * 1024, 'b')
  const outcomes = await Promise.all(Array.from({ length: 300 }, async (_, n) => {
    try {
      await clients[n % 2].send(new PutObjectCommand({ Bucket: 'burst', Key: `f${n}.bin`, Body: body }))
      return 200
    } catch (error) {
      if (error instanceof S3ServiceException) return `${error.$metadata.httpStatusCode} ${error.name}: ${error.message}`
      throw error
    }
  }))
  t.same(outcomes.filter((outcome) => outcome !== 200), [], 'every one answered 200')
  const usage = await (await fetch(`${service.url}/api/usage`, { headers: service.auth })).json() as { fileBytes: number }
  t.equal(usage.fileBytes, 300 * body.length, 'and counted')
})
