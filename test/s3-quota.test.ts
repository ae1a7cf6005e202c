import t from 'tap'
import { randomBytes } from 'node:crypto'
import { CreateBucketCommand, CreateMultipartUploadCommand, PutObjectCommand, S3Client, S3ServiceException, UploadPartCommand } from '@aws-sdk/client-s3'
import { startService } from './helpers/service.js'
import { waitFor } from './helpers/wait.js'

// The quota holds for S3 writers on two instances at once (on PostgreSQL, or two processes on one
// SQLite file): every write, part and PutObject alike, reserves its room in the database first.
t.test('PutObjects and multipart parts racing on two instances never take a user past the quota', async (t) => {
  const quota = 10 * 1024 * 1024
  const service = await startService(t, { instances: 2, env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY: randomBytes(32).toString('base64'), QUOTA_BYTES: String(quota) } })
  const endpoints = await Promise.all(service.servers.map(async (server) => {
    await waitFor(() => server.logs.some(({ msg }) => msg === 'S3 endpoint ready'), { what: 'the S3 endpoint' })
    return `http://127.0.0.1:${new URL(server.logs.find(({ msg }) => msg === 'S3 endpoint ready')!.address as string).port}`
  }))
  const credentials = await (await fetch(`${service.url}/api/s3-credentials`, { method: 'POST', headers: { ...service.auth, 'content-type': 'application/json' }, body: '{}' })).json() as { accessKeyId: string, secretAccessKey: string }
  const clients = endpoints.map((endpoint) => new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials, maxAttempts: 1 }))
  t.teardown(() => { for (const client of clients) client.destroy() })
  const body = Buffer.alloc(2 * 1024 * 1024, 'q')
  await clients[0].send(new CreateBucketCommand({ Bucket: 'race' }))
  const { UploadId } = await clients[0].send(new CreateMultipartUploadCommand({ Bucket: 'race', Key: 'parts.bin' }))
  const outcomes = await Promise.all(Array.from({ length: 10 }, async (_, n) => {
    const client = clients[n % 2]
    try {
      if (n < 6) await client.send(new PutObjectCommand({ Bucket: 'race', Key: `put-${n}.bin`, Body: body }))
      else await client.send(new UploadPartCommand({ Bucket: 'race', Key: 'parts.bin', UploadId, PartNumber: n, Body: body }))
      return 'stored'
    } catch (error) {
      if (error instanceof S3ServiceException) return error.name
      throw error
    }
  }))
  t.ok(outcomes.every((outcome) => outcome === 'stored' || outcome === 'QuotaExceeded'), outcomes.join(' '))
  t.ok(outcomes.filter((outcome) => outcome === 'stored').length <= 5, 'at most the five that fit')
  t.ok(outcomes.includes('QuotaExceeded'), 'the rest refused')
  const usage = await (await fetch(`${service.url}/api/usage`, { headers: service.auth })).json() as { usedBytes: number }
  t.ok(usage.usedBytes <= quota, `${usage.usedBytes} bytes used of ${quota}`)
})
