import { Type } from '@sinclair/typebox'

export const VersionItem = Type.Object({
  id: Type.String({ description: 'The version\'s own id, for download, restore and removal' }),
  size: Type.Integer(),
  etag: Type.String(),
  contentType: Type.String(),
  lastModified: Type.String({ format: 'date-time', description: 'When this content was written' })
}, { $id: 'StowageVersion' })

export const VersionList = Type.Object({
  versions: Type.Array(Type.Ref(VersionItem), { maxItems: 100, description: 'Newest first; the current file is not among them' }),
  isTruncated: Type.Boolean(),
  continuationToken: Type.Optional(Type.String({ description: 'Present exactly when isTruncated' }))
}, { $id: 'StowageVersionList' })

export const VersionListQuery = Type.Object({
  path: Type.String({ minLength: 1, description: 'The file whose earlier versions are listed' }),
  continuationToken: Type.Optional(Type.String({ description: 'From the previous page' }))
})

export const VersionIdParams = Type.Object({
  id: Type.String({ pattern: '^[0-9a-f]{32}$', description: 'A version\'s id' })
})

export const versionSchemas = [VersionItem, VersionList]
