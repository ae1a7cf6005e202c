import { Type, type Static } from '@sinclair/typebox'

const Role = Type.Union([Type.Literal('viewer'), Type.Literal('editor')], { description: 'viewer: read; editor: read and write, under your rules (your quota, versions, trash)' })
const When = Type.String({ maxLength: 64, description: 'A time to come, as 2027-01-31T12:00:00Z' })

export const ShareWith = Type.Union([
  Type.Object({ userId: Type.String({ minLength: 1, maxLength: 255 }) }, { additionalProperties: false }),
  Type.Object({ email: Type.String({ minLength: 3, maxLength: 320 }) }, { additionalProperties: false }),
  Type.Object({ org: Type.Literal(true) }, { additionalProperties: false })
], { description: 'A person, by id or email, or everyone of your organization' })

export const ShareBody = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 1024, description: 'Your file or folder (a folder with or without its trailing "/")' }),
  with: ShareWith,
  role: Role,
  expiresAt: Type.Optional(When)
}, { additionalProperties: false })
export type ShareBody = Static<typeof ShareBody>

export const ShareChange = Type.Object({
  role: Type.Optional(Role),
  expiresAt: Type.Optional(Type.Union([When, Type.Null()], { description: 'null: it no longer expires' }))
}, { additionalProperties: false })
export type ShareChange = Static<typeof ShareChange>

export const ShareIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
export const SharesQuery = Type.Object({ path: Type.Optional(Type.String({ maxLength: 1024, description: 'Only shares at or under this path' })) })

export const Share = Type.Object({
  id: Type.String(),
  path: Type.String({ description: 'Your file, or your folder ending in "/"; it follows the file or folder when you move it' }),
  with: Type.Union([
    Type.Object({ userId: Type.String(), email: Type.Optional(Type.String()), name: Type.Optional(Type.String()) }),
    Type.Object({ org: Type.Literal(true) })
  ]),
  role: Role,
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.Optional(Type.String({ format: 'date-time' }))
}, { $id: 'StowageShare' })

export const ShareList = Type.Object({ shares: Type.Array(Type.Ref(Share)) }, { $id: 'StowageShares' })

export const Received = Type.Object({
  id: Type.String({ description: 'The share\'s id, as its owner sees it too' }),
  name: Type.String({ description: 'Where it is mounted: the top of your files, under this name' }),
  owner: Type.Object({ userId: Type.String(), email: Type.Optional(Type.String()), name: Type.Optional(Type.String()) }),
  role: Role,
  kind: Type.Union([Type.Literal('folder'), Type.Literal('file')]),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.Optional(Type.String({ format: 'date-time' }))
}, { $id: 'StowageReceivedShare' })

export const ReceivedList = Type.Object({ shares: Type.Array(Type.Ref(Received)) }, { $id: 'StowageReceivedShares' })

export const MountRename = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, description: 'The mount\'s new name at the top of your files' })
}, { additionalProperties: false })

export const shareSchemas = [Share, ShareList, Received, ReceivedList]
