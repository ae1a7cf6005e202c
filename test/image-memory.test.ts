import t from 'tap'
import sharp from 'sharp'
import { bearer, buildTestApp } from './helpers/app.js'
import { startIdp } from './helpers/idp.js'
import { startService } from './helpers/service.js'
import { sampleRss } from './helpers/streams.js'
import { timed } from './helpers/wait.js'

// Image transforms under load, on one instance: the slots that bound them, and what a flood costs.
const idp = await startIdp()
t.teardown(() => idp.close())
const alice = bearer(idp.token({ sub: 'alice' }))

t.test('a flood of transforms: the ones past the line are 503 with Retry-After', async (t) => {
  const test = await buildTestApp({ idp, env: { IMAGE_CONCURRENCY: '1' } })
  t.teardown(test.close)
  await test.app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(test.app.server.address() as { port: number }).port}`
  const put = async (path: string, body: Buffer) => t.equal((await fetch(`${base}/api/raw/${path}`, { method: 'PUT', headers: alice, body: body as BodyInit })).status, 200)
  const image = async (path: string, query: string) => {
    const answer = await fetch(`${base}/api/images/${path}?${query}`, { headers: alice })
    return { answer, bytes: Buffer.from(await answer.arrayBuffer()) }
  }
  const noise = await sharp({ create: { width: 2000, height: 2000, channels: 3, background: '#888', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).png().toBuffer()
  await put('noise.png', noise)
  // One transform runs and four wait; of twelve asked at once, the rest are refused.
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => image('noise.png', `width=${100 + i}&format=avif`)))
  const statuses = answers.map(({ answer }) => answer.status)
  t.equal(statuses.filter((status) => status === 200).length, 5, `one running and four waiting were made: ${statuses}`)
  for (const { answer, bytes } of answers.filter(({ answer }) => answer.status === 503)) {
    t.equal(answer.headers.get('retry-after'), '5')
    t.match(JSON.parse(bytes.toString()).error, /too many image transforms/)
  }
})

t.test('twenty 40-megapixel transforms at once: memory bounded, /health answering throughout', async (t) => {
  const service = await startService(t)
  const headers = service.auth
  const photo = await sharp({ create: { width: 8000, height: 5000, channels: 3, background: '#777', noise: { type: 'gaussian', mean: 120, sigma: 30 } } }).jpeg({ quality: 80 }).toBuffer()
  t.equal((await fetch(`${service.url}/api/raw/photo.jpg`, { method: 'PUT', headers, body: photo as BodyInit })).status, 200)
  // Warm: the transform's code and libvips loaded, as in a service that has served before.
  t.equal((await fetch(`${service.url}/api/images/photo.jpg?width=16`, { headers })).status, 200)
  const rss = sampleRss(service.server.child.pid!)
  let slowest = 0
  let flooding = true
  const health = (async () => {
    while (flooding) {
      const { ms, result } = await timed(() => fetch(`${service.url}/health`))
      t.equal(result.status, 200)
      slowest = Math.max(slowest, ms)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })()
  const statuses = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
    const answer = await fetch(`${service.url}/api/images/photo.jpg?width=${200 + i}&format=webp`, { headers })
    await answer.arrayBuffer()
    return answer.status
  }))
  flooding = false
  await health
  const { growthBytes } = rss.stop()
  t.ok(statuses.every((status) => status === 200 || status === 503), `made or refused: ${statuses}`)
  t.ok(statuses.filter((status) => status === 200).length >= 10, 'those in line were made')
  t.ok(growthBytes <= 256 * 1024 * 1024, `RSS grew ${Math.round(growthBytes / 1048576)} MiB (at most 256)`)
  t.ok(slowest < 1000, `/health answered within ${Math.round(slowest)} ms`)
})
