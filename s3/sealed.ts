import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

/**
 * AES-256-GCM under S3_CREDENTIALS_KEY: S3 secrets at rest, and the session tokens that carry a
 * temporary secret. `purpose` is bound in (as associated data): what was sealed for one use does not
 * open for another.
 */
export function createSealer (keyBase64: string) {
  const key = Buffer.from(keyBase64, 'base64')
  if (key.length !== 32) throw new Error('S3_CREDENTIALS_KEY must be 32 bytes in base64')
  return {
    seal (purpose: string, text: string): string {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(purpose))
      const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()])
      return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')
    },
    /** The text, or undefined when `sealed` was not sealed under this key for `purpose`. */
    open (purpose: string, sealed: string): string | undefined {
      const bytes = Buffer.from(sealed, 'base64url')
      if (bytes.length < 29) return undefined
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12)).setAAD(Buffer.from(purpose))
        decipher.setAuthTag(bytes.subarray(12, 28))
        return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')
      } catch {
        return undefined
      }
    }
  }
}

export type Sealer = ReturnType<typeof createSealer>
