import { randomBytes } from 'node:crypto'
import type { S3CredentialRepository } from '../db/s3-credentials.js'
import { BadRequestError, NotFoundError } from '../errors.js'
import { createMemory } from '../limits.js'
import type { Sealer } from './sealed.js'

// Access key ids as AWS writes them: 20 upper-case letters and digits, the first four saying what it is.
const LONG_LIVED = 'SKIA'
const SESSION = 'SSIA'
// S3 credentials one user may have.
export const MAX_S3_CREDENTIALS = 25
// last_used_at is written at most this often per key and instance.
const TOUCH_EVERY_MS = 60_000

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
const newAccessKeyId = (kind: string) => kind + Array.from(randomBytes(16), (byte) => BASE32[byte % 32]).join('')
const newSecret = () => randomBytes(30).toString('base64')

/** Who a request signed with an access key is, and the secret that checks its signature. */
export interface S3Signer {
  userId: string
  orgId: string | null
  secretAccessKey: string
  /** Its deletes are final, not to the trash. */
  skipTrash: boolean
}

// `a`: the API key the session was made with, checked on every use (a revoked key's sessions stop).
interface SessionClaims { k: string, s: string, u: string, o: string | null, e: number, a?: string }

/** The API key a credential is made with: what it makes is revoked with it and expires no later. */
export interface MadeWithKey { id: string, expiresAt: string | null }

const earlier = (a: Date, b: string | null | undefined) => b === null || b === undefined || a.getTime() <= Date.parse(b) ? a : new Date(b)

/**
 * S3 credentials: long-lived access keys (their secrets sealed in the database, revoked at once on
 * every instance since each request looks its key up) and temporary ones, whose session token seals
 * the secret, the user and the expiry: nothing to store, and usable only on the S3 endpoint.
 */
export function createS3Credentials ({ repository, sealer, sessionTtlSeconds = 3600, now = () => new Date() }: { repository: S3CredentialRepository, sealer: Sealer, sessionTtlSeconds?: number, now?: () => Date }) {
  const touched = new Map<string, number>()
  // What a sealed secret or session token opens to, so that a request pays for AES-GCM once per key:
  // the database is still asked for the key every time (a revoked one is found nowhere).
  const opened = createMemory<string>(10_000)
  const open = (purpose: string, sealed: string) => {
    const memo = `${purpose}\n${sealed}`
    const known = opened.get(memo)
    if (known !== undefined) return known
    const text = sealer.open(purpose, sealed)
    if (text !== undefined) opened.set(memo, text)
    return text
  }
  return {
    async create (owner: { userId: string, orgId?: string | null }, { name = 's3', skipTrash = false }: { name?: string, skipTrash?: boolean } = {}, madeWith?: MadeWithKey) {
      if (await repository.count(owner.userId) >= MAX_S3_CREDENTIALS) throw new BadRequestError(`you have ${MAX_S3_CREDENTIALS} S3 credentials, the most there may be: revoke one first`)
      const accessKeyId = newAccessKeyId(LONG_LIVED)
      const secretAccessKey = newSecret()
      const createdAt = now()
      const expiresAt = madeWith?.expiresAt ? new Date(madeWith.expiresAt) : null
      await repository.add({
        accessKeyId, userId: owner.userId, orgId: owner.orgId ?? null, name, secretSealed: sealer.seal(`s3-secret:${accessKeyId}`, secretAccessKey), createdAt,
        apiKeyId: madeWith?.id ?? null, expiresAt, skipTrash
      })
      return { accessKeyId, secretAccessKey, name, skipTrash, createdAt: createdAt.toISOString(), ...expiresAt ? { expiresAt: expiresAt.toISOString() } : {} }
    },

    list: async (userId: string) => ({
      credentials: (await repository.list(userId)).map(({ accessKeyId, name, skipTrash, createdAt, lastUsedAt }) =>
        ({ accessKeyId, name, skipTrash, createdAt: createdAt.toISOString(), lastUsedAt: lastUsedAt?.toISOString() ?? null }))
    }),

    async revoke (userId: string, accessKeyId: string) {
      if (!await repository.remove(userId, accessKeyId)) throw new NotFoundError('no such S3 credential')
      touched.delete(accessKeyId)
    },

    /** Temporary credentials for `sessionTtlSeconds`, for the S3 endpoint only. */
    session (owner: { userId: string, orgId?: string | null }, madeWith?: MadeWithKey) {
      const accessKeyId = newAccessKeyId(SESSION)
      const secretAccessKey = newSecret()
      const expiration = earlier(new Date(now().getTime() + sessionTtlSeconds * 1000), madeWith?.expiresAt)
      const claims: SessionClaims = { k: accessKeyId, s: secretAccessKey, u: owner.userId, o: owner.orgId ?? null, e: expiration.getTime(), ...madeWith ? { a: madeWith.id } : {} }
      return { accessKeyId, secretAccessKey, sessionToken: sealer.seal('s3-session', JSON.stringify(claims)), expiration: expiration.toISOString() }
    },

    /** The signer of `accessKeyId` (with its session token, for a temporary one); undefined when unknown, revoked or expired. */
    async signer (accessKeyId: string, sessionToken?: string): Promise<S3Signer | undefined> {
      if (accessKeyId.startsWith(SESSION)) {
        const claimed = sessionToken === undefined ? undefined : open('s3-session', sessionToken)
        if (!claimed) return undefined
        const claims = JSON.parse(claimed) as SessionClaims
        if (claims.k !== accessKeyId || claims.e <= now().getTime()) return undefined
        if (claims.a !== undefined && await repository.keyRevoked(claims.a)) return undefined
        return { userId: claims.u, orgId: claims.o, secretAccessKey: claims.s, skipTrash: false }
      }
      if (!accessKeyId.startsWith(LONG_LIVED)) return undefined
      const credential = await repository.find(accessKeyId)
      const secretAccessKey = credential && open(`s3-secret:${accessKeyId}`, credential.secretSealed)
      if (!credential || !secretAccessKey || credential.keyRevoked) return undefined
      const at = now()
      if (credential.expiresAt && credential.expiresAt <= at) return undefined
      if (at.getTime() - (touched.get(accessKeyId) ?? 0) > TOUCH_EVERY_MS) {
        touched.set(accessKeyId, at.getTime())
        void repository.touch(accessKeyId, at).catch(() => touched.delete(accessKeyId))
      }
      return { userId: credential.userId, orgId: credential.orgId, secretAccessKey, skipTrash: credential.skipTrash }
    }
  }
}

export type S3Credentials = ReturnType<typeof createS3Credentials>
