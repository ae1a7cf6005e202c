// First-use verification of fresh keys with 1 key stored versus 10,000: the cost must not grow with
// the number of keys (DESIGN.md §9).
import bcrypt from 'bcrypt'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createApiKeyRepository } from '../db/api-keys.js'
import { openDatabase } from '../db/dialect.js'
import { migrateToLatest } from '../db/migrations.js'
import { generateApiKey } from '../keys/api-key.js'
import { createKeyService } from '../keys/service.js'

const FRESH_KEYS = 20

async function firstUseMs (storedKeys: number): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-keybench-'))
  const db = openDatabase(`sqlite:${join(dir, 'keys.db')}`)
  try {
    await migrateToLatest(db)
    const filler = await bcrypt.hash('filler', 4)
    const createdAt = new Date().toISOString()
    for (let i = 0; i < storedKeys; i += 500) {
      const rows = Array.from({ length: Math.min(500, storedKeys - i) }, (_, j) => {
        const { id, start } = generateApiKey('stow')
        return { id, user_id: `user-${i + j}`, org_id: null, name: '', start, key_hash: filler, created_at: createdAt }
      })
      await db.insertInto('api_keys').values(rows).execute()
    }
    const keys = createKeyService({ repository: createApiKeyRepository(db), prefix: 'stow', bcryptCost: 10 })
    const fresh = []
    for (let i = 0; i < FRESH_KEYS; i++) fresh.push((await keys.create({ userId: 'bench', orgId: null })).key)
    const started = performance.now()
    for (const key of fresh) {
      if (!(await keys.verify(key))) throw new Error('a fresh key was refused')
    }
    return (performance.now() - started) / FRESH_KEYS
  } finally {
    await db.destroy()
    await rm(dir, { recursive: true, force: true })
  }
}

export async function measureKeyVerification () {
  const one = await firstUseMs(1)
  const many = await firstUseMs(10_000)
  return { one, many }
}
