import { Type, type Static } from '@sinclair/typebox'

export const StorageLocation = Type.Object({
  userId: Type.String(),
  bucket: Type.String(),
  region: Type.String(),
  prefix: Type.String({ description: 'users/{userId}/<root>/' })
}, { $id: 'StorageLocation' })
export type StorageLocation = Static<typeof StorageLocation>

export const authSchemas = [StorageLocation]
