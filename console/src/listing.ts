// A folder's rows as the console shows them: its folders and files, named within it, sorted.
import type { Listing, Mount, Role, ServiceOrder } from './api.js'

/** A row someone else shares with the person: by whom, as what, and whether it is the mount itself
 *  (at the top of their files) or something in it. */
export interface Shared { id: string, role: Role, owner: string, mount: boolean }

export type Row = ({ name: string, folder: true, prefix: string } | { name: string, folder: false, size: number, lastModified: string, etag: string }) & { shared?: Shared }

const nameIn = (prefix: string, key: string) => key.slice(prefix.length).replace(/\/$/, '')

/** Who shares a mount, as a person reads it: their name, else their email, else their id. */
export const ownerOf = (mount: Mount) => mount.owner.name ?? mount.owner.email ?? mount.owner.userId

/** The folder mount that `prefix` lies in, if it lies in one. */
export const mountOf = (prefix: string, mounts: Mount[]) => mounts.find((mount) => mount.kind === 'folder' && prefix.startsWith(`${mount.name}/`))

/** A row's `shared`, when `mount` (the row itself, or the one it lies in) is someone else's share. */
export const sharedAs = (mount: Mount | undefined, isMount = false): { shared?: Shared } =>
  mount ? { shared: { id: mount.id, role: mount.role, owner: ownerOf(mount), mount: isMount } } : {}

/** Files and folders together, in key order, as the service pages them; what others share is marked
 *  with who shares it (`mounts`: GET /api/shared). */
export function rowsOf (prefix: string, listing: Listing, mounts: Mount[] = []): Row[] {
  const within = mountOf(prefix, mounts)
  const at = (name: string, kind: Mount['kind']) => prefix === '' ? mounts.find((mount) => mount.name === name && mount.kind === kind) : undefined
  const folders: Row[] = (listing.folders ?? []).map((folder) => {
    const name = nameIn(prefix, folder)
    const mount = at(name, 'folder')
    return { name, folder: true, prefix: folder, ...sharedAs(mount ?? within, mount !== undefined) }
  })
  const files: Row[] = listing.files.map((file) => {
    const name = nameIn(prefix, file.key)
    const mount = at(name, 'file')
    return { name, folder: false, size: file.size, lastModified: file.lastModified, etag: file.etag, ...sharedAs(mount ?? within, mount !== undefined) }
  })
  return [...folders, ...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

export const ROLE_NAMES: Record<Role, string> = { viewer: 'Viewer', editor: 'Editor' }
/** "Shared by Ada Lovelace · Viewer". */
export const sharedLine = (shared: Pick<Shared, 'owner' | 'role'>) => `Shared by ${shared.owner} · ${ROLE_NAMES[shared.role]}`

export const bytes = (size: number) => size < 1024 ? `${size} B` : size < 1024 ** 2 ? `${(size / 1024).toFixed(1)} KiB` : size < 1024 ** 3 ? `${(size / 1024 ** 2).toFixed(1)} MiB` : `${(size / 1024 ** 3).toFixed(1)} GiB`

/** `name`, or `name (1)`, `name (2)`… (before a file's extension): the first not in `taken`. */
export function freeName (name: string, taken: Set<string>, folder = false) {
  const dot = folder ? -1 : name.lastIndexOf('.')
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, '']
  let candidate = name
  for (let i = 1; taken.has(candidate); i++) candidate = `${stem} (${i})${extension}`
  return candidate
}

export type SortKey = 'name' | 'size' | 'date'
export interface SortOrder { key: SortKey, descending: boolean }

/** The order the service sorts a whole folder in, for this column: folders first, always. */
export const serviceOrder = ({ key, descending }: SortOrder): ServiceOrder =>
  ({ sort: key === 'date' ? 'lastModified' : key, order: descending ? 'desc' : 'asc', folders: 'first' })

const compare = (x: string | number, y: string | number) => x < y ? -1 : x > y ? 1 : 0

/** The rows shown sorted by a column, as the service sorts the folder for the console: folders
 *  first (by name), then files, ties by name. */
export function sorted (rows: Row[], { key, descending }: SortOrder) {
  const direction = descending ? -1 : 1
  return rows.slice().sort((a, b) => {
    if (a.folder !== b.folder) return a.folder ? -1 : 1
    if (a.folder || b.folder || key === 'name') return direction * compare(a.name, b.name)
    const [x, y] = key === 'size' ? [a.size, b.size] : [a.lastModified, b.lastModified]
    return direction * compare(x, y) || compare(a.name, b.name)
  })
}
