import { createHmac, randomBytes } from 'node:crypto'

const SECRET_PREFIX = 'whsec_'

/** A new signing secret, as Standard Webhooks writes one: `whsec_` and the base64 of its key. */
export const newSecret = () => SECRET_PREFIX + randomBytes(24).toString('base64')

/** Standard Webhooks' `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`. */
export function signature (secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')
}
