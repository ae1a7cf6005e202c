import { createHash, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { request, type IncomingMessage } from 'node:http'

const MIB = 1024 * 1024
const block = randomBytes(MIB)

/** `mib` MiB of varied bytes, made as they are read: no test holds a large file in memory. */
export function * generatedFile (mib: number): Generator<Buffer> {
  for (let i = 0; i < mib; i++) {
    const chunk = Buffer.from(block)
    chunk.writeUInt32BE(i, (i * 4099) % (MIB - 4))
    yield chunk
  }
}

export function sha256Of (chunks: Iterable<Buffer>): string {
  const hash = createHash('sha256')
  for (const chunk of chunks) hash.update(chunk)
  return hash.digest('hex')
}

/** The resident memory of a process, sampled until stop(): the peak growth over its size at start. */
export function sampleRss (pid: number) {
  const status = () => { try { return readFileSync(`/proc/${pid}/status`, 'utf8') } catch { return '' } } // gone once it has exited
  const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(status())?.[1] ?? 0) * 1024
  const start = rss()
  let peak = start
  const timer = setInterval(() => { peak = Math.max(peak, rss()) }, 20)
  return {
    stop () {
      clearInterval(timer)
      peak = Math.max(peak, rss())
      return { startBytes: start, growthBytes: peak - start }
    }
  }
}

export interface RawTarget { port: number, path: string, headers: Record<string, string> }

/** A PUT over a real socket, its length declared, the body written with backpressure. */
export function putStream (target: RawTarget, chunks: Iterable<Buffer>, length: number): Promise<{ status: number, body: string, headers: IncomingMessage['headers'] }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1', port: target.port, method: 'PUT', path: target.path, headers: { ...target.headers, 'content-length': String(length) }
    }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk }).on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }))
    })
    req.on('error', reject)
    const iterator = chunks[Symbol.iterator]()
    const writeMore = () => {
      for (let next = iterator.next(); !next.done; next = iterator.next()) {
        if (!req.write(next.value)) return void req.once('drain', writeMore)
      }
      req.end()
    }
    writeMore()
  })
}

/** A GET over a real socket; the answer's body is hashed as it arrives, never held. */
export function getStream (target: RawTarget): Promise<{ status: number, headers: IncomingMessage['headers'], sha256: string, bytes: number }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: target.port, path: target.path, headers: target.headers }, (res) => {
      const hash = createHash('sha256')
      let bytes = 0
      res.on('data', (chunk: Buffer) => { hash.update(chunk); bytes += chunk.length })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, sha256: hash.digest('hex'), bytes }))
      res.on('error', reject)
    }).on('error', reject).end()
  })
}
