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
