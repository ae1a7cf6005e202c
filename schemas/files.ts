import { Type, type Static } from '@sinclair/typebox'

export const FilePathParams = Type.Object({
  '*': Type.String({ description: 'Path of the file relative to your root, percent-encoded once; "/" separates folders' })
})
export type FilePathParams = Static<typeof FilePathParams>

export const ListFilesQuery = Type.Object({
  prefix: Type.Optional(Type.String({ description: 'Only files whose path starts with this' })),
  continuationToken: Type.Optional(Type.String({ description: 'From the previous page' })),
  delimiter: Type.Optional(Type.Literal('/', { description: '`/` lists one level: the files directly under `prefix`, and the folders below it once each in `folders`' })),
  sort: Type.Optional(Type.Union([Type.Literal('name'), Type.Literal('size'), Type.Literal('lastModified')], {
    description: 'With delimiter=/: the order of the whole folder, not of a page. `name` (the default) ascending is key order, files and folders together; any other sort or order gives the folders first, by name, then the files'
  })),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: '`asc` (the default) or `desc`' })),
  folders: Type.Optional(Type.Literal('first', { description: 'With delimiter=/: `first` gives the folders first in the name order too, as a file browser shows them' }))
})
export type ListFilesQuery = Static<typeof ListFilesQuery>

export const SearchQuery = Type.Object({
  q: Type.String({ maxLength: 256, description: 'Text to find in your files\' paths, in any case: 2 characters at least' }),
  prefix: Type.Optional(Type.String({ description: 'Only files whose path starts with this' })),
  sort: Type.Optional(Type.Union([Type.Literal('name'), Type.Literal('newest')], { description: 'By path (the default), or newest first' })),
  continuationToken: Type.Optional(Type.String({ description: 'From the previous page' }))
})
export type SearchQuery = Static<typeof SearchQuery>

const Etag = Type.String({ description: 'Strong validator of the content, quoted, as in the ETag header' })

export const FileEntry = Type.Object({
  key: Type.String({ description: 'Path relative to your root' }),
  size: Type.Integer({ description: 'Size in bytes' }),
  lastModified: Type.String({ format: 'date-time' }),
  etag: Etag,
  shared: Type.Optional(Type.Object({
    id: Type.String({ description: 'The share it is reached by (GET /api/shared)' }),
    role: Type.Union([Type.Literal('viewer'), Type.Literal('editor')]),
    owner: Type.String({ description: 'The owner\'s userId' })
  }, { description: 'Present on files at or under what is shared with you' }))
}, { $id: 'StowageFileEntry' })

export const FileList = Type.Object({
  files: Type.Array(Type.Ref(FileEntry), { maxItems: 100 }),
  folders: Type.Optional(Type.Array(Type.String(), { maxItems: 100, description: 'With delimiter=/: the next level\'s folders (`a/b/`), sharing the 100-entry page with files' })),
  isTruncated: Type.Boolean(),
  continuationToken: Type.Optional(Type.String({ description: 'Present exactly when isTruncated' }))
}, { $id: 'StowageFileList' })
export type FileList = Static<typeof FileList>

// type/subtype, then `; name=value` parameters whose values are tokens or quoted strings (RFC 9110
// §8.3.1), and no comma anywhere: a browser reads `text/plain; x=1, text/html` as its last type.
const TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]+"
const QUOTED = String.raw`"(?:[ !#-+\--\[\]-~]|\\[ -+\--~])*"`
const MEDIA_TYPE = `^${TOKEN}/${TOKEN}(?: *; *${TOKEN}=(?:${TOKEN}|${QUOTED}))* *$`
const MEDIA_TYPE_MAX_LENGTH = 255
const mediaTypePattern = new RegExp(MEDIA_TYPE)

/** A media type a file may have, in a schema. */
export const mediaType = (description = 'Media type, e.g. text/markdown') => Type.String({
  pattern: MEDIA_TYPE,
  maxLength: MEDIA_TYPE_MAX_LENGTH,
  description
})

/** Whether `value` is a media type a file may have, as `mediaType` checks it, for values outside a schema. */
export const isFileMediaType = (value: string) => value.length <= MEDIA_TYPE_MAX_LENGTH && mediaTypePattern.test(value)

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
  lastModified: Type.String({ format: 'date-time' }),
  etag: Etag
}, { $id: 'StowageFileWritten' })

const header = (description: string) => Type.Optional(Type.String({ description }))

/** Conditions of a read: a 304 when your copy is current. */
export const ReadHeaders = Type.Object({
  'if-none-match': header('Your copy\'s ETag (or a list, or *): 304 if the file still has it'),
  'if-modified-since': header('An HTTP date: 304 if the file has not changed since (ignored with If-None-Match)')
})

/** Conditions of a write or delete: 412 and nothing changed when they do not hold. */
export const WriteHeaders = Type.Object({
  'if-match': header('Change the file only if its ETag is this one (or one of a list); * for "only if it exists"'),
  'if-none-match': header('* to create the file only if it does not exist yet')
})

export const RangeHeaders = Type.Object({
  ...ReadHeaders.properties,
  range: header('One range of bytes: bytes=a-b, bytes=a- or bytes=-n (several ranges are answered 200 whole)'),
  'if-range': header('An ETag or date: the range is sent only if the file still matches it, else the whole file')
})

export const fileSchemas = [FileEntry, FileList, FileContent, FileUpload, FileWritten]
