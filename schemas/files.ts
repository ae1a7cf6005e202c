import { Type, type Static } from '@sinclair/typebox'

export const FilePathParams = Type.Object({
  '*': Type.String({ description: 'Path of the file relative to your root, percent-encoded once; "/" separates folders' })
})
export type FilePathParams = Static<typeof FilePathParams>

export const ListFilesQuery = Type.Object({
  prefix: Type.Optional(Type.String({ description: 'Only files whose path starts with this' })),
  continuationToken: Type.Optional(Type.String({ description: 'From the previous page' }))
})
export type ListFilesQuery = Static<typeof ListFilesQuery>

export const FileEntry = Type.Object({
  key: Type.String({ description: 'Path relative to your root' }),
  size: Type.Integer({ description: 'Size in bytes' }),
  lastModified: Type.String({ format: 'date-time' })
}, { $id: 'StowageFileEntry' })

export const FileList = Type.Object({
  files: Type.Array(Type.Ref(FileEntry), { maxItems: 100 }),
  isTruncated: Type.Boolean(),
  continuationToken: Type.Optional(Type.String({ description: 'Present exactly when isTruncated' }))
}, { $id: 'StowageFileList' })
export type FileList = Static<typeof FileList>

const mediaType = (description = 'Media type, e.g. text/markdown') => Type.String({
  pattern: '^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+( *;[ -~]*)?$',
  maxLength: 255,
  description
})

export const FileContent = Type.Object({
  content: Type.String({ description: 'The file, base64-encoded' }),
  contentType: mediaType()
}, { $id: 'StowageFileContent' })
export type FileContent = Static<typeof FileContent>

export const FileUpload = Type.Object({
  content: Type.String({ description: 'The file, standard base64 with padding' }),
  // No `default` here: generators would make an optional field required. The route applies it.
  contentType: Type.Optional(mediaType('Media type, e.g. text/markdown; application/octet-stream when absent'))
}, { $id: 'StowageFileUpload', additionalProperties: false })
export type FileUpload = Static<typeof FileUpload>

export const FileWritten = Type.Object({
  key: Type.String(),
  size: Type.Integer(),
  contentType: Type.String(),
  lastModified: Type.String({ format: 'date-time' })
}, { $id: 'StowageFileWritten' })

export const fileSchemas = [FileEntry, FileList, FileContent, FileUpload, FileWritten]
