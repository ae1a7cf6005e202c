import t, { type Test } from 'tap'
import { startS3Server } from './helpers/s3.js'
import { startService } from './helpers/service.js'

// Two server processes on one database and one store, as two instances behind a load balancer.
// Across processes only PostgreSQL's advisory locks keep writers apart: instances sharing a SQLite
// file do not exclude each other (README), so this runs with TEST_DATABASE_URL.
const skip = process.env.TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL (PostgreSQL): SQLite excludes writers in one process only'

const s3 = skip ? undefined : await startS3Server()
t.teardown(() => s3?.close())

async function twoInstances (t: Test, driver: 'fs' | 's3') {
  const { servers, auth } = await startService(t, { driver, s3, instances: 2, env: { LOG_LEVEL: 'warn' } })
  const request = (instance: number, method: string, path: string, headers: Record<string, string> = {}, body?: string | Uint8Array) =>
    fetch(`${servers[instance % 2].url}${path}`, { method, headers: { ...auth, ...headers }, body: body as BodyInit | undefined })
  return { request }
}

const WRITERS = 10
// Large enough that the writers' bodies are still arriving while the first ones publish.
const body = (i: number) => Buffer.alloc(256 * 1024, String(i))

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: across two instances, of writers holding one ETag exactly one wins, and of If-None-Match: * creators exactly one`, { skip }, async (t) => {
    const { request } = await twoInstances(t, driver)
    const first = await request(0, 'PUT', '/api/raw/shared.txt', {}, 'start')
    const etag = first.headers.get('etag')!
    const raced = await Promise.all(Array.from({ length: WRITERS }, (_, i) => request(i, 'PUT', '/api/raw/shared.txt', { 'if-match': etag }, body(i))))
    t.same(raced.map((answer) => answer.status).filter((status) => status === 200).length, 1, 'one If-Match writer won')
    t.same(raced.filter((answer) => answer.status !== 200).map((answer) => answer.status), Array(WRITERS - 1).fill(412))
    const winner = raced.findIndex((answer) => answer.status === 200)
    const stored = await request(1, 'GET', '/api/raw/shared.txt')
    t.same(Buffer.from(await stored.arrayBuffer()), body(winner), 'the winner\'s body is stored, whole')

    const json = (i: number) => JSON.stringify({ content: body(i).toString('base64') })
    const created = await Promise.all(Array.from({ length: WRITERS }, (_, i) =>
      i % 2 === 0
        ? request(i, 'PUT', '/api/raw/new.txt', { 'if-none-match': '*' }, body(i))
        : request(i, 'PUT', '/api/files/new.txt', { 'if-none-match': '*', 'content-type': 'application/json' }, json(i))))
    t.same(created.filter((answer) => answer.status === 200).length, 1, 'one creator won, raw and JSON alike')
    t.same(created.filter((answer) => answer.status !== 200).map((answer) => answer.status), Array(WRITERS - 1).fill(412))

    const current = (await request(0, 'HEAD', '/api/raw/new.txt')).headers.get('etag')!
    const deletes = await Promise.all([0, 1, 2, 3].map((i) => request(i, 'DELETE', '/api/raw/new.txt', { 'if-match': current })))
    t.same(deletes.map((answer) => answer.status).sort(), [204, 412, 412, 412], 'one conditional delete wins')
  })

  t.test(`${driver}: across two instances, a move racing If-Match writers of its source: exactly one wins, nothing is lost`, { skip }, async (t) => {
    const { request } = await twoInstances(t, driver)
    const etag = (await request(0, 'PUT', '/api/raw/race/source.txt', {}, 'original')).headers.get('etag')!
    const move = () => request(0, 'POST', '/api/moves', { 'content-type': 'application/json', 'if-match': etag }, JSON.stringify({ from: 'race/source.txt', to: 'race/moved.txt' }))
    const [moved, ...writes] = await Promise.all([move(), ...Array.from({ length: 4 }, (_, i) => request(1, 'PUT', '/api/raw/race/source.txt', { 'if-match': etag }, body(i)))])
    const winners = [moved, ...writes].filter((answer) => answer.status === 200)
    t.equal(winners.length, 1, `one won (move ${moved.status}, writes ${writes.map((answer) => answer.status)})`)
    t.same([moved, ...writes].filter((answer) => answer.status !== 200).map((answer) => answer.status), [412, 412, 412, 412])
    const [source, destination] = await Promise.all(['race/source.txt', 'race/moved.txt'].map((path) => request(1, 'GET', `/api/raw/${path}`)))
    if (moved.status === 200) {
      t.equal(await destination.text(), 'original')
      t.equal(source.status, 404)
    } else {
      const winner = writes.findIndex((answer) => answer.status === 200)
      t.same(Buffer.from(await source.arrayBuffer()), body(winner))
      t.equal(destination.status, 404, 'a refused move leaves nothing behind')
    }

    // Unconditional writes during moves: each write's body ends at the source or, moved, at the destination.
    for (let round = 0; round < 5; round++) {
      await request(0, 'PUT', `/api/raw/loop/${round}.txt`, {}, 'before')
      const [move, write] = await Promise.all([
        request(0, 'POST', '/api/moves', { 'content-type': 'application/json' }, JSON.stringify({ from: `loop/${round}.txt`, to: `loop/${round}-moved.txt` })),
        request(1, 'PUT', `/api/raw/loop/${round}.txt`, {}, body(round))
      ])
      t.equal(move.status, 200)
      t.equal(write.status, 200)
      const found = await Promise.all([`loop/${round}.txt`, `loop/${round}-moved.txt`].map(async (path) => {
        const answer = await request(1, 'GET', `/api/raw/${path}`)
        return answer.status === 200 && Buffer.from(await answer.arrayBuffer()).equals(body(round))
      }))
      t.ok(found.includes(true), `round ${round}: the write is ${found[0] ? 'at the source' : 'moved'}`)
    }
  })
}
