import { sql, type Kysely, type Selectable } from 'kysely'
import { beginsWith, isPostgres } from './dialect.js'
import type { Database, WebdavLocksTable } from './types.js'

/** A dead property of a file or folder: its name and its content as XML. */
export interface DeadProperty {
  namespace: string
  name: string
  value: string
}

export type PropertyName = Pick<DeadProperty, 'namespace' | 'name'>

/** What a file's dead properties weigh: names and values, as stored. */
export const weightOf = (properties: DeadProperty[]) =>
  properties.reduce((sum, { namespace, name, value }) => sum + Buffer.byteLength(namespace) + Buffer.byteLength(name) + Buffer.byteLength(value), 0)

/** `path` with `from` at its start replaced by `to`, in SQL. */
const rebased = (from: string, to: string) => sql<string>`cast(${to} as text) || substr(path, length(cast(${from} as text)) + 1)`

export function createDeadPropertyRepository (db: Kysely<Database>) {
  return {
    async list (userId: string, path: string): Promise<DeadProperty[]> {
      return await db.selectFrom('webdav_properties').select(['namespace', 'name', 'value']).where('user_id', '=', userId).where('path', '=', path).orderBy('namespace').orderBy('name').execute()
    },

    /** The properties of each of `paths` (a folder's page of entries: one query). */
    async listEach (userId: string, paths: string[]): Promise<Map<string, DeadProperty[]>> {
      const found = new Map<string, DeadProperty[]>()
      if (paths.length === 0) return found
      const rows = await db.selectFrom('webdav_properties').select(['path', 'namespace', 'name', 'value']).where('user_id', '=', userId).where('path', 'in', paths).execute()
      for (const { path, ...property } of rows) found.set(path, [...found.get(path) ?? [], property])
      return found
    },

    /** Sets and removes in one transaction, in order; `admit` sees the result and may refuse it (throws). */
    async patch (userId: string, path: string, changes: Array<{ set?: DeadProperty, remove?: PropertyName }>, admit: (after: DeadProperty[]) => void): Promise<void> {
      await db.transaction().execute(async (trx) => {
        for (const { set, remove } of changes) {
          const name = set ?? remove!
          await trx.deleteFrom('webdav_properties').where('user_id', '=', userId).where('path', '=', path).where('namespace', '=', name.namespace).where('name', '=', name.name).execute()
          if (set) await trx.insertInto('webdav_properties').values({ user_id: userId, path, ...set }).execute()
        }
        admit(await trx.selectFrom('webdav_properties').select(['namespace', 'name', 'value']).where('user_id', '=', userId).where('path', '=', path).execute())
      })
    },

    /** The properties of `from` (and, for a folder unless not `deep`, of everything under it) copied to `to`, replacing what `to` had. */
    async copy (userId: string, from: string, to: string, { deep = true } = {}): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await removeAt(trx, userId, to)
        const under = from.endsWith('/') && deep ? beginsWith('path', from) : sql<boolean>`path = ${from}`
        await trx.insertInto('webdav_properties').columns(['user_id', 'path', 'namespace', 'name', 'value'])
          .expression(trx.selectFrom('webdav_properties').select([sql<string>`cast(${userId} as text)`.as('user_id'), rebased(from, to).as('path'), 'namespace', 'name', 'value'])
            .where('user_id', '=', userId).where(under))
          .execute()
      })
    },

    /** The properties of a moved folder and of the folders under it (its files' follow them by the journal). */
    async moveFolders (userId: string, from: string, to: string): Promise<void> {
      await db.updateTable('webdav_properties').set({ path: rebased(from, to) }).where('user_id', '=', userId).where(beginsWith('path', from)).where('path', 'like', '%/').execute()
    },

    /** The properties of `path` (a folder's: and of everything under it) gone. */
    async remove (userId: string, path: string): Promise<void> {
      await removeAt(db, userId, path)
    }
  }
}

async function removeAt (db: Kysely<Database>, userId: string, path: string) {
  const at = path.endsWith('/') || path === '' ? beginsWith('path', path) : sql<boolean>`path = ${path}`
  await db.deleteFrom('webdav_properties').where('user_id', '=', userId).where(at).execute()
}

/**
 * A file's dead properties follow it wherever it goes, by any route: run in the journal's
 * transaction, so a delete takes them and a move carries them. (A replaced file keeps them, as
 * WebDAV servers do.)
 */
export async function followDeadProperties (trx: Kysely<Database>, change: { userId: string, op: string, key: string, from?: string }): Promise<void> {
  const at = (path: string) => trx.deleteFrom('webdav_properties').where('user_id', '=', change.userId).where('path', '=', path)
  if (change.op === 'delete' || change.op === 'folder-delete') await at(change.key).execute()
  if (change.op === 'move' && change.from !== undefined) {
    await at(change.key).execute()
    await trx.updateTable('webdav_properties').set({ path: change.key }).where('user_id', '=', change.userId).where('path', '=', change.from).execute()
  }
}

/** A write lock of WebDAV. */
export interface DavLock {
  token: string
  /** Whose files it is held in (through a mount: the owner's), and the path among them. */
  userId: string
  path: string
  /** Who took it: `userId`, or a grantee through the share `shareId`. */
  takenBy: string
  shareId?: string
  depth: '0' | 'infinity'
  scope: 'exclusive' | 'shared'
  owner: string
  timeoutSeconds: number
  expiresAt: Date
}

const lockOf = (row: Selectable<WebdavLocksTable>): DavLock => ({
  token: row.token,
  userId: row.user_id,
  path: row.path,
  depth: row.depth,
  scope: row.scope,
  owner: row.owner,
  timeoutSeconds: Number(row.timeout_seconds),
  expiresAt: new Date(row.expires_at),
  takenBy: row.taken_by ?? row.user_id,
  ...(row.share_id === null ? {} : { shareId: row.share_id })
})

/** Which locks bear on a path: those at any of `at` (a path and its folders), and those under the folder `under`. */
export interface LockScope { at: string[], under?: string }

export function createDavLockRepository (db: Kysely<Database>, now = () => new Date()) {
  const postgres = isPostgres(db)
  const held = async (trx: Kysely<Database>, userId: string, { at, under }: LockScope) => {
    const rows = await trx.selectFrom('webdav_locks').selectAll().where('user_id', '=', userId).where('expires_at', '>', now().toISOString())
      .where((where) => under === undefined ? where('path', 'in', at) : where.or([where('path', 'in', at), beginsWith('path', under)]))
      .execute()
    return rows.map(lockOf)
  }
  return {
    held: (userId: string, scope: LockScope) => held(db, userId, scope),

    /** Takes `lock` unless `conflicts` says one of the locks held in `scope` forbids it: both in one
     *  transaction (on PostgreSQL under the user's advisory lock), so two instances never both lock. */
    async acquire (lock: DavLock, scope: LockScope, conflicts: (held: DavLock[]) => boolean): Promise<boolean> {
      return await db.transaction().execute(async (trx) => {
        if (postgres) await sql`select pg_advisory_xact_lock(hashtextextended(${`stowage_dav_locks:${lock.userId}`}, 0))`.execute(trx)
        if (conflicts(await held(trx, lock.userId, scope))) return false
        await trx.insertInto('webdav_locks').values({
          token: lock.token, user_id: lock.userId, path: lock.path, depth: lock.depth, scope: lock.scope, owner: lock.owner,
          timeout_seconds: lock.timeoutSeconds, expires_at: lock.expiresAt.toISOString(),
          taken_by: lock.takenBy === lock.userId ? null : lock.takenBy, share_id: lock.shareId ?? null
        }).execute()
        return true
      })
    },

    async find (userId: string, token: string): Promise<DavLock | undefined> {
      const row = await db.selectFrom('webdav_locks').selectAll().where('user_id', '=', userId).where('token', '=', token).where('expires_at', '>', now().toISOString()).executeTakeFirst()
      return row && lockOf(row)
    },

    async refresh (userId: string, token: string, timeoutSeconds: number, expiresAt: Date): Promise<void> {
      await db.updateTable('webdav_locks').set({ timeout_seconds: timeoutSeconds, expires_at: expiresAt.toISOString() }).where('user_id', '=', userId).where('token', '=', token).execute()
    },

    async release (userId: string, token: string): Promise<boolean> {
      const { numDeletedRows } = await db.deleteFrom('webdav_locks').where('user_id', '=', userId).where('token', '=', token).executeTakeFirst()
      return Number(numDeletedRows) > 0
    },

    /** The locks on `path` gone (a folder's: and those under it), as its resource is. */
    async releaseAt (userId: string, path: string): Promise<void> {
      const at = path.endsWith('/') || path === '' ? beginsWith('path', path) : sql<boolean>`path = ${path}`
      await db.deleteFrom('webdav_locks').where('user_id', '=', userId).where(at).execute()
    },

    /** Forgets expired locks; resolves with how many. */
    async sweep (): Promise<number> {
      const { numDeletedRows } = await db.deleteFrom('webdav_locks').where('expires_at', '<=', now().toISOString()).executeTakeFirst()
      return Number(numDeletedRows)
    }
  }
}

export type DeadPropertyRepository = ReturnType<typeof createDeadPropertyRepository>
export type DavLockRepository = ReturnType<typeof createDavLockRepository>
