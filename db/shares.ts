import { randomBytes } from 'node:crypto'
import type { Kysely, Selectable } from 'kysely'
import { beginsWith } from './dialect.js'
import type { Database, SharesTable } from './types.js'
import { journalMounts, type MountChange } from './changes.js'

export type ShareRole = 'viewer' | 'editor'

/** Everyone of the owner's organization, as a share's grantee. */
export const WHOLE_ORG = '*'

/** A share as its owner sees it (DESIGN §13). `path` is the owner's: a folder ends in "/". */
export interface Share {
  id: string
  ownerId: string
  ownerOrgId: string | null
  path: string
  /** A person's id, or WHOLE_ORG. */
  grantee: string
  role: ShareRole
  createdAt: Date
  expiresAt?: Date
}

const shareOf = (row: Selectable<SharesTable>): Share => ({
  id: row.id,
  ownerId: row.owner_id,
  ownerOrgId: row.owner_org_id,
  path: row.path,
  grantee: row.grantee,
  role: row.role,
  createdAt: new Date(row.created_at),
  ...(row.expires_at ? { expiresAt: new Date(row.expires_at) } : {})
})

/** 96 random bits, base64url, never beginning with "-": `stowage shares rm ID` would read it as an option. */
function newShareId (): string {
  for (;;) {
    const id = randomBytes(12).toString('base64url')
    if (!id.startsWith('-')) return id
  }
}

/** What the owners have shared. */
export function createShareRepository (db: Kysely<Database>) {
  return {
    /** The new share, or undefined when this path is shared with this grantee already. */
    async add (share: Omit<Share, 'id' | 'createdAt'>): Promise<Share | undefined> {
      const made: Share = { ...share, id: newShareId(), createdAt: new Date() }
      const inserted = await db.insertInto('shares').values({
        id: made.id,
        owner_id: made.ownerId,
        owner_org_id: made.ownerOrgId,
        path: made.path,
        grantee: made.grantee,
        role: made.role,
        created_at: made.createdAt.toISOString(),
        expires_at: made.expiresAt?.toISOString() ?? null
      }).onConflict((conflict) => conflict.columns(['owner_id', 'path', 'grantee']).doNothing()).executeTakeFirst()
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0 ? made : undefined
    },

    /** The owner's shares at or under `prefix`, by path, then as made. */
    async list (ownerId: string, prefix = ''): Promise<Share[]> {
      let query = db.selectFrom('shares').selectAll().where('owner_id', '=', ownerId)
      if (prefix) query = query.where(beginsWith('path', prefix))
      return (await query.orderBy('path').orderBy('created_at').orderBy('id').execute()).map(shareOf)
    },

    async find (ownerId: string, id: string): Promise<Share | undefined> {
      const row = await db.selectFrom('shares').selectAll().where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst()
      return row && shareOf(row)
    },

    /** The share changed as `change` says (an expiresAt of null: it no longer expires); undefined when it is not the owner's. */
    async change (ownerId: string, id: string, change: { role?: ShareRole, expiresAt?: Date | null }): Promise<Share | undefined> {
      await db.updateTable('shares')
        .set({
          ...(change.role ? { role: change.role } : {}),
          ...(change.expiresAt !== undefined ? { expires_at: change.expiresAt?.toISOString() ?? null } : {})
        })
        .where('owner_id', '=', ownerId).where('id', '=', id).execute()
      return await this.find(ownerId, id)
    },

    /** Ends the share: the mounts that went with it, or undefined when it is not the owner's. */
    async remove (ownerId: string, id: string): Promise<MountChange[] | undefined> {
      return await db.transaction().execute(async (trx) => {
        const removed = await trx.deleteFrom('shares').where('owner_id', '=', ownerId).where('id', '=', id).executeTakeFirst()
        return Number(removed.numDeletedRows) > 0 ? await unmount(trx, [id]) : undefined
      })
    },

    /** Ends the shares whose expiresAt has passed: the mounts that went with them. */
    async removeExpired (now: Date): Promise<MountChange[]> {
      return await db.transaction().execute(async (trx) => {
        const ended = await trx.deleteFrom('shares').where('expires_at', '<=', now.toISOString()).returning('id').execute()
        return await unmount(trx, ended.map(({ id }) => id))
      })
    },

    /** Moves the owner's shares at or under the folder `from` to the same place under `to`: a folder moved keeps its shares
     *  (but where it comes to stand on another share with the same people); resolves with the mounts that ended. */
    async follow (ownerId: string, from: string, to: string): Promise<MountChange[]> {
      const unshared: MountChange[] = []
      const under = await db.selectFrom('shares').select(['id', 'path']).where('owner_id', '=', ownerId).where(beginsWith('path', from)).execute()
      for (const { id, path } of under) {
        const moved = to + path.slice(from.length)
        // A folder emptied into the root is no folder any more: its share ends.
        // Moved into a folder shared with the same people: the share that stands there is kept.
        const standing = db.selectFrom('shares').select('grantee').where('owner_id', '=', ownerId).where('path', '=', moved)
        const ending = db.deleteFrom('shares').where('id', '=', id)
        const ended = await (moved === '' ? ending : ending.where('grantee', 'in', standing)).executeTakeFirst()
        if (Number(ended.numDeletedRows) > 0) unshared.push(...await unmount(db, [id]))
        else await db.updateTable('shares').set({ path: moved }).where('id', '=', id).execute()
      }
      return unshared
    }
  }
}

export type ShareRepository = ReturnType<typeof createShareRepository>

/** Ended shares' mounts go with them: their names are their grantees' again, and their journals say so. */
export async function unmount (db: Kysely<Database>, shareIds: string[]): Promise<MountChange[]> {
  if (shareIds.length === 0) return []
  const ended = await db.deleteFrom('mounts').where('share_id', 'in', shareIds).returning(['grantee_id', 'name', 'share_id']).execute()
  const unshared = ended.filter((row) => row.name !== null).map((row): MountChange => ({ userId: row.grantee_id, op: 'unshare', key: row.name!, shareId: row.share_id }))
  await journalMounts(db, unshared)
  return unshared
}

/**
 * A change of the owner's files, in the journal's transaction: a file's shares follow it when it
 * moves and end when it is deleted; a folder's end when its marker goes (a folder moved took its
 * shares along before, see `follow`).
 */
export async function followShares (trx: Kysely<Database>, change: { userId: string, op: string, key: string, from?: string }): Promise<MountChange[]> {
  const at = (path: string) => trx.deleteFrom('shares').where('owner_id', '=', change.userId).where('path', '=', path)
  if (change.op === 'delete' || change.op === 'folder-delete') return await unmount(trx, (await at(change.key).returning('id').execute()).map(({ id }) => id))
  if (change.op === 'move' && change.from !== undefined) {
    // Moved over a file shared with the same people: the file that stands keeps its shares.
    const standing = trx.selectFrom('shares').select('grantee').where('owner_id', '=', change.userId).where('path', '=', change.key)
    const unshared = await unmount(trx, (await at(change.from).where('grantee', 'in', standing).returning('id').execute()).map(({ id }) => id))
    await trx.updateTable('shares').set({ path: change.key }).where('owner_id', '=', change.userId).where('path', '=', change.from).execute()
    return unshared
  }
  return []
}
