// What the console offers a person on a row or a folder: everything on their own files; on what
// others share with them, what the share's role lets them do (the service decides it again, and
// refuses the rest with 403: no control is shown that would only be refused).
import type { Role } from './api.js'
import type { Row } from './listing.js'

export type RowAction = 'preview' | 'download' | 'share' | 'versions' | 'rename' | 'move' | 'copy' | 'delete' | 'leave'

const FILE_ACTIONS: RowAction[] = ['download', 'share', 'versions', 'rename', 'move', 'copy', 'delete']
const FOLDER_ACTIONS: RowAction[] = ['download', 'share', 'rename', 'move', 'copy', 'delete']
/** What a viewer may do: read, and copy out to their own files. */
const READING: RowAction[] = ['preview', 'download', 'versions', 'copy']
/** A mount is renamed or left; what it holds is the owner's. */
const MOUNT_ACTIONS: RowAction[] = ['download', 'versions', 'rename', 'leave']

/** Whether the person may change what is in a folder of theirs, or one shared with them as `role`. */
export const canWrite = (role: Role | undefined) => role !== 'viewer'

/** The actions of a row's menu, in order. Grantees share nothing further and make no links. */
export function actionsOf (row: Row): RowAction[] {
  const all = row.folder ? FOLDER_ACTIONS : FILE_ACTIONS
  const { shared } = row
  if (!shared) return all
  if (shared.mount) return MOUNT_ACTIONS.filter((action) => action !== 'versions' || !row.folder)
  return all.filter((action) => action !== 'share' && (canWrite(shared.role) || READING.includes(action)))
}
