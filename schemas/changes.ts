import { Type } from '@sinclair/typebox'
import { MAX_WAIT_SECONDS } from '../storage/changes.js'

export const ChangeItem = Type.Object({
  op: Type.Union(['put', 'delete', 'move', 'folder', 'folder-delete', 'share', 'unshare'].map((op) => Type.Literal(op)), { description: 'put: made or replaced (restores included); move: one per file, with `from`; share: a share received, renamed or changed, mounted at `key`; unshare: the mount at `key` is gone' }),
  key: Type.String({ description: 'The path (a folder\'s ends in "/")' }),
  from: Type.Optional(Type.String({ description: 'A move\'s source' })),
  size: Type.Optional(Type.Integer()),
  etag: Type.Optional(Type.String()),
  contentType: Type.Optional(Type.String()),
  at: Type.String({ format: 'date-time' })
}, { $id: 'StowageChange' })

export const ChangeList = Type.Object({
  changes: Type.Array(Type.Ref(ChangeItem), { maxItems: 1000, description: 'Oldest first' }),
  cursor: Type.String({ description: 'Where to go on from: send it back as `cursor`' }),
  hasMore: Type.Boolean({ description: 'More changes follow at once: ask again with `cursor`' })
}, { $id: 'StowageChangeList' })

export const ChangeCursor = Type.Object({
  cursor: Type.String({ description: 'The journal\'s position now' })
}, { $id: 'StowageChangeCursor' })

export const ChangesQuery = Type.Object({
  cursor: Type.String({ minLength: 1, description: 'From GET /api/changes/latest or the previous answer' }),
  prefix: Type.Optional(Type.String({ description: 'Only changes under this prefix (a move counts for both of its paths)' })),
  wait: Type.Optional(Type.String({ pattern: '^(0|[1-9][0-9]{0,2})$', description: `Seconds (0–${MAX_WAIT_SECONDS}) to hold the request until a change exists; then \`changes: []\` and the same cursor` }))
})

export const changeSchemas = [ChangeItem, ChangeList, ChangeCursor]
