import bcrypt from 'bcrypt'
import { createHash } from 'node:crypto'
import type { ApiKeyRepository } from '../db/api-keys.js'
import { BadRequestError, NotFoundError } from '../errors.js'
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
  now?: () => Date
}

export interface NewApiKey {
  userId: string
  orgId: string | null
  name?: string
  expiresAt?: string
}

export interface VerifiedKey {
  userId: string
  orgId: string | null
  keyId: string
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64')

export function createKeyService ({
  repository, prefix, bcryptCost, hasher = bcrypt, verifiedCacheSize = 10_000, touchIntervalMs = 60_000, now = () => new Date()
}: KeyServiceOptions) {
  // SHA-256 of a key that passed bcrypt → the hash it passed against (a replaced row must pass again).
  const verified = new Map<string, string>()

  function remember (digest: string, keyHash: string) {
    verified.delete(digest)
    verified.set(digest, keyHash)
    if (verified.size > verifiedCacheSize) verified.delete(verified.keys().next().value as string)
  }

  async function matches (key: string, keyHash: string): Promise<boolean> {
    const digest = sha256(key)
    if (verified.get(digest) === keyHash) return true
    if (!(await hasher.compare(key, keyHash))) return false
    remember(digest, keyHash)
    return true
  }

  return {
    prefix,

    async create ({ userId, orgId, name = '', expiresAt }: NewApiKey) {
      const createdAt = now()
      if (expiresAt !== undefined && !(new Date(expiresAt) > createdAt)) {
        throw new BadRequestError('expiresAt must be a future date-time')
      }
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
        expires_at: expiresAt === undefined ? null : new Date(expiresAt).toISOString(),
        revoked_at: null
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

    async revoke (userId: string, id: string) {
      if (!(await repository.revoke(userId, id, now().toISOString()))) throw new NotFoundError('no such active key')
    },

    /**
     * Format and checksum first (no I/O), then the row by id on every call (so revocation and expiry
     * hold at once across instances), then bcrypt once per key per process.
     */
    async verify (key: string): Promise<VerifiedKey | undefined> {
      const parsed = parseApiKey(prefix, key)
      if (!parsed) return undefined
      const row = await repository.findById(parsed.id)
      const at = now()
      if (!row || row.revoked_at !== null || (row.expires_at !== null && new Date(row.expires_at) <= at)) return undefined
      if (!(await matches(key, row.key_hash))) return undefined
      if (row.last_used_at === null || at.getTime() - new Date(row.last_used_at).getTime() >= touchIntervalMs) {
        // A usage timestamp is worth no refused request.
        await repository.touch(row.id, at.toISOString()).catch(() => undefined)
      }
      return { userId: row.user_id, orgId: row.org_id, keyId: row.id }
    }
  }
}

export type KeyService = ReturnType<typeof createKeyService>
