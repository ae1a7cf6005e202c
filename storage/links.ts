import { createHmac, timingSafeEqual } from 'node:crypto'
import { ForbiddenError } from '../errors.js'
import type { ImageTransform } from './images.js'

/** What a signed link lets its bearer do: one method on one file of one user, until it expires. */
export interface LinkGrant {
  userId: string
  /** The creator's organization, whose quota an upload counts against. */
  orgId?: string | null
  path: string
  method: 'download' | 'upload'
  /** Seconds since the epoch. */
  expiresAt: number
  /** An upload link's: the content type and length the upload must have. */
  contentType?: string
  size?: number
  /** A download link of an image: sent transformed, as the images route sends it. */
  transform?: ImageTransform
}

const base64url = (bytes: Buffer) => bytes.toString('base64url')

/** A URL as logs and traces may show it: a link's token is a credential, and is left out. */
export const withoutLinkToken = (url: string) => url.replace(/\/links\/[^/?#]+/, '/links/[redacted]')

/**
 * Links served by Stowage: `<grant>.<signature>`, the grant in base64url JSON and the signature an
 * HMAC-SHA256 of it with the deployment's secret. Any edit of the grant (another file, method,
 * user or expiry) breaks the signature; a link cannot be revoked before it expires.
 */
export function createLinkSigner (secret: Buffer) {
  const sign = (payload: string) => createHmac('sha256', secret).update(payload).digest()
  return {
    token (grant: LinkGrant): string {
      const payload = base64url(Buffer.from(JSON.stringify({
        u: grant.userId, o: grant.orgId ?? undefined, p: grant.path, m: grant.method, e: grant.expiresAt, t: grant.contentType, s: grant.size, x: grant.transform
      })))
      return `${payload}.${base64url(sign(payload))}`
    },

    /** The grant of a token whose signature holds and whose time has not run out; else 403. */
    verify (token: string, now = Date.now()): LinkGrant {
      const [payload, signature, extra] = token.split('.')
      const expected = payload === undefined ? undefined : sign(payload)
      const given = Buffer.from(signature ?? '', 'base64url')
      if (!expected || extra !== undefined || given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new ForbiddenError('this link is not valid')
      }
      const { u, o, p, m, e, t, s, x } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
        u: string, o?: string, p: string, m: LinkGrant['method'], e: number, t?: string, s?: number, x?: ImageTransform
      }
      if (now / 1000 >= e) throw new ForbiddenError('this link has expired')
      return { userId: u, orgId: o ?? null, path: p, method: m, expiresAt: e, contentType: t, size: s, transform: x }
    }
  }
}

export type LinkSigner = ReturnType<typeof createLinkSigner>
