import type { Person } from '../db/people.js'
import { WHOLE_ORG, type Share, type ShareRepository, type ShareRole } from '../db/shares.js'
import type { Owner } from '../db/usage.js'
import type { Mount, MountRepository } from '../db/mounts.js'
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.js'
import type { People } from '../identity/people.js'
import type { Journal } from './changes.js'
import type { FileService } from './files.js'
import { checkFilePath, checkFolderPath } from './paths.js'

/** Who a share is made with, as the owner names them. */
export type ShareWith = { userId: string } | { email: string } | { org: true }

/** A share as its owner is answered (DESIGN §13). */
export interface ShareAnswer {
  id: string
  path: string
  with: { userId: string, email?: string, name?: string } | { org: true }
  role: ShareRole
  createdAt: string
  expiresAt?: string
}

/** A share as its grantee is answered (DESIGN §13, GET /api/shared). */
export interface ReceivedAnswer {
  id: string
  name: string
  owner: { userId: string, email?: string, name?: string }
  role: ShareRole
  kind: 'folder' | 'file'
  createdAt: string
  expiresAt?: string
}

// How far " (2)", " (3)", … go looking for a free name at the top of a grantee's tree.
const MOUNT_NAME_TRIES = 100

export interface SharesOptions {
  repository: ShareRepository
  mounts: MountRepository
  people: People
  files: FileService
  /** Where grantees read of mounts coming and going. */
  journal: Journal
  /** SHARES_ACROSS_ORGS: a person of another organization may be shared with. */
  acrossOrgs?: boolean
  now?: () => Date
}

/** Shares between people, as their owners make, see, change and end them (DESIGN §13). */
export function createShares ({ repository, mounts, people, files, journal, acrossOrgs = false, now = () => new Date() }: SharesOptions) {
  const personAnswer = (userId: string, person: Person | undefined) =>
    ({ userId, ...(person?.email ? { email: person.email } : {}), ...(person?.name ? { name: person.name } : {}) })
  /** Shares as their owner is answered: the people they are with named, in one query for all. */
  const answersOf = async (shares: Share[]): Promise<ShareAnswer[]> => {
    const known = await people.findAll(shares.map((share) => share.grantee).filter((grantee) => grantee !== WHOLE_ORG))
    return shares.map((share) => ({
      id: share.id,
      path: share.path,
      with: share.grantee === WHOLE_ORG ? { org: true } : personAnswer(share.grantee, known.get(share.grantee)),
      role: share.role,
      createdAt: share.createdAt.toISOString(),
      ...(share.expiresAt ? { expiresAt: share.expiresAt.toISOString() } : {})
    }))
  }
  const answerOf = async (share: Share): Promise<ShareAnswer> => (await answersOf([share]))[0]
  const expiryOf = (expiresAt: string | undefined) => {
    if (expiresAt === undefined) return undefined
    const date = new Date(expiresAt)
    if (Number.isNaN(date.getTime())) throw new BadRequestError('expiresAt is not a date: give one as 2027-01-31T12:00:00Z')
    if (date <= now()) throw new BadRequestError('expiresAt has passed: give a time to come')
    return date
  }

  /** The person `with` names, when the owner can reach them: 404 otherwise, as for no one at all. */
  async function personOf (owner: Owner, named: { userId: string } | { email: string }): Promise<Person> {
    const person = 'userId' in named ? await people.find(named.userId) : await people.findByEmail(named.email)
    const said = 'userId' in named ? `no person ${named.userId}` : `no person with the email ${named.email}`
    if (!person || (!acrossOrgs && person.orgId !== owner.orgId)) throw new NotFoundError(`${said} in your organization: they appear once they have signed in`)
    if (person.userId === owner.userId) throw new BadRequestError('that is you: a share is made with someone else')
    return person
  }

  /** The owner's file or folder at `path`, as a share names it (a folder ends in "/"); 404 when there is none. */
  async function sharedPath (owner: Owner, path: string): Promise<string> {
    if (!path.endsWith('/')) {
      const file = checkFilePath(path)
      if (await files.head(owner.userId, file).then(() => true, (error) => { if (error instanceof NotFoundError) return false; throw error })) return file
    }
    const folder = checkFolderPath(path)
    if (!await files.folderExists(owner.userId, folder)) throw new NotFoundError(`you have no file or folder ${path}`)
    return folder
  }

  /** Mounts the share for the person under the shared item's name, or the first of "name (2)",
   *  "name (3)", … that nothing at the top of their tree has (DESIGN §13). */
  async function mount (share: { id: string, path: string }, granteeId: string): Promise<void> {
    const item = share.path.endsWith('/') ? share.path.slice(0, -1) : share.path
    const named = item.slice(item.lastIndexOf('/') + 1)
    for (let n = 1; n <= MOUNT_NAME_TRIES; n++) {
      const name = n === 1 ? named : `${named} (${n})`
      if (await files.takenByOwn(granteeId, name)) continue
      if (await mounts.add(share.id, granteeId, name)) return await journal.recordMounts([{ userId: granteeId, op: 'share', key: name }])
      if (await mounts.has(share.id, granteeId)) return
    }
    throw new ConflictError(`${named} and ${MOUNT_NAME_TRIES - 1} more names like it are taken at the top of their files: they cannot receive this share`)
  }

  /** Mounts as their grantee is answered: their owners named, in one query for all. */
  const receivedAnswersOf = async (mounted: Mount[]): Promise<ReceivedAnswer[]> => {
    const owners = await people.findAll(mounted.map((received) => received.ownerId))
    return mounted.map((received) => ({
      id: received.shareId,
      name: received.name,
      owner: personAnswer(received.ownerId, owners.get(received.ownerId)),
      role: received.role,
      kind: received.path.endsWith('/') ? 'folder' : 'file',
      createdAt: received.createdAt.toISOString(),
      ...(received.expiresAt ? { expiresAt: received.expiresAt.toISOString() } : {})
    }))
  }
  const receivedOf = async (received: Mount): Promise<ReceivedAnswer> => (await receivedAnswersOf([received]))[0]

  /** The caller's mount of the share `id`: 404 when they have none. */
  async function receivedShare (userId: string, id: string): Promise<Mount> {
    const found = (await mounts.list(userId, now())).find((received) => received.shareId === id)
    if (!found) throw new NotFoundError(`nothing is shared with you as ${id}`)
    return found
  }

  return {
    async add (owner: Owner, { path, with: named, role, expiresAt }: { path: string, with: ShareWith, role: ShareRole, expiresAt?: string }): Promise<ShareAnswer> {
      if ((await files.place(owner, path.endsWith('/') ? path.slice(0, -1) : path, 'read')).mount) throw new ForbiddenError('what is shared with you cannot be shared further: ask its owner')
      const expires = expiryOf(expiresAt)
      let grantee = WHOLE_ORG
      if ('org' in named) {
        if (owner.orgId === null) throw new BadRequestError('you belong to no organization: share with a person instead')
      } else {
        grantee = (await personOf(owner, named)).userId
      }
      const shared = await sharedPath(owner, path)
      // A folder shared is a folder made on purpose: emptying it does not end the share.
      if (shared.endsWith('/')) await files.makeFolder(owner.userId, shared)
      const share = await repository.add({ ownerId: owner.userId, ownerOrgId: owner.orgId, path: shared, grantee, role, expiresAt: expires })
      if (!share) throw new ConflictError(`${shared} is shared with them already: change that share instead (PATCH /api/shares/{id})`)
      const grantees = grantee === WHOLE_ORG ? (await people.members(owner.orgId)).filter((userId) => userId !== owner.userId) : [grantee]
      for (const userId of grantees) await mount(share, userId)
      return await answerOf(share)
    },

    async list (owner: Owner, prefix = ''): Promise<ShareAnswer[]> {
      return await answersOf(await repository.list(owner.userId, prefix))
    },

    async change (owner: Owner, id: string, { role, expiresAt }: { role?: ShareRole, expiresAt?: string | null }): Promise<ShareAnswer> {
      if (role === undefined && expiresAt === undefined) throw new BadRequestError('give role, expiresAt or both to change')
      const changed = await repository.change(owner.userId, id, { role, expiresAt: expiresAt === null ? null : expiryOf(expiresAt) })
      if (!changed) throw new NotFoundError(`you have no share ${id}`)
      await journal.recordMounts((await mounts.ofShare(id)).map(({ granteeId, name }) => ({ userId: granteeId, op: 'share', key: name })))
      return await answerOf(changed)
    },

    async remove (owner: Owner, id: string): Promise<void> {
      const unshared = await repository.remove(owner.userId, id)
      if (!unshared) throw new NotFoundError(`you have no share ${id}`)
      journal.announceMounts(unshared)
    },

    /** What is shared with the caller, as mounted at the top of their tree. */
    async received (userId: string): Promise<ReceivedAnswer[]> {
      return await receivedAnswersOf(await mounts.list(userId, now()))
    },

    /** The caller's role at each of their mounts, by the mount's name. */
    async roles (userId: string): Promise<Map<string, ShareRole>> {
      return new Map((await mounts.listed(userId, now())).map((received) => [received.name, received.role]))
    },

    /** Names the caller's mount of share `id` `name`: 409 when anything at the top of their tree has it. */
    async rename (userId: string, id: string, name: string): Promise<ReceivedAnswer> {
      const received = await receivedShare(userId, id)
      await files.renameMount(userId, received, name)
      return await receivedOf({ ...received, name })
    },

    /** The caller leaves share `id`: a share with them ends (for the owner too); an organization's is hidden for them only. */
    async leave (userId: string, id: string): Promise<void> {
      journal.announceMounts(await mounts.leave((await receivedShare(userId, id)).shareId, userId))
    },

    /** Mounts the organization's shares for a person seen for the first time (or in another organization). */
    async mountOrgShares (userId: string, orgId: string | null): Promise<void> {
      for (const share of await mounts.unmountedOrgShares(userId, orgId)) await mount(share, userId)
    },

    /** Ends the shares past their expiresAt (they were out of reach since): their grantees' journals say so. Resolves with how many mounts went. */
    async sweepExpired (): Promise<number> {
      const unshared = await repository.removeExpired(now())
      journal.announceMounts(unshared)
      return unshared.length
    },

    /** A folder of the owner's is being moved from `from` to `to`: its shares, and those under it, go along. */
    follow: async (owner: Owner, from: string, to: string) => { journal.announceMounts(await repository.follow(owner.userId, from, to)) }
  }
}

export type Shares = ReturnType<typeof createShares>
