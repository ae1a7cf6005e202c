import { Type, type Static } from '@sinclair/typebox'

export const TrashItem = Type.Object({
  id: Type.String({ description: 'The item\'s own id, for restore and purge' }),
  key: Type.String({ description: 'Where the file was' }),
  size: Type.Integer(),
  etag: Type.String(),
  deletedAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time', description: 'When it is purged for good' })
}, { $id: 'StowageTrashItem' })

export const TrashList = Type.Object({
  items: Type.Array(Type.Ref(TrashItem), { maxItems: 100, description: 'Newest first' }),
  isTruncated: Type.Boolean(),
  continuationToken: Type.Optional(Type.String({ description: 'Present exactly when isTruncated' }))
}, { $id: 'StowageTrashList' })

export const TrashListQuery = Type.Object({
  continuationToken: Type.Optional(Type.String({ description: 'From the previous page' }))
})

export const TrashIdParams = Type.Object({
  id: Type.String({ pattern: '^[0-9a-f]{32}$', description: 'A trash item\'s id' })
})

export const RestoreBody = Type.Object({
  to: Type.Optional(Type.String({ minLength: 1, description: 'Where to put it back; its own path when absent' }))
}, { $id: 'StowageRestore', additionalProperties: false })
export type RestoreBody = Static<typeof RestoreBody>

export const trashSchemas = [TrashItem, TrashList, RestoreBody]
