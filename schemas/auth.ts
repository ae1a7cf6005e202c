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
  refreshToken: Type.Optional(Type.String({ description: 'Present when the provider issued or rotated the refresh token: keep this one' })),
  expiresIn: Type.Optional(Type.Integer({ description: 'Seconds the access token lives' })),
  credentials: Type.Optional(Type.Object({
    accessKeyId: Type.String(),
    secretAccessKey: Type.String(),
    sessionToken: Type.String(),
    expiration: Type.String({ format: 'date-time', description: 'CREDENTIALS_TTL_SECONDS (1 hour) after issue' })
  }, { description: 'Temporary AWS credentials, allowed S3 only under your own prefix; present when the deployment hands them out (CREDENTIALS_ROLE_ARN)' }))
}, { $id: 'StowageTokenSet' })

const Secret = (description: string) => Type.String({ minLength: 1, maxLength: 8192, description })
/** A PKCE verifier or challenge, or a `state` of the same form (RFC 7636 §4.1: 43 to 128 unreserved characters). */
export const PkceValue = (description: string) => Type.String({ pattern: '^[A-Za-z0-9._~-]{43,128}$', description })

export const TokenBody = Type.Union([
  Type.Object({
    code: Secret('The authorization code the provider redirected with'),
    codeVerifier: PkceValue('The PKCE (S256) verifier of the authorization request'),
    redirectUri: Type.String({ minLength: 1, maxLength: 2048, description: 'The redirect URI of the authorization request: loopback, or the console under PUBLIC_URL' })
  }, { additionalProperties: false }),
  Type.Object({ deviceCode: Secret('The device code POST /api/auth/device answered') }, { additionalProperties: false })
])
export type TokenBody = Static<typeof TokenBody>

export const DeviceAuthorization = Type.Object({
  deviceCode: Type.String(),
  userCode: Type.String({ description: 'What the person types at verificationUri' }),
  verificationUri: Type.String(),
  verificationUriComplete: Type.Optional(Type.String({ description: 'verificationUri with the code in it' })),
  expiresIn: Type.Integer(),
  interval: Type.Integer({ description: 'Seconds to wait between two POST /api/auth/token' })
}, { $id: 'StowageDeviceAuthorization' })

export const ProtectedResource = Type.Object({
  resource: Type.String(),
  authorization_servers: Type.Array(Type.String()),
  bearer_methods_supported: Type.Array(Type.String()),
  scopes_supported: Type.Array(Type.String()),
  client_id: Type.Optional(Type.String({ description: 'The client to name in the authorization request' }))
}, { $id: 'StowageProtectedResource', additionalProperties: true })

export const authSchemas = [StorageLocation, TokenSet, DeviceAuthorization, ProtectedResource]
