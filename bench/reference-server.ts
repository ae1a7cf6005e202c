// The smallest Node server doing the work of GET /api/files/{path}: one GetObject, the body as
// base64 in JSON. No framework, no authentication. The yardstick of DESIGN.md §9.
import { GetObjectCommand } from '@aws-sdk/client-s3'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createS3Client } from '../storage/s3-store.js'

const { S3_ENDPOINT, S3_BUCKET, OBJECT_KEY } = process.env
const client = createS3Client({ region: 'us-east-1', endpoint: S3_ENDPOINT, forcePathStyle: true })

const server = createServer(async (_req, res) => {
  try {
    const object = await client.send(new GetObjectCommand({ Bucket: S3_BUCKET, Key: OBJECT_KEY }))
    const content = Buffer.from(await object.Body!.transformToByteArray()).toString('base64')
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ content, contentType: object.ContentType }))
  } catch {
    res.writeHead(500).end()
  }
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port }) + '\n')
})
