// DESIGN.md §9 under attack: a legitimate key's median latency while 16 connections send wrong
// secrets for its key id, against its quiet median; and a burst of 50 first uses of one cold key.
import autocannon from 'autocannon'
import { Agent, get } from 'node:http'
import { performance } from 'node:perf_hooks'
import { keyChecksum } from '../keys/api-key.js'

const ATTACK_CONNECTIONS = 16

/** Well-formed keys for `key`'s id with made-up secrets: each one needs a check. */
function wrongSecrets (key: string, prefix = 'stow') {
  const id = key.slice(prefix.length + 1, prefix.length + 11)
  let n = 0
  return () => {
    const secret = String(n++).padStart(32, 'Z')
    return `${prefix}_${id}${secret}${keyChecksum(prefix, id, secret)}`
  }
}

/** Median and mean latency of one client sending requests one after another on a kept-alive
 *  connection; autocannon rounds latencies to whole milliseconds, too coarse here. */
async function latency (url: string, key: string, seconds: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const samples: number[] = []
  const until = performance.now() + seconds * 1000
  try {
    while (performance.now() < until) {
      const started = performance.now()
      const status = await new Promise<number>((resolve, reject) => {
        get(url, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
          res.resume()
          res.once('end', () => resolve(res.statusCode ?? 0))
        }).once('error', reject)
      })
      if (status !== 200) throw new Error(`the legitimate key got ${status}`)
      samples.push(performance.now() - started)
    }
  } finally {
    agent.destroy()
  }
  samples.sort((a, b) => a - b)
  return { median: samples[Math.floor(samples.length / 2)], mean: samples.reduce((a, b) => a + b, 0) / samples.length }
}

export async function measureAttack (base: string, legitimateKey: string, seconds: number) {
  const url = `${base}/api/auth/credentials`
  await latency(url, legitimateKey, 1)
  const quiet = await latency(url, legitimateKey, seconds)
  const nextWrong = wrongSecrets(legitimateKey)
  const attack = autocannon({
    url,
    connections: ATTACK_CONNECTIONS,
    duration: seconds + 2,
    requests: [{ setupRequest: (request) => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${nextWrong()}` } }) }]
  })
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const underAttack = await latency(url, legitimateKey, seconds)
  const attackResult = await attack
  return { quiet, underAttack, attackRequests: attackResult.requests.total, attackStatuses: attackResult.statusCodeStats }
}

/** Wall time of one first use of a fresh key, and of 50 concurrent first uses of another. */
export async function measureColdBurst (base: string, createKey: () => Promise<string>) {
  const url = `${base}/api/auth/credentials`
  const firstUse = async (key: string, times: number) => {
    const started = performance.now()
    const answers = await Promise.all(Array.from({ length: times }, () => fetch(url, { headers: { authorization: `Bearer ${key}` } })))
    if (answers.some((res) => res.status !== 200)) throw new Error('a fresh key was refused')
    return performance.now() - started
  }
  const singles: number[] = []
  const bursts: number[] = []
  for (let round = 0; round < 3; round++) {
    singles.push(await firstUse(await createKey(), 1))
    bursts.push(await firstUse(await createKey(), 50))
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[1]
  return { single: median(singles), burst: median(bursts) }
}
