import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createFsStore } from '../storage/fs-store.js'
import { createPublisher } from '../storage/publisher.js'

const FOLDERS = 100
const FILES_PER_FOLDER = 100
const REPEATS = 20

/** Mean time of a 100-key page of the fs driver at the start and at the end of 10,000 files:
 *  the cost of a page must not grow with the files before it. */
export async function measureFsListing () {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-bench-list-'))
  try {
    const store = createFsStore(dir)
    await store.open!()
    const publisher = createPublisher({ store })
    const prefix = 'users/bench/files/'
    const body = Buffer.from('x')
    for (let folder = 0; folder < FOLDERS; folder++) {
      const name = String(folder).padStart(3, '0')
      await Promise.all(Array.from({ length: FILES_PER_FOLDER }, (_, file) =>
        publisher.write(`${prefix}${name}/${String(file).padStart(3, '0')}.md`, [body], { contentType: 'text/markdown', maxBytes: 1 })))
    }
    const lastPageStart = `${prefix}${String(FOLDERS - 1).padStart(3, '0')}/${String(FILES_PER_FOLDER - 1 - 100).padStart(3, '0')}.md`
    const mean = async (startAfter?: string) => {
      const started = performance.now()
      for (let i = 0; i < REPEATS; i++) await store.list(prefix, { startAfter, limit: 100 })
      return (performance.now() - started) / REPEATS
    }
    await mean()
    return { first: await mean(), last: await mean(lastPageStart), files: FOLDERS * FILES_PER_FOLDER }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Mean time of one one-level page of 100 files in a folder that also holds a folder of `below`
 *  files (in folders of 1,000): a page reads one directory, so it must not grow with them. */
async function oneLevelPage (below: number) {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-bench-level-'))
  try {
    const store = createFsStore(dir)
    await store.open!()
    const publisher = createPublisher({ store })
    const prefix = 'users/bench/files/top/'
    const body = [Buffer.from('x')]
    const write = (key: string) => publisher.write(prefix + key, body, { contentType: 'text/plain', maxBytes: 1 })
    const keys = [
      ...Array.from({ length: 100 }, (_, i) => `${String(i).padStart(3, '0')}.txt`),
      ...Array.from({ length: below }, (_, i) => `deep/${Math.floor(i / 1000)}/${i}.txt`)
    ]
    for (let i = 0; i < keys.length; i += 256) await Promise.all(keys.slice(i, i + 256).map(write))
    const page = () => store.list(prefix, { limit: 100, delimiter: '/' })
    await page()
    const started = performance.now()
    for (let i = 0; i < REPEATS; i++) await page()
    return (performance.now() - started) / REPEATS
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** A one-level page with 100,000 files below it against one with 100. */
export async function measureOneLevelPages () {
  const few = await oneLevelPage(100)
  const many = await oneLevelPage(100_000)
  return { few, many }
}
