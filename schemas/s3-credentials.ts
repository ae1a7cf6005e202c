import { Type, type Static } from '@sinclair/typebox'

export const S3CredentialBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'What it is for, to tell it apart' })),
  skipTrash: Type.Optional(Type.Boolean({ description: 'Its deletes are final rather than to the trash: for backup tools (restic) that make and delete lock files often' }))
}, { $id: 'StowageS3CredentialBody', additionalProperties: false })
export type S3CredentialBody = Static<typeof S3CredentialBody>

export const S3CredentialMade = Type.Object({
  accessKeyId: Type.String(),
  secretAccessKey: Type.String({ description: 'Shown this once' }),
  name: Type.String(),
  skipTrash: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'Made with an API key that expires: it expires with it (and is revoked with it)' }))
}, { $id: 'StowageS3CredentialMade' })

export const S3CredentialList = Type.Object({
  credentials: Type.Array(Type.Object({
    accessKeyId: Type.String(),
    name: Type.String(),
    skipTrash: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
    lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'To the minute' })
  }))
}, { $id: 'StowageS3CredentialList' })

export const S3Session = Type.Object({
  accessKeyId: Type.String(),
  secretAccessKey: Type.String(),
  sessionToken: Type.String(),
  expiration: Type.String({ format: 'date-time' })
}, { $id: 'StowageS3Session' })

export const S3CredentialParams = Type.Object({ accessKeyId: Type.String({ minLength: 1, maxLength: 32 }) })

export const s3CredentialSchemas = [S3CredentialBody, S3CredentialMade, S3CredentialList, S3Session]
