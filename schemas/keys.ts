import { Type, type Static } from '@sinclair/typebox'

export const CreateKeyBody = Type.Object({
  // No control characters (C0, DEL, C1): PostgreSQL refuses NUL in text, and they have no place in a label.
  name: Type.Optional(Type.String({ maxLength: 200, pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]*$', description: 'A label for you; not secret; no control characters' })),
  expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the key stops working; never when absent' }))
}, { $id: 'StowageKeyRequest', additionalProperties: false, description: 'Both fields are optional, and so is the body itself' })
export type CreateKeyBody = Static<typeof CreateKeyBody>

export const CreatedKey = Type.Object({
  id: Type.String(),
  key: Type.String({ description: 'The key itself: shown this once, never again' }),
  name: Type.String(),
  start: Type.String({ description: 'Prefix and id: enough to recognise the key, useless to use it' }),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()])
}, { $id: 'StowageCreatedKey' })

export const KeySummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  start: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()])
}, { $id: 'StowageKeySummary' })

export const KeyList = Type.Object({ keys: Type.Array(Type.Ref(KeySummary)) }, { $id: 'StowageKeyList' })

export const KeyIdParams = Type.Object({ id: Type.String({ pattern: '^[0-9A-Za-z]{1,64}$', description: 'The id of a key (its `start` without the prefix)' }) })

export const keySchemas = [CreateKeyBody, CreatedKey, KeySummary, KeyList]
