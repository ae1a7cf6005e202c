import { Type, type Static } from '@sinclair/typebox'

export const CreateKeyBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200, description: 'A label for you; not secret' })),
  expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the key stops working; never when absent' }))
}, { additionalProperties: false })
export type CreateKeyBody = Static<typeof CreateKeyBody>

export const CreatedKey = Type.Object({
  id: Type.String(),
  key: Type.String({ description: 'The key itself: shown this once, never again' }),
  name: Type.String(),
  start: Type.String({ description: 'Prefix and id: enough to recognise the key, useless to use it' }),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()])
}, { $id: 'CreatedKey' })

export const KeySummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  start: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()])
}, { $id: 'KeySummary' })

export const KeyList = Type.Object({ keys: Type.Array(Type.Ref(KeySummary)) }, { $id: 'KeyList' })

export const KeyIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

export const keySchemas = [CreatedKey, KeySummary, KeyList]
