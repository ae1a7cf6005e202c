// The index of names (issue 45): listings and HEADs read from the index against the same reads from
// the store (as every release before the index made them), in one run and one service: a user whose
// names are indexed beside one whose build is held back (a claimed, unfinished build in the
// database: their reads go to the store). Node:http loops of 10 connections, alternating rounds.
// And a search over 100,000 names of one user, its median time.
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import type { Kysely } from 'kysely'
import { foldCase, parentOf } from '../db/names.js'
import type { Database } from '../db/types.js'
import { alternating, loop } from './http-loop.js'

export const LISTED_FILES = 1000
const SEARCHED_NAMES = 100_000

export interface IndexTarget { port: number, s3Port: number, headers: Record<string, string> }

/** Each user's API key (Bearer and Basic) and S3 client. */
async function callerOf (target: IndexTarget, headers: Record<string, string>) {
  const base = `http://127.0.0.1:${target.port}`
  const post = async (path: string) => {
    const made = await fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' })
    if (made.status !== 201) throw new Error(`POST ${path}: ${made.status}`)
    return await made.json() as Record<string, string>
  }
  const { key } = await post('/api/keys')
  const { accessKeyId, secretAccessKey } = await post('/api/s3-credentials')
  return {
    bearer: { authorization: `Bearer ${key}` },
    basic: { authorization: `Basic ${Buffer.from(`bench:${key}`).toString('base64')}` },
    s3: new S3Client({ endpoint: `http://127.0.0.1:${target.s3Port}`, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } })
  }
}

/** LISTED_FILES small files in the folder `list/` of the caller with `headers`, 16 at a time. */
export async function fillListed (port: number, headers: Record<string, string>) {
  const names = Array.from({ length: LISTED_FILES }, (_, i) => `list/k${String(i).padStart(4, '0')}.txt`)
  for (let i = 0; i < names.length; i += 16) {
    const answers = await Promise.all(names.slice(i, i + 16).map((name) => fetch(`http://127.0.0.1:${port}/api/raw/${name}`, { method: 'PUT', headers: { ...headers, 'content-type': 'text/plain' }, body: name })))
    if (answers.some((answer) => answer.status !== 200)) throw new Error('could not fill the listed folder')
  }
}

/** Requests/s of each read, for the indexed user and the one read from the store. */
export async function indexAgainstStore (target: IndexTarget, indexed: Record<string, string>, fromStore: Record<string, string>) {
  const callers = [await callerOf(target, indexed), await callerOf(target, fromStore)]
  const base = `http://127.0.0.1:${target.port}`
  const urls = await Promise.all(callers.map(async ({ s3 }) => ({
    list: await getSignedUrl(s3, new ListObjectsV2Command({ Bucket: 'list', MaxKeys: 1000 }), { expiresIn: 3600 }),
    head: await getSignedUrl(s3, new HeadObjectCommand({ Bucket: 'list', Key: 'k0500.txt' }), { expiresIn: 3600 })
  })))
  const compare = (make: (caller: number) => (seconds: number) => Promise<number>) => alternating([() => make(0), () => make(1)])
  const results = {
    s3List: await compare((i) => (seconds) => loop(urls[i].list, {}, seconds)),
    apiPage: await compare((i) => (seconds) => loop(`${base}/api/files?prefix=list/&delimiter=/`, { headers: callers[i].bearer }, seconds)),
    propfind: await compare((i) => (seconds) => loop(`${base}/dav/list/`, { method: 'PROPFIND', headers: { ...callers[i].basic, depth: '1' } }, seconds)),
    s3Head: await compare((i) => (seconds) => loop(urls[i].head, { method: 'HEAD' }, seconds))
  }
  for (const { s3 } of callers) s3.destroy()
  return results
}

/** SEARCHED_NAMES names of `userId` straight into the index (a search reads nothing else). */
export async function fillSearched (db: Kysely<Database>, userId: string, root: string) {
  const now = new Date().toISOString()
  for (let at = 0; at < SEARCHED_NAMES; at += 500) {
    const rows = Array.from({ length: 500 }, (_, i) => {
      const n = at + i
      const key = `${root}archive/${String(n % 100).padStart(2, '0')}/report-${n}.pdf`
      return { key, user_id: userId, parent: parentOf(key), folder: 0, made: 1, size: n, etag: '"0"', content_type: 'application/pdf', last_modified: now, folded: foldCase(key) }
    })
    const folders = [...new Set(rows.map((row) => row.parent))].map((key) => ({ key, user_id: userId, parent: parentOf(key), folder: 1, made: 0, size: 0 }))
    await db.insertInto('names').values([...rows, ...folders, { key: `${root}archive/`, user_id: userId, parent: root, folder: 1, made: 0, size: 0 }])
      .onConflict((conflict) => conflict.column('key').doNothing()).execute()
  }
  return SEARCHED_NAMES
}

/** The median milliseconds of a search answered, over `times` searches of different texts. */
export async function searchMedian (port: number, headers: Record<string, string>, times = 41) {
  const spent: number[] = []
  for (let i = 0; i < times; i++) {
    const started = performance.now()
    const answer = await fetch(`http://127.0.0.1:${port}/api/search?q=${encodeURIComponent(`report-${1000 + i * 997}`)}`, { headers })
    if (answer.status !== 200) throw new Error(`search: ${answer.status}`)
    // A search that finds nothing would measure nothing.
    if ((await answer.json() as { files: unknown[] }).files.length === 0) throw new Error('the search found nothing')
    spent.push(performance.now() - started)
  }
  return spent.sort((a, b) => a - b)[Math.floor(times / 2)]
}
