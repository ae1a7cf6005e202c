import { Type, type Static } from '@sinclair/typebox'

export const StorageLocation = Type.Object({
  userId: Type.String(),
  bucket: Type.String(),
  region: Type.String(),
  prefix: Type.String({ description: 'users/{userId}/<root>/' })
}, { $id: 'StowageStorageLocation' })
export type StorageLocation = Static<typeof StorageLocation>



export const RefreshBody = Type.Object({
  refreshToken: Type.String({ minLength: 1, maxLength: 8192, description: 'A refresh token of the identity provider' })
}, { additionalProperties: false })
export type RefreshBody = Static<typeof RefreshBody>

export const TokenSet = Type.Object({
  accessToken: Type.String(),
  idToken: Type.String(),
  refreshToken: Type.Optional(Type.String({ description: 'Present when the provider rotated the refresh token: keep this one' })),
  credentials: Type.Object({
    accessKeyId: Type.String(),
    secretAccessKey: Type.String(),
    sessionToken: Type.String(),
    expiration: Type.String({ format: 'date-time', description: 'CREDENTIALS_TTL_SECONDS (1 hour) after issue' })
  }, { description: 'Temporary AWS credentials, allowed S3 only under your own prefix' })
}, { $id: 'StowageTokenSet' })
export const authSchemas = [StorageLocation, TokenSet]
