// A folder's rows as the console shows them: its folders and files, named within it, sorted.
import type { Listing, ServiceOrder } from './api.js'

export type Row = { name: string, folder: true, prefix: string } | { name: string, folder: false, size: number, lastModified: string, etag: string }

const nameIn = (prefix: string, key: string) => key.slice(prefix.length).replace(/\/$/, '')

/** Files and folders together, in key order, as the service pages them. */
export function rowsOf (prefix: string, listing: Listing): Row[] {
  const folders: Row[] = (listing.folders ?? []).map((folder) => ({ name: nameIn(prefix, folder), folder: true, prefix: folder }))
  const files: Row[] = listing.files.map((file) => ({ name: nameIn(prefix, file.key), folder: false, size: file.size, lastModified: file.lastModified, etag: file.etag }))
  return [...folders, ...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

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
