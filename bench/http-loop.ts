// Throughput of one request, looped on kept-alive connections: how the front ends (S3, WebDAV) are
// compared with the raw routes, in alternating rounds of one run.
import { Agent, request } from 'node:http'

const CONNECTIONS = 10

/** Requests/s of `method url` (a function: a URL of its own each time) on CONNECTIONS kept-alive connections for `seconds`; any answer but a 2xx fails it. */
export async function loop (url: string | (() => string), { method = 'GET', headers = {}, body }: { method?: string, headers?: Record<string, string>, body?: Buffer }, seconds: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const until = performance.now() + seconds * 1000
  let done = 0
  const once = () => new Promise<void>((resolve, reject) => {
    const target = typeof url === 'string' ? url : url()
    request(target, { method, agent, headers }, (response) => {
      response.resume().on('end', () => response.statusCode! >= 200 && response.statusCode! < 300 ? resolve() : reject(new Error(`${method} ${target}: ${response.statusCode}`)))
    }).on('error', reject).end(body)
  })
  const started = performance.now()
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    for (; performance.now() < until; done++) await once()
  }))
  agent.destroy()
  return done / ((performance.now() - started) / 1000)
}

/** Requests/s of each of `loops`, in `rounds` alternating rounds after a warm-up of each. */
export async function alternating (loops: Array<() => (seconds: number) => Promise<number>>, rounds = 4, seconds = 3) {
  const runs = loops.map((make) => make())
  for (const run of runs) await run(1)
  const totals = runs.map(() => 0)
  for (let round = 0; round < rounds; round++) {
    for (let step = 0; step < runs.length; step++) {
      const i = (round + step) % runs.length
      totals[i] += await runs[i](seconds)
    }
  }
  return totals.map((total) => total / rounds)
}

