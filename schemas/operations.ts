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

export const Usage = Type.Object({
  usedBytes: Type.Integer({ description: 'fileBytes + trashBytes + uploadBytes: what counts against the quota' }),
  quotaBytes: Type.Union([Type.Integer(), Type.Null()], { description: 'Your quota (yours, your organization\'s or QUOTA_BYTES); null when none applies' }),
  fileBytes: Type.Integer(),
  trashBytes: Type.Integer({ description: 'Deleted files, until they are purged' }),
  uploadBytes: Type.Integer({ description: 'The declared length of your unfinished resumable uploads' }),
  fileCount: Type.Integer()
}, { $id: 'StowageUsage' })

export const operationSchemas = [TransferBody, FolderTransferred, TrashItem, TrashList, RestoreBody, Usage]
