import { sql, type Kysely } from 'kysely'
import { beginsWith, isPostgres, lookupOf, runPrepared } from './dialect.js'
import { unmount, WHOLE_ORG, type ShareRole } from './shares.js'
import { journalMounts, type MountChange } from './changes.js'
import type { Database } from './types.js'

/** A share as its grantee sees it: mounted at `name`, at the top of their tree (DESIGN §13). */
export interface Mount {
  shareId: string
  name: string
  ownerId: string
  ownerOrgId: string | null
  /** The owner's path of what is shared: a folder ends in "/". */
  path: string
  role: ShareRole
  createdAt: Date
  /** When it was mounted for this person: the owner's changes from then on are theirs to follow. */
  mountedAt: Date
  expiresAt?: Date
}

/** A mount as a listing of the top of a tree reads it: no dates. */
export type ListedMount = Pick<Mount, 'shareId' | 'name' | 'ownerId' | 'path' | 'role'>

interface MountRow {
  name: string
  id: string
  owner_id: string
  owner_org_id: string | null
  path: string
  role: ShareRole
  created_at: string
  mounted_at: string
  expires_at: string | null
}

const mountOf = (row: MountRow): Mount => ({
  shareId: row.id,
  name: row.name,
  ownerId: row.owner_id,
  ownerOrgId: row.owner_org_id,
  path: row.path,
  role: row.role,
  createdAt: new Date(row.created_at),
  mountedAt: new Date(row.mounted_at),
  ...(row.expires_at ? { expiresAt: new Date(row.expires_at) } : {})
})

const COLUMNS = ['m.name', 's.id', 's.owner_id', 's.owner_org_id', 's.path', 's.role', 's.created_at', 'm.created_at as mounted_at', 's.expires_at'] as const

/** What a listing reads of a mount (see ListedMount). */
const LISTED_COLUMNS = ['m.name', 's.id', 's.owner_id', 's.path', 's.role'] as const
const listedOf = (row: { name: string | null, id: string, owner_id: string, path: string, role: ShareRole }): ListedMount =>
  ({ shareId: row.id, name: row.name!, ownerId: row.owner_id, path: row.path, role: row.role })

/** The share (`s`) has not expired at `now`. */
const lasting = (now: string) => sql<boolean>`(s.expires_at is null or s.expires_at > ${now})`

/** A change of the owner's files, as a grantee's journal shows it. */
export interface ChangeSeen { op: string, key: string, from?: string, size?: number, etag?: string, contentType?: string }

/**
 * The owner's `change` as the grantee sees it through the mount `name` of the owner's `path`, or
 * undefined when it is not under what is shared: paths under the mount's name; a move into the
 * share is a put, one out of it a delete.
 */
export function seenThrough<T extends ChangeSeen> (change: T, mount: { name: string, path: string }): T | undefined {
  if (change.op === 'share' || change.op === 'unshare') return undefined
  const { from, ...written } = change
  const key = shownThrough(change.key, mount)
  if (key !== undefined) {
    const seen = { ...written, key }
    if (from === undefined) return seen as T
    const wasAt = shownThrough(from, mount)
    return (wasAt !== undefined ? { ...seen, from: wasAt } : { ...seen, op: 'put' }) as T
  }
  // Moved out: a delete, which carries no content.
  const { size: _size, etag: _etag, contentType: _contentType, ...bare } = written
  const wasAt = shownThrough(from, mount)
  if (wasAt !== undefined) return { ...bare, op: 'delete', key: wasAt } as T
  return undefined
}

/** The owner's `key` as the grantee sees it through the mount `name` of the owner's `path`; undefined
 *  when it is not under what is shared. */
export function shownThrough (key: string | undefined, { name, path }: { name: string, path: string }): string | undefined {
  if (key === undefined) return undefined
  if (!path.endsWith('/')) return key === path ? name : undefined
  return key.startsWith(path) ? `${name}/${key.slice(path.length)}` : undefined
}

/**
 * The shown mounts of `ownerId`'s shares, while they last, that cover one of `paths`, whose
 * grantees have webhooks: who is to hear of a change there (see `seenThrough` for what they hear).
 */
export async function grantsCovering (trx: Kysely<Database>, ownerId: string, paths: string[], now: Date): Promise<Array<{ granteeId: string, name: string, path: string }>> {
  // Every write asks (a move with two paths): built once a shape, see runPrepared.
  const { rows } = await runPrepared<{ grantee_id: string, name: string, path: string }>(trx, `mounts.grantsCovering/${paths.length}`, (value) => trx.selectFrom('shares as s').innerJoin('mounts as m', 'm.share_id', 's.id')
    .select(['m.grantee_id', 'm.name', 's.path'])
    .where('s.owner_id', '=', value('ownerId'))
    .where('m.name', 'is not', null)
    .where(lasting(value('now')))
    .where((eb) => eb.or(paths.map((_, index) => sql<boolean>`substr(cast(${value(`path${index}`)} as text), 1, length(s.path)) = s.path`)))
    .where(({ exists, selectFrom }) => exists(selectFrom('webhooks as w').select('w.id').whereRef('w.user_id', '=', 'm.grantee_id').where('w.disabled', '=', 0))).compile(),
  { ownerId, now: now.toISOString(), ...Object.fromEntries(paths.map((path, index) => [`path${index}`, path])) })
  return rows.map((row) => ({ granteeId: row.grantee_id, name: row.name, path: row.path }))
}

/** Where each person sees what was shared with them. */
export function createMountRepository (db: Kysely<Database>) {
  /** The grantee's mounts joined with their shares, while these last. */
  const lastingOf = (granteeId: string, now: Date) => db.selectFrom('mounts as m').innerJoin('shares as s', 's.id', 'm.share_id')
    .where('m.grantee_id', '=', granteeId)
    .where(lasting(now.toISOString()))
  const received = (granteeId: string, now: Date) => lastingOf(granteeId, now).select(COLUMNS)
  // Every request under a mount asks it: compiled once (see lookupOf).
  const findRow = lookupOf<MountRow>(db, received('', new Date(0)).where('m.name', '=', '').compile().sql)

  return {
    /** The caller's mount named `name`, while its share lasts: the one query rights cost. */
    async find (granteeId: string, name: string, now = new Date()): Promise<Mount | undefined> {
      const row = await findRow([granteeId, now.toISOString(), name])
      return row?.name ? mountOf(row) : undefined
    },

    /** The caller's mounts, by name. */
    async list (granteeId: string, now = new Date()): Promise<Mount[]> {
      return (await received(granteeId, now).where('m.name', 'is not', null).orderBy('m.name').execute()).map((row) => mountOf(row as MountRow))
    },

    /** The caller's mounts as a listing shows them (no dates: a listing of the top of a tree reads them all), by name. */
    async listed (granteeId: string, now = new Date()): Promise<ListedMount[]> {
      const rows = await lastingOf(granteeId, now).select(LISTED_COLUMNS).where('m.name', 'is not', null).orderBy('m.name').execute()
      return rows.map(listedOf)
    },

    /**
     * The caller's mounts that a page of the top of their tree in key order holds (see
     * FileService.list): those named from `prefix` on whose entry (a folder's name and "/") lies
     * after `after` and up to `through`, by entry, `limit` at most. A listing reads only these: the
     * rows' values, not the query, are what 200 mounts cost.
     */
    async listedPage (granteeId: string, { prefix, after, through, limit }: { prefix: string, after?: string, through?: string, limit: number }, now = new Date()): Promise<ListedMount[]> {
      // As a store lists keys, by their UTF-8 bytes: SQLite's BINARY does, PostgreSQL's "C".
      const entry = sql<string>`(m.name || case when substr(s.path, length(s.path)) = '/' then '/' else '' end)${isPostgres(db) ? sql` collate "C"` : sql``}`
      let query = lastingOf(granteeId, now).select(LISTED_COLUMNS).where('m.name', 'is not', null)
      if (prefix !== '') query = query.where(beginsWith('m.name', prefix))
      if (after !== undefined) query = query.where(sql<boolean>`${entry} > ${after}`)
      if (through !== undefined) query = query.where(sql<boolean>`${entry} <= ${through}`)
      return (await query.orderBy(entry).limit(limit).execute()).map(listedOf)
    },

    /** The mounts of share `shareId` that are shown, whoever's. */
    async ofShare (shareId: string): Promise<Array<{ granteeId: string, name: string }>> {
      const rows = await db.selectFrom('mounts').select(['grantee_id', 'name']).where('share_id', '=', shareId).where('name', 'is not', null).execute()
      return rows.map((row) => ({ granteeId: row.grantee_id, name: row.name! }))
    },

    /** Whether this person has a mount of the share, shown or left. */
    async has (shareId: string, granteeId: string): Promise<boolean> {
      return (await db.selectFrom('mounts').select('name').where('share_id', '=', shareId).where('grantee_id', '=', granteeId).executeTakeFirst()) !== undefined
    },

    /** Mounts the share for the person at `name`; false when they have one at that name already. */
    async add (shareId: string, granteeId: string, name: string): Promise<boolean> {
      const inserted = await db.insertInto('mounts').values({ share_id: shareId, grantee_id: granteeId, name, created_at: new Date().toISOString() })
        .onConflict((conflict) => conflict.doNothing()).executeTakeFirst()
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0
    },

    /** Names the person's mount of the share `name`; false when another of theirs has that name. */
    async rename (shareId: string, granteeId: string, name: string): Promise<boolean> {
      const taken = await db.selectFrom('mounts').select('share_id').where('grantee_id', '=', granteeId).where('name', '=', name).executeTakeFirst()
      if (taken) return taken.share_id === shareId
      await db.updateTable('mounts').set({ name }).where('share_id', '=', shareId).where('grantee_id', '=', granteeId).execute()
      return true
    },

    /** The person leaves the share: one with them ends (for its owner too); an organization's is hidden for them only. */
    async leave (shareId: string, granteeId: string): Promise<MountChange[]> {
      return await db.transaction().execute(async (trx) => {
        const share = await trx.selectFrom('shares').select('grantee').where('id', '=', shareId).executeTakeFirst()
        if (share?.grantee !== WHOLE_ORG) {
          await trx.deleteFrom('shares').where('id', '=', shareId).where('grantee', '=', granteeId).execute()
          return await unmount(trx, [shareId])
        }
        const shown = await trx.selectFrom('mounts').select('name').where('share_id', '=', shareId).where('grantee_id', '=', granteeId).executeTakeFirst()
        if (!shown?.name) return []
        await trx.updateTable('mounts').set({ name: null }).where('share_id', '=', shareId).where('grantee_id', '=', granteeId).execute()
        const unshared: MountChange[] = [{ userId: granteeId, op: 'unshare', key: shown.name, shareId }]
        await journalMounts(trx, unshared)
        return unshared
      })
    },

    /** Organization shares of `orgId` (null: of no organization) that `granteeId` has no mount of, but their own. */
    async unmountedOrgShares (granteeId: string, orgId: string | null): Promise<Array<{ id: string, path: string }>> {
      return await db.selectFrom('shares as s').select(['s.id', 's.path'])
        .where('s.grantee', '=', WHOLE_ORG)
        .where(orgId === null ? sql<boolean>`s.owner_org_id is null` : sql<boolean>`s.owner_org_id = ${orgId}`)
        .where('s.owner_id', '<>', granteeId)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('mounts as m').select('m.name').whereRef('m.share_id', '=', 's.id').where('m.grantee_id', '=', granteeId))))
        .execute()
    }
  }
}

export type MountRepository = ReturnType<typeof createMountRepository>
