import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../db/dialect.js'
import { createKeyLocks } from '../db/key-locks.js'
import { migrateToLatest } from '../db/migrations.js'
import { createUsageRepository } from '../db/usage.js'
import { createVersionRepository } from '../db/versions.js'
import { createFileService } from '../storage/files.js'
import { createFsStore } from '../storage/fs-store.js'
import { createQuotas } from '../storage/quotas.js'
import { createTestDatabase } from './helpers/db.js'

const DAY = 86_400_000

t.test('the sweep thins on the schedule by an injected clock, and two instances sweeping at once remove each version once', async (t) => {
  const database = await createTestDatabase()
  const db = openDatabase(database.url)
  const dir = await mkdtemp(join(tmpdir(), 'stowage-sweep-'))
  t.teardown(async () => { await db.destroy(); await database.drop(); await rm(dir, { recursive: true, force: true }) })
  await migrateToLatest(db)
  const store = createFsStore(dir)
  await store.open!()
  let clock = Date.parse('2026-11-24T00:00:00Z')
  const instance = () => createFileService({
    store, root: 'files', bucket: 'b', region: 'r', maxFileBytes: 1024, maxUploadBytes: 1024, locks: createKeyLocks(db),
    quotas: createQuotas(createUsageRepository(db, null)),
    versions: { repository: createVersionRepository(db), retentionMs: 30 * DAY, now: () => new Date(clock) }
  })
  const [one, two] = [instance(), instance()]
  const owner = { userId: 'editor', orgId: null }
  // A save every second for two minutes: 120 replacements, each kept.
  for (let save = 0; save <= 120; save++) {
    await one.write(owner, 'doc.txt', [Buffer.from(`save ${save}`)], { contentType: 'text/plain' })
    clock += 1000
  }
  const listed = async () => {
    const versions = []
    let token: string | undefined
    do {
      const page = await one.versions!.list('editor', 'doc.txt', token)
      versions.push(...page.versions)
      token = page.continuationToken
    } while (token)
    return versions
  }
  t.equal((await listed()).length, 120)

  const removed = await Promise.all([one.versions!.sweep(), two.versions!.sweep()])
  // Ages 1 to 120 s: 5 in the first 10 s, 5 more in the first minute, one for each minute after.
  t.equal(removed[0] + removed[1], 108, `each removed once (${removed.join(' + ')})`)
  const kept = await listed()
  t.equal(kept.length, 12)
  const { usage } = await createUsageRepository(db, null).read(owner)
  t.equal(usage.versionBytes, kept.reduce((bytes, version) => bytes + version.size, 0), 'usage counts what is left, exactly')

  clock += 31 * DAY
  t.equal(await one.versions!.sweep(), 12, 'past the retention every version goes')
  t.same(await listed(), [])
  t.equal((await createUsageRepository(db, null).read(owner)).usage.versionBytes, 0)
})
