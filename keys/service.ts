import bcrypt from 'bcrypt'
import { hash } from 'node:crypto'
import type { ApiKeyCheck, ApiKeyRepository } from '../db/api-keys.js'
import { BadRequestError, NotFoundError, TooManyAttemptsError } from '../errors.js'
import { createMemory, createSemaphore, inProcessFailureLimit, type FailureLimit } from '../limits.js'
import { generateApiKey, parseApiKey } from './api-key.js'

export interface Hasher {
  hash (data: string, cost: number): Promise<string>
  compare (data: string, hash: string): Promise<boolean>
}

export interface KeyServiceOptions {
  repository: ApiKeyRepository
  prefix: string
  bcryptCost: number
  hasher?: Hasher
  /** How many verified keys are remembered, so that they skip bcrypt. */
  verifiedCacheSize?: number
  /** last_used_at is written at most this often per key. */
  touchIntervalMs?: number
  /** Wrong secrets allowed per key id in one window before the id is refused (429) without bcrypt. */
  failuresPerKey?: number
  failureWindowMs?: number
  /** Counts those failures; by default in this process (instances on PostgreSQL share one). */
  failureLimit?: FailureLimit
  /** bcrypt compares running at once: the rest wait, so that file I/O keeps threads of libuv's pool. */
  bcryptConcurrency?: number
  /** Told once per window when a key id starts being refused. */
  onThrottled?: (keyId: string) => void
  now?: () => Date
}

export interface NewApiKey {
  userId: string
  orgId: string | null
  name?: string
  expiresAt?: string
  /** How the creator authenticated: a key made with a key is its child; one made through the AWS
   *  method works only while its organization is aws-sso. */
  createdWith?: Credential
}

/** The credential a request was authenticated with, as far as key lineage cares. */
export type Credential =
  | { method: 'api-key', key: { id: string, expiresAt: string | null, awsSsoOnly: boolean } }
  | { method: 'aws' }
  | { method: string }

export interface VerifiedKey {
  userId: string
  orgId: string | null
  keyId: string
  expiresAt: string | null
  awsSsoOnly: boolean
}

/** The API key a request was made with, when it was one: what it creates belongs to its lineage. */
export const parentKeyOf = (credential?: Credential | null) =>
  credential?.method === 'api-key' && 'key' in credential ? credential.key : undefined

/** The earlier of two expiries, null meaning never. */
const earlier = (a: string | null, b: string | null) => a === null ? b : b === null ? a : (a < b ? a : b)

const sha256 = (text: string) => hash('sha256', text, 'base64')

// A wrong key is remembered this long, so that repeating it costs no bcrypt.
const REFUSAL_MEMORY_MS = 10 * 60_000

export function createKeyService ({
  repository, prefix, bcryptCost, hasher = bcrypt, verifiedCacheSize = 10_000, touchIntervalMs = 60_000,
  failuresPerKey = 10, failureWindowMs = 60_000, failureLimit, bcryptConcurrency = 2, onThrottled, now = () => new Date()
}: KeyServiceOptions) {
  const clock = () => now().getTime()
  // SHA-256 of a key → the hash it passed (or failed) against: a replaced row must be checked again.
  // No secret is kept, only digests of keys already presented.
  const verified = createMemory<string>(verifiedCacheSize, clock)
  const refused = createMemory<string>(verifiedCacheSize, clock)
  const failures = failureLimit ?? inProcessFailureLimit({ max: failuresPerKey, windowMs: failureWindowMs, now: clock })
  const bounded = createSemaphore(bcryptConcurrency)
  // Concurrent first uses of one key share one compare.
  const comparing = new Map<string, Promise<boolean>>()

  function compareOnce (key: string, digest: string, row: ApiKeyCheck): Promise<boolean> {
    let pending = comparing.get(digest)
    if (!pending) {
      pending = bounded(() => hasher.compare(key, row.key_hash))
        .then((ok) => {
          if (ok) {
            verified.set(digest, row.key_hash)
          } else {
            refused.set(digest, row.key_hash, clock() + REFUSAL_MEMORY_MS)
          }
          return ok
        })
        // Counted before the answer, so that the next attempt, on any instance, sees it.
        .then(async (ok) => {
          if (!ok && await failures.fail(row.id)) onThrottled?.(row.id)
          return ok
        })
        .finally(() => comparing.delete(digest))
      comparing.set(digest, pending)
    }
    return pending
  }

  function throwIfThrottled (wait: number) {
    if (wait > 0) throw new TooManyAttemptsError(wait, 'too many wrong secrets for this key')
  }

  let verifiedHits = 0

  async function matches (key: string, digest: string, row: ApiKeyCheck, admitCostlyCheck?: () => Promise<void>): Promise<boolean> {
    // What an earlier compare of this very key found, if it was against this row's hash.
    const known = () => verified.get(digest) === row.key_hash ? true : refused.get(digest) === row.key_hash ? false : undefined
    const earlier = known()
    if (earlier === true) verifiedHits++
    if (earlier !== undefined) return earlier
    if (!comparing.has(digest)) {
      throwIfThrottled(await failures.check(row.id))
      await admitCostlyCheck?.()
    }
    // Another request may have compared it while the limits were asked.
    return known() ?? compareOnce(key, digest, row)
  }

  return {
    prefix,

    /** bcrypt compares running and queued, and keys verified from memory so far. */
    stats: () => ({ ...bounded.stats(), verifiedHits }),

    async create ({ userId, orgId, name = '', expiresAt, createdWith }: NewApiKey) {
      const createdAt = now()
      if (expiresAt !== undefined && !(new Date(expiresAt) > createdAt)) {
        throw new BadRequestError('expiresAt must be a future date-time')
      }
      const parent = parentKeyOf(createdWith)
      const { id, key, start } = generateApiKey(prefix)
      const row = {
        id,
        user_id: userId,
        org_id: orgId,
        name,
        start,
        key_hash: await hasher.hash(key, bcryptCost),
        created_at: createdAt.toISOString(),
        last_used_at: null,
        // A child never outlives its parent.
        expires_at: earlier(expiresAt === undefined ? null : new Date(expiresAt).toISOString(), parent?.expiresAt ?? null),
        revoked_at: null,
        parent_id: parent?.id ?? null,
        aws_sso_only: createdWith?.method === 'aws' || parent?.awsSsoOnly ? 1 : 0
      }
      await repository.insert(row)
      return { id, key, name, start, createdAt: row.created_at, expiresAt: row.expires_at }
    },

    async list (userId: string) {
      const rows = await repository.listActive(userId, now().toISOString())
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        start: row.start,
        createdAt: row.created_at,
        lastUsedAt: row.last_used_at,
        expiresAt: row.expires_at
      }))
    },

    /** Revokes the key and every key created through it. A caller authenticated by a key may
     *  revoke only that key and its descendants, not the owner's other keys. */
    async revoke (userId: string, id: string, revokedWith?: Credential) {
      const parent = parentKeyOf(revokedWith)
      const allowed = !parent || await repository.descendsFrom(id, parent.id)
      if (!allowed || !(await repository.revokeWithDescendants(userId, id, now().toISOString()))) {
        throw new NotFoundError('no such active key')
      }
    },

    /**
     * Format and checksum first (no I/O), then the row by id on every call (so revocation and expiry
     * hold at once across instances), then bcrypt once per key per process. A key id that keeps
     * failing is refused with TooManyAttemptsError before bcrypt; a key already verified never is.
     * `admitCostlyCheck` may throw to refuse a bcrypt compare (the caller's address keeps failing).
     */
    async verify (key: string, { admitCostlyCheck }: { admitCostlyCheck?: () => Promise<void> } = {}): Promise<VerifiedKey | undefined> {
      const parsed = parseApiKey(prefix, key)
      if (!parsed) return undefined
      const digest = sha256(key)
      // A throttled id costs not even its row, unless this very key was verified before.
      if (verified.get(digest) === undefined) throwIfThrottled(failures.known(parsed.id))
      const row = await repository.findById(parsed.id)
      const at = now()
      if (!row || row.revoked_at !== null || (row.expires_at !== null && new Date(row.expires_at) <= at)) return undefined
      if (row.aws_sso_only && (row.org_id === null || await repository.orgAuthMode(row.org_id) !== 'aws-sso')) return undefined
      if (!(await matches(key, digest, row, admitCostlyCheck))) return undefined
      if (row.last_used_at === null || at.getTime() - new Date(row.last_used_at).getTime() >= touchIntervalMs) {
        // A usage timestamp is worth no refused request.
        await repository.touch(row.id, at.toISOString()).catch(() => undefined)
      }
      return { userId: row.user_id, orgId: row.org_id, keyId: row.id, expiresAt: row.expires_at, awsSsoOnly: row.aws_sso_only === 1 }
    }
  }
}

export type KeyService = ReturnType<typeof createKeyService>
