// The change journal (issue 34): writes with a webhook against without, what 1,000 waiting long-polls
// cost one instance, and how soon a change on one PostgreSQL instance wakes a long-poll on another.
import { readFile } from 'node:fs/promises'
import { Agent, createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { StreamingTarget } from './streaming.js'

async function rssBytes (pid: number) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024
}

const base = (target: StreamingTarget) => `http://127.0.0.1:${target.port}`

async function latestCursor (target: StreamingTarget) {
  return (await (await fetch(`${base(target)}/api/changes/latest`, { headers: target.headers })).json() as { cursor: string }).cursor
}

/** A GET of the journal after `cursor`, waiting up to `seconds`; resolves with when it was answered and how many changes it had. */
function longPoll (target: StreamingTarget, cursor: string, seconds: number, agent?: Agent) {
  return new Promise<{ at: number, changes: number }>((resolve, reject) => {
    request(`${base(target)}/api/changes?cursor=${cursor}&wait=${seconds}`, { headers: target.headers, agent }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => {
        if (response.statusCode !== 200) return reject(new Error(`GET /api/changes: ${response.statusCode}`))
        resolve({ at: performance.now(), changes: (JSON.parse(Buffer.concat(chunks).toString()) as { changes: unknown[] }).changes.length })
      })
    }).on('error', reject).end()
  })
}

const put = async (target: StreamingTarget, path: string) => {
  const answer = await fetch(`${base(target)}/api/raw/${path}`, { method: 'PUT', headers: { ...target.headers, 'content-type': 'text/plain' }, body: 'x' })
  if (answer.status !== 200) throw new Error(`PUT ${path}: ${answer.status}`)
}

/** The instance's RSS growth while `count` long-polls wait, and whether one change wakes them all. */
export async function waitingPolls (target: StreamingTarget, count: number) {
  const cursor = await latestCursor(target)
  const agent = new Agent({ keepAlive: false, maxSockets: count })
  const before = await rssBytes(target.pid)
  const polls = Array.from({ length: count }, () => longPoll(target, cursor, 120, agent))
  // Time for every request to arrive and wait.
  await new Promise((resolve) => setTimeout(resolve, 3000))
  const holding = await rssBytes(target.pid)
  await put(target, 'bench/changes/wake-all.txt')
  const answers = await Promise.all(polls)
  agent.destroy()
  return { growth: holding - before, holding, woken: answers.filter((answer) => answer.changes > 0).length }
}

/** Milliseconds from a write answered on `writer` to a long-poll answered on `waiter`, `rounds` times. */
export async function wakeAcross (writer: StreamingTarget, waiter: StreamingTarget, rounds: number) {
  let cursor = await latestCursor(waiter)
  const delays: number[] = []
  for (let round = 0; round < rounds; round++) {
    const poll = longPoll(waiter, cursor, 30)
    await new Promise((resolve) => setTimeout(resolve, 50))
    await put(writer, `bench/changes/${round}.txt`)
    const written = performance.now()
    const { at } = await poll
    delays.push(Math.max(0, at - written))
    cursor = await latestCursor(waiter)
  }
  return delays.sort((a, b) => a - b)
}

/** A webhook receiver on loopback that answers 204 at once and counts what it got. */
export async function startCountingReceiver () {
  let count = 0
  const server = createServer((incoming, answer) => {
    incoming.resume().on('end', () => {
      count++
      answer.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => count,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) })
  }
}
