import { bytes, sorted, type Row, type SortKey, type SortOrder } from './listing.js'
import { kindOf } from './preview.js'
import { following, hrefOf, type Route } from './route.js'

export type RowAction = 'preview' | 'download' | 'share' | 'versions' | 'rename' | 'move' | 'copy' | 'delete'

interface FileTableProps {
  titleId: string
  rows: Row[]
  sort: SortOrder
  onSort: (sort: SortOrder) => void
  /** The keys of the rows ticked, for actions on several at once. */
  selected: Set<string>
  onSelect: (keys: string[], ticked: boolean) => void
  keyOf: (row: Row) => string
  navigate: (route: Route) => void
  onAction: (action: RowAction, row: Row) => void
}

const LABELS: Record<Exclude<RowAction, 'preview'>, string> = { download: 'Download', share: 'Share', versions: 'Versions', rename: 'Rename', move: 'Move', copy: 'Copy', delete: 'Delete' }
const FILE_ACTIONS: Array<keyof typeof LABELS> = ['download', 'share', 'versions', 'rename', 'move', 'copy', 'delete']
const FOLDER_ACTIONS: Array<keyof typeof LABELS> = ['download', 'rename', 'move', 'copy', 'delete']

/** A folder's rows: each named by its file or folder, folders as links, a file's name opening its preview. */
export function FileTable ({ titleId, rows, sort, onSort, selected, onSelect, keyOf, navigate, onAction }: FileTableProps) {
  const column = (key: SortKey, label: string) => (
    <th scope="col" aria-sort={sort.key === key ? (sort.descending ? 'descending' : 'ascending') : undefined}>
      <button type="button" class="sort" onClick={() => onSort({ key, descending: sort.key === key && !sort.descending })}>
        {label}<span aria-hidden="true">{sort.key === key ? (sort.descending ? ' ▼' : ' ▲') : ''}</span>
      </button>
    </th>
  )
  const allKeys = rows.map(keyOf)
  const name = (row: Row) => {
    if (row.folder) {
      const route: Route = { view: 'files', prefix: row.prefix }
      return <a href={hrefOf(route)} onClick={following(navigate, route)}>{row.name}/</a>
    }
    return kindOf(row.name) ? <button type="button" class="name" onClick={() => onAction('preview', row)}>{row.name}</button> : row.name
  }

  return (
    <table aria-labelledby={titleId}>
      <thead>
        <tr>
          <td class="select"><input type="checkbox" aria-label="Select all" checked={rows.length > 0 && selected.size === rows.length}
            onChange={(event) => onSelect(allKeys, event.currentTarget.checked)} /></td>
          {column('name', 'Name')}{column('size', 'Size')}{column('date', 'Modified')}
          <th scope="col"><span class="hidden">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        {sorted(rows, sort).map((row) => (
          <tr key={keyOf(row)} aria-label={row.name}>
            <td class="select"><input type="checkbox" aria-label={`Select ${row.name}`} checked={selected.has(keyOf(row))}
              onChange={(event) => onSelect([keyOf(row)], event.currentTarget.checked)} /></td>
            <th scope="row">{name(row)}</th>
            <td class="size">{row.folder ? '—' : bytes(row.size)}</td>
            <td class="date">{row.folder ? '—' : <time dateTime={row.lastModified}>{new Date(row.lastModified).toLocaleString()}</time>}</td>
            <td class="actions">
              {(row.folder ? FOLDER_ACTIONS : FILE_ACTIONS).map((action) => (
                <button key={action} type="button" aria-label={`${LABELS[action]} ${row.name}`} onClick={() => onAction(action, row)}>{LABELS[action]}</button>
              ))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
