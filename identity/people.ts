import type { PeopleRepository, Profile } from '../db/people.js'

/** People an instance remembers having noted as they are: past this, the least recently noted go. */
const REMEMBERED = 10_000

/**
 * The people Stowage has authenticated (DESIGN §13), noted as each authenticates: a person's row is
 * read once an instance first sees them and written only when their organization, email or name
 * changed, never once a request.
 */
export function createPeople (repository: PeopleRepository) {
  const noted = new Map<string, string>()
  const listeners: Array<(userId: string, orgId: string | null) => Promise<void>> = []
  return {
    find: repository.find,
    findAll: repository.findAll,
    findByEmail: repository.findByEmail,
    search: repository.search,
    members: repository.members,
    /** `listener` runs when an instance first sees a person, or sees them changed (their organization's shares are mounted then). */
    onNoted (listener: (userId: string, orgId: string | null) => Promise<void>) { listeners.push(listener) },
    async noted (userId: string, profile: Profile) {
      const said = JSON.stringify([profile.orgId, profile.email ?? null, profile.name ?? null])
      if (noted.get(userId) === said) return
      await repository.note(userId, profile)
      for (const listener of listeners) await listener(userId, profile.orgId)
      noted.delete(userId)
      noted.set(userId, said)
      if (noted.size > REMEMBERED) noted.delete(noted.keys().next().value as string)
    }
  }
}

export type People = ReturnType<typeof createPeople>
