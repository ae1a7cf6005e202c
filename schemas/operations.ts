import { Type, type Static } from '@sinclair/typebox'

export const TransferBody = Type.Object({
  from: Type.String({ minLength: 1, description: 'A file\'s path, or a folder\'s ending in "/" (every file under it)' }),
  to: Type.String({ description: 'The destination path; for a folder, a folder ending in "/" (or "" for your root)' })
}, { $id: 'StowageTransfer', additionalProperties: false })
export type TransferBody = Static<typeof TransferBody>

export const FolderTransferred = Type.Object({
  files: Type.Integer({ description: 'Files copied or moved by this request' }),
  bytes: Type.Integer({ description: 'Their bytes' }),
  isTruncated: Type.Boolean({ description: 'The request stopped at its time budget: send it again to go on' })
}, { $id: 'StowageFolderTransferred' })

export const ArchiveQuery = Type.Object({
  prefix: Type.String({ description: 'The folder to zip (ending in "/"), or any prefix; "" for every file' })
})

export const ArchiveSelection = Type.Object({
  prefix: Type.String({ maxLength: 1024, description: 'The folder the names are in (ending in "/"), or "" for your root' }),
  names: Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
    minItems: 1, maxItems: 1000, description: 'Files and folders in it (a folder\'s name ends in "/"): each is zipped under its name, a folder with everything under it'
  })
}, { $id: 'StowageArchiveSelection', additionalProperties: false })
export type ArchiveSelection = Static<typeof ArchiveSelection>

export const operationSchemas = [TransferBody, FolderTransferred, ArchiveSelection]
