import { bytes, sorted, type Row, type SortKey, type SortOrder } from './listing.js'
import { kindOf } from './preview.js'
import { following, hrefOf, type Route } from './route.js'
import type { Api } from './api.js'
import { RowGlyph } from './kinds.js'
import { Menu } from './menu.js'

export type RowAction = 'preview' | 'download' | 'share' | 'versions' | 'rename' | 'move' | 'copy' | 'delete'

interface FileTableProps {
  api: Api
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
// One click away beside the menu, where the row has room for them.
const AT_HAND: Array<keyof typeof LABELS> = ['download', 'share']

const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' })
const STEPS: Array<[Intl.RelativeTimeFormatUnit, number]> = [['second', 60], ['minute', 60], ['hour', 24], ['day', 7], ['week', 4.35], ['month', 12], ['year', Infinity]]

/** "3 min. ago", "yesterday", "2 mo. ago": when, as a person says it. */
export function ago (iso: string, now = Date.now()) {
  let amount = (new Date(iso).getTime() - now) / 1000
  for (const [unit, size] of STEPS) {
    if (Math.abs(amount) < size) return RELATIVE.format(Math.round(amount), unit)
    amount /= size
  }
  return RELATIVE.format(Math.round(amount), 'year')
}

function When ({ iso }: { iso: string }) {
  const exact = new Date(iso).toLocaleString()
  return <time dateTime={iso} title={exact}>{ago(iso)}</time>
}

/** A folder's rows: each named by its file or folder, folders as links, a file's name opening its preview. */
export function FileTable ({ api, titleId, rows, sort, onSort, selected, onSelect, keyOf, navigate, onAction }: FileTableProps) {
  const column = (key: SortKey, label: string, className?: string) => (
    <th scope="col" class={className} aria-sort={sort.key === key ? (sort.descending ? 'descending' : 'ascending') : undefined}>
      <button type="button" class="sort" onClick={() => onSort({ key, descending: sort.key === key && !sort.descending })}>
        {label}<span aria-hidden="true">{sort.key === key ? (sort.descending ? ' ▼' : ' ▲') : ''}</span>
      </button>
    </th>
  )
  const allKeys = rows.map(keyOf)
  const name = (row: Row) => {
    if (row.folder) {
      const route: Route = { view: 'files', prefix: row.prefix }
      return <a class="cut" title={row.name} href={hrefOf(route)} onClick={following(navigate, route)}>{row.name}/</a>
    }
    return kindOf(row.name)
      ? <button type="button" class="name cut" title={row.name} onClick={() => onAction('preview', row)}>{row.name}</button>
      : <span class="cut" title={row.name}>{row.name}</span>
  }

  return (
    <table class="files" aria-labelledby={titleId}>
      <thead>
        <tr>
          <td class="select"><input type="checkbox" aria-label="Select all" checked={rows.length > 0 && selected.size === rows.length}
            onChange={(event) => onSelect(allKeys, event.currentTarget.checked)} /></td>
          {column('name', 'Name')}{column('size', 'Size', 'size')}{column('date', 'Modified', 'date')}
          <th scope="col" class="actions"><span class="hidden">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        {sorted(rows, sort).map((row) => (
          <tr key={keyOf(row)} aria-label={row.name}>
            <td class="select"><input type="checkbox" aria-label={`Select ${row.name}`} checked={selected.has(keyOf(row))}
              onChange={(event) => onSelect([keyOf(row)], event.currentTarget.checked)} /></td>
            <th scope="row">
              <span class="named">
                <RowGlyph api={api} name={row.name} path={keyOf(row)} folder={row.folder} etag={row.folder ? undefined : row.etag} />
                <span class="name-lines">
                  {name(row)}
                  {!row.folder && <span class="meta">{bytes(row.size)} · <When iso={row.lastModified} /></span>}
                </span>
              </span>
            </th>
            <td class="size">{row.folder ? '—' : bytes(row.size)}</td>
            <td class="date">{row.folder ? '—' : <When iso={row.lastModified} />}</td>
            <td class="actions">
              {(row.folder ? FOLDER_ACTIONS : FILE_ACTIONS).filter((action) => AT_HAND.includes(action)).map((action) => (
                <button key={action} type="button" class="at-hand" aria-label={`${LABELS[action]} ${row.name}`} onClick={() => onAction(action, row)}>{LABELS[action]}</button>
              ))}
              <Menu label={`More actions for ${row.name}`} items={(row.folder ? FOLDER_ACTIONS : FILE_ACTIONS).map((action) => (
                { label: LABELS[action], name: `${LABELS[action]} ${row.name}`, danger: action === 'delete', run: () => onAction(action, row) }
              ))} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
