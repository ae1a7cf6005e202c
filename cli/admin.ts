import type { Kysely } from 'kysely'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../config.js'
import { createApiKeyRepository } from '../db/api-keys.js'
import { openDatabase } from '../db/dialect.js'
import { migrateToLatest } from '../db/migrations.js'
import { createOrganizationRepository } from '../db/organizations.js'
import { createPeopleRepository } from '../db/people.js'
import type { Database } from '../db/types.js'
import { createUsageRepository, orgSubject, userSubject } from '../db/usage.js'
import { createKeyService } from '../keys/service.js'
import { stowageOptions } from '../stowage-options.js'
import { createStore } from '../storage/store.js'
import { recountUsage } from '../storage/quotas.js'
import { createNameRepository } from '../db/names.js'
import { createNameIndex } from '../storage/names.js'
import { isSafeSegment } from '../storage/paths.js'
import { ADMIN_HELP } from './help.js'
import { UsageError, type CliIo } from './io.js'


async function withDatabase<T> (io: CliIo, init: boolean, work: (db: Kysely<Database>, config: ReturnType<typeof loadConfig>) => Promise<T>) {
  const config = loadConfig(io.env)
  const path = config.DATABASE_URL.startsWith('sqlite:') ? config.DATABASE_URL.slice('sqlite:'.length) : undefined
  // Run from another folder, the default ./data/stowage.db is another database: a key written
  // there would never work. Only --init creates one.
  if (!init && path !== undefined && path !== ':memory:' && !existsSync(path)) {
    throw new UsageError(`there is no database at ${resolve(path)}: run this where the service runs, set DATABASE_URL to its database, or add --init to create one`)
  }
  const db = openDatabase(config.DATABASE_URL)
  try {
    await migrateToLatest(db)
    return await work(db, config)
  } finally {
    await db.destroy()
  }
}

async function createOrg (args: string[], io: CliIo) {
  const { values } = parseArgs({
    args, options: { name: { type: 'string' }, 'aws-account-id': { type: 'string' }, 'auth-mode': { type: 'string', default: 'platform' }, json: { type: 'boolean' }, init: { type: 'boolean' } }
  })
  const { name, 'aws-account-id': awsAccountId, 'auth-mode': authMode } = values
  if (!name) throw new UsageError('create-org needs --name')
  if (authMode !== 'platform' && authMode !== 'aws-sso') throw new UsageError('--auth-mode is platform or aws-sso')
  if (awsAccountId !== undefined && !/^\d{12}$/.test(awsAccountId)) throw new UsageError('--aws-account-id is 12 digits')
  if (authMode === 'aws-sso' && !awsAccountId) throw new UsageError('an aws-sso organization needs --aws-account-id')
  const org = await withDatabase(io, values.init === true, (db) => createOrganizationRepository(db).create({ name, awsAccountId, authMode }))
  return { id: org.id, name: org.name, awsAccountId: org.aws_account_id, authMode: org.auth_mode, createdAt: org.created_at }
}

async function createKey (args: string[], io: CliIo) {
  const { values } = parseArgs({
    args, options: { user: { type: 'string' }, org: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' }, init: { type: 'boolean' } }
  })
  if (!values.user) throw new UsageError('create-key needs --user')
  if (!isSafeSegment(values.user)) throw new UsageError('--user must be a safe path segment (letters, digits, . _ @ | + = : ~ -)')
  const { user, org, name } = values
  return withDatabase(io, values.init === true, async (db, config) => {
    if (org !== undefined && !(await createOrganizationRepository(db).findById(org))) {
      throw new UsageError(`there is no organization ${org}: create it with "stowage admin create-org"`)
    }
    return createKeyService({
      repository: createApiKeyRepository(db), prefix: config.API_KEY_PREFIX, bcryptCost: config.API_KEY_BCRYPT_COST
    }).create({ userId: user, orgId: org ?? null, name })
  })
}

/** A person's email, name and organization, for people who sign in with API keys only (their
 *  identity provider's claims set them for everyone else): what a share is made with. */
async function person (args: string[], io: CliIo) {
  const { values } = parseArgs({
    args, options: { user: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, org: { type: 'string' }, json: { type: 'boolean' } }
  })
  const { user, email, name, org } = values
  if (!user) throw new UsageError('person needs --user, and --email, --name or --org to set')
  if (!isSafeSegment(user)) throw new UsageError('--user must be a safe path segment (letters, digits, . _ @ | + = : ~ -)')
  if (email === undefined && name === undefined && org === undefined) throw new UsageError('person needs --email, --name or --org to set')
  if (email !== undefined && !(email.length <= 320 && /^[^\s@]+@[^\s@]+$/.test(email))) throw new UsageError('--email is an address such as ada@example.org')
  if (name !== undefined && !(name.trim() !== '' && name.length <= 256)) throw new UsageError('--name is 1 to 256 characters')
  if (org !== undefined && !isSafeSegment(org)) throw new UsageError('--org must be a safe path segment, as the organization ids the sign-in gives')
  return withDatabase(io, false, async (db) => {
    const people = createPeopleRepository(db)
    const known = await people.find(user)
    return await people.note(user, { orgId: org ?? known?.orgId ?? null, email, name: name?.trim() })
  })
}

async function setQuota (args: string[], io: CliIo) {
  const { values } = parseArgs({
    args, options: { user: { type: 'string' }, org: { type: 'string' }, bytes: { type: 'string' }, none: { type: 'boolean' }, json: { type: 'boolean' } }
  })
  const { user, org, bytes, none } = values
  if ((user === undefined) === (org === undefined)) throw new UsageError('set-quota needs --user U or --org O')
  if ((bytes === undefined) === (none !== true)) throw new UsageError('set-quota needs --bytes N, or --none to remove the quota set before')
  if (bytes !== undefined && !(/^\d{1,16}$/.test(bytes) && Number.isSafeInteger(Number(bytes)))) throw new UsageError('--bytes is a whole number of bytes, such as 10737418240 for 10 GiB')
  const subject = user !== undefined ? userSubject(user) : orgSubject(org as string)
  const quotaBytes = bytes === undefined ? null : Number(bytes)
  await withDatabase(io, false, (db) => createUsageRepository(db, null).setQuota(subject, quotaBytes))
  return { subject, quotaBytes }
}

async function usage (args: string[], io: CliIo) {
  const { values } = parseArgs({ args, options: { recount: { type: 'boolean' }, json: { type: 'boolean' } } })
  return withDatabase(io, false, async (db, config) => {
    const repository = createUsageRepository(db, config.QUOTA_BYTES ?? null)
    if (values.recount) {
      const { storage } = stowageOptions(config)
      const store = await createStore({ driver: 'fs', ...storage }, config.MAX_UPLOAD_BYTES)
      try {
        await recountUsage(store, config.STORAGE_ROOT, repository, createNameRepository(db))
      } finally {
        await store.close?.()
      }
    }
    return { defaultQuotaBytes: config.QUOTA_BYTES ?? null, ...await repository.all() }
  })
}

async function reindex (args: string[], io: CliIo) {
  const { values } = parseArgs({ args, options: { user: { type: 'string' }, json: { type: 'boolean' } } })
  if (values.user !== undefined && !isSafeSegment(values.user)) throw new UsageError('--user must be a safe path segment (letters, digits, . _ @ | + = : ~ -)')
  return withDatabase(io, false, async (db, config) => {
    const { storage } = stowageOptions(config)
    const store = await createStore({ driver: 'fs', ...storage }, config.MAX_UPLOAD_BYTES)
    try {
      const repository = createNameRepository(db)
      const names = createNameIndex({ repository, store, rootOf: (userId) => `users/${userId}/${config.STORAGE_ROOT}/` })
      const users = values.user !== undefined ? [values.user] : [...new Set([...await names.usersInStore(), ...await repository.users()])].sort()
      const differences = []
      for (const userId of users) differences.push({ userId, ...await names.reindex(userId) })
      return { users: differences }
    } finally {
      await store.close?.()
    }
  })
}

export async function runAdmin ([command, ...args]: string[], io: CliIo) {
  if (command === 'reindex') return reindex(args, io)
  if (command === 'create-org') return createOrg(args, io)
  if (command === 'create-key') return createKey(args, io)
  if (command === 'set-quota') return setQuota(args, io)
  if (command === 'person') return person(args, io)
  if (command === 'usage') return usage(args, io)
  throw new UsageError(command ? `unknown admin command "${command}"\n${ADMIN_HELP}` : ADMIN_HELP)
}
