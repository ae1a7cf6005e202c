import bcrypt from 'bcrypt'
import { createApiKeyRepository } from '../../db/api-keys.js'
import { openDatabase } from '../../db/dialect.js'
import { migrateToLatest } from '../../db/migrations.js'
import { createKeyService } from '../../keys/service.js'

/** A key written straight into the database at `url`, for a server running in another process. */
export async function createKeyIn (url: string, userId = 'alice'): Promise<string> {
  const db = openDatabase(url)
  try {
    await migrateToLatest(db)
    const keys = createKeyService({ repository: createApiKeyRepository(db), prefix: 'stow', bcryptCost: 4 })
    return (await keys.create({ userId, orgId: null })).key
  } finally {
    await db.destroy()
  }
}

/** Records bcrypt.compare calls made while `work` runs, and how many ran at once at most. */
export async function watchCompares (work: () => Promise<unknown>) {
  const original = bcrypt.compare
  const seen = { calls: 0, running: 0, maxRunning: 0 }
  ;(bcrypt as { compare: unknown }).compare = async (...args: Parameters<typeof original>) => {
    seen.calls++
    seen.maxRunning = Math.max(seen.maxRunning, ++seen.running)
    try {
      return await original(...args)
    } finally {
      seen.running--
    }
  }
  try {
    await work()
  } finally {
    ;(bcrypt as { compare: unknown }).compare = original
  }
  return seen
}
