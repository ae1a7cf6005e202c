import { Type } from '@sinclair/typebox'

export const Usage = Type.Object({
  usedBytes: Type.Integer({ description: 'fileBytes + trashBytes + versionBytes + uploadBytes: what counts against the quota' }),
  quotaBytes: Type.Union([Type.Integer(), Type.Null()], { description: 'Your quota (yours, your organization\'s or QUOTA_BYTES); null when none applies' }),
  fileBytes: Type.Integer(),
  trashBytes: Type.Integer({ description: 'Deleted files, until they are purged' }),
  versionBytes: Type.Integer({ description: 'Replaced files kept as versions; the oldest go first when a write needs room' }),
  uploadBytes: Type.Integer({ description: 'The declared length of your unfinished resumable uploads' }),
  fileCount: Type.Integer()
}, { $id: 'StowageUsage' })

export const usageSchemas = [Usage]
