import t from 'tap'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { startService } from './helpers/service.js'

const ROUNDS = 300
const CONCURRENCY = 16

t.test('two instances writing, deleting and reading one path on a shared fs folder: no 5xx, only whole versions', async (t) => {
  const { servers, key, storageDir } = await startService(t, { instances: 2 })

  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  // Each version's content type names it, so a body paired with another version's type shows.
  const version = (i: number) => ({ content: Buffer.alloc(1024 + i, `v${i}.`).toString('base64'), contentType: `text/x-v${i}` })
  const statuses = new Map<string, number>()
  const mismatches: string[] = []
  async function operate (i: number) {
    const url = `${servers[i % 2].url}/api/files/shared/deep/note.md`
    const op = ['PUT', 'DELETE', 'GET'][i % 3]
    const res = await fetch(url, op === 'PUT' ? { method: 'PUT', headers, body: JSON.stringify(version(i)) } : { method: op, headers })
    statuses.set(`${op} ${res.status}`, (statuses.get(`${op} ${res.status}`) ?? 0) + 1)
    if (op === 'GET' && res.status === 200) {
      const { content, contentType } = await res.json() as { content: string, contentType: string }
      const n = Number(/^text\/x-v(\d+)$/.exec(contentType)?.[1])
      if (content !== version(n).content) mismatches.push(`${contentType} came with another body`)
    } else {
      await res.arrayBuffer()
    }
  }
  let next = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < ROUNDS) await operate(next++)
  }))

  // A 5xx is rare and only under load: what the instances logged of it is the way to its cause.
  const failures = servers.flatMap((server) => server.logs.filter((entry) => Number(entry.level) >= 50))
  t.same(failures, [], 'no instance logged an error')
  t.same([...statuses.keys()].filter((status) => !/^(PUT 200|DELETE (204|404)|GET (200|404))$/.test(status)), [], `statuses: ${JSON.stringify(Object.fromEntries(statuses))}`)
  t.same(mismatches, [], 'every body came with its own content type')
  t.ok(statuses.get('PUT 200'), 'writes happened')
  t.same(await readdir(join(storageDir, '.tmp')), [], 'no temporary file is left')
  for (const server of servers) t.equal(server.child.exitCode, null, 'the instance is alive')
})
