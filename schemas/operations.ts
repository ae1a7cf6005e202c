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

export const operationSchemas = [TransferBody, FolderTransferred]
