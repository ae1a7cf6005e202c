import { useState } from 'preact/hooks'
import { bytes, sharedLine, sorted, type Row, type SortKey, type SortOrder } from './listing.js'
import { kindOf } from './preview.js'
import { following, hrefOf, type Route } from './route.js'
import type { Api } from './api.js'
import { RowGlyph } from './kinds.js'
import { Menu } from './menu.js'
import { actionsOf, type RowAction } from './rights.js'

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
  /** Rows to the trash (the Delete key). */
  onRemove: (rows: Row[]) => void
  /** Keys dropped onto a folder. */
  onMove: (keys: string[], folder: string) => void
  view?: View
}

// A card's picture, in CSS pixels.
const GRID_PIXELS = 128

const LABELS: Record<Exclude<RowAction, 'preview'>, string> = { download: 'Download', share: 'Share', versions: 'Versions', rename: 'Rename', move: 'Move', copy: 'Copy', delete: 'Delete', leave: 'Leave share' }
/** A row's actions in its menu (a preview opens from its name). */
const menuActions = (row: Row) => actionsOf(row).filter((action): action is keyof typeof LABELS => action !== 'preview')
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

/** What a drag of rows carries: their keys, for a drop onto a folder (a drop of files uploads them). */
export const DRAGGED_KEYS = 'application/x-stowage-keys'

export type View = 'list' | 'grid'

/**
 * A folder's rows, as a table (`list`) or as cards with large thumbnails (`grid`): each named by its
 * file or folder, folders as links, a file's name opening its preview. Keys on a focused row: arrows
 * (and Home, End) move, Enter opens, Space ticks, Delete removes (what is ticked, when the row is),
 * F2 renames. A row dragged onto a folder moves there (with what is ticked, when it is).
 */
export function FileTable ({ api, titleId, rows, sort, onSort, selected, onSelect, keyOf, navigate, onAction, onRemove, onMove, view = 'list' }: FileTableProps) {
  const [current, setCurrent] = useState<string>()
  const [target, setTarget] = useState<string>()
  const shown = sorted(rows, sort)
  const focusKey = current !== undefined && shown.some((row) => keyOf(row) === current) ? current : shown[0] && keyOf(shown[0])
  const allKeys = rows.map(keyOf)
  /** The rows an action on `row` is for: what is ticked, when `row` is among it; else `row` alone. */
  const withTicked = (row: Row) => selected.has(keyOf(row)) ? shown.filter((other) => selected.has(keyOf(other))) : [row]

  const column = (key: SortKey, label: string, className?: string) => (
    <th scope="col" class={className} aria-sort={sort.key === key ? (sort.descending ? 'descending' : 'ascending') : undefined}>
      <button type="button" class="sort" onClick={() => onSort({ key, descending: sort.key === key && !sort.descending })}>
        {label}<span aria-hidden="true">{sort.key === key ? (sort.descending ? ' ▼' : ' ▲') : ''}</span>
      </button>
    </th>
  )
  const open = (row: Row) => {
    if (row.folder) navigate({ view: 'files', prefix: row.prefix })
    else onAction(kindOf(row.name) ? 'preview' : 'download', row)
  }
  const name = (row: Row) => {
    if (row.folder) {
      const route: Route = { view: 'files', prefix: row.prefix }
      return <a class="cut" title={row.name} href={hrefOf(route)} onClick={following(navigate, route)}>{row.name}/</a>
    }
    return kindOf(row.name)
      ? <button type="button" class="name cut" title={row.name} onClick={() => onAction('preview', row)}>{row.name}</button>
      : <span class="cut" title={row.name}>{row.name}</span>
  }
  const tick = (row: Row) => (
    <input type="checkbox" aria-label={`Select ${row.name}`} checked={selected.has(keyOf(row))}
      onChange={(event) => onSelect([keyOf(row)], event.currentTarget.checked)} />
  )
  /** Every action of a row, in its menu (a list's row and a grid's card alike). */
  const menu = (row: Row) => (
    <Menu label={`More actions for ${row.name}`} items={menuActions(row).map((action) => (
      { label: LABELS[action], name: `${LABELS[action]} ${row.name}`, danger: action === 'delete' || action === 'leave', run: () => onAction(action, row) }
    ))} />
  )
  const actions = (row: Row) => (
    <>
      {menuActions(row).filter((action) => AT_HAND.includes(action)).map((action) => (
        <button key={action} type="button" class="at-hand" aria-label={`${LABELS[action]} ${row.name}`} onClick={() => onAction(action, row)}>{LABELS[action]}</button>
      ))}
      {menu(row)}
    </>
  )

  /** Keys on the row itself (not on a control inside it). */
  const onKeyDown = (row: Row, at: number) => (event: KeyboardEvent) => {
    if (event.target !== event.currentTarget) return
    const moves: Record<string, number> = { ArrowDown: at + 1, ArrowRight: at + 1, ArrowUp: at - 1, ArrowLeft: at - 1, Home: 0, End: shown.length - 1 }
    if (event.key in moves) {
      const next = shown[Math.max(0, Math.min(shown.length - 1, moves[event.key]))]
      setCurrent(keyOf(next))
      ;(event.currentTarget as HTMLElement).parentElement?.querySelector<HTMLElement>(`[data-key="${CSS.escape(keyOf(next))}"]`)?.focus()
    } else if (event.key === 'Enter') open(row)
    else if (event.key === ' ') onSelect([keyOf(row)], !selected.has(keyOf(row)))
    else if (event.key === 'Delete') onRemove(withTicked(row))
    else if (event.key === 'F2' && actionsOf(row).includes('rename')) onAction('rename', row)
    else return
    event.preventDefault()
  }
  /** A row's focus, keys and drag, and, for a folder, what is dropped onto it. */
  const behaviour = (row: Row, at: number) => ({
    'data-key': keyOf(row),
    tabIndex: keyOf(row) === focusKey ? 0 : -1,
    onFocus: (event: FocusEvent) => { if (event.target === event.currentTarget) setCurrent(keyOf(row)) },
    onKeyDown: onKeyDown(row, at),
    draggable: true,
    onDragStart: (event: DragEvent) => event.dataTransfer?.setData(DRAGGED_KEYS, JSON.stringify(withTicked(row).map(keyOf))),
    ...(row.folder
      ? {
          class: target === keyOf(row) ? 'drop-target' : undefined,
          onDragOver: (event: DragEvent) => {
            if (!event.dataTransfer?.types.includes(DRAGGED_KEYS)) return
            event.preventDefault()
            event.stopPropagation()
            setTarget(keyOf(row))
          },
          onDragLeave: () => setTarget(undefined),
          onDrop: (event: DragEvent) => {
            const keys = event.dataTransfer?.getData(DRAGGED_KEYS)
            setTarget(undefined)
            if (!keys) return
            event.preventDefault()
            event.stopPropagation()
            const moved = (JSON.parse(keys) as string[]).filter((key) => key !== row.prefix)
            if (moved.length > 0) onMove(moved, row.prefix)
          }
        }
      : {})
  })

  if (view === 'grid') {
    return (
      <div class="grid-view">
        <label class="select-all"><input type="checkbox" checked={rows.length > 0 && selected.size === rows.length}
          onChange={(event) => onSelect(allKeys, event.currentTarget.checked)} /> Select all</label>
        <ul class="grid" aria-labelledby={titleId}>
          {shown.map((row, at) => (
            <li key={keyOf(row)} aria-label={row.name} {...behaviour(row, at)}>
              <RowGlyph api={api} name={row.name} path={keyOf(row)} folder={row.folder} etag={row.folder ? undefined : row.etag} size={GRID_PIXELS} />
              <span class="card-name">{tick(row)}{name(row)}</span>
              <span class="card-foot">
                <span class="meta">{row.shared?.mount ? sharedLine(row.shared) : row.folder ? 'Folder' : <>{bytes(row.size)} · <When iso={row.lastModified} /></>}</span>
                {menu(row)}
              </span>
            </li>
          ))}
        </ul>
      </div>
    )
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
        {shown.map((row, at) => (
          <tr key={keyOf(row)} aria-label={row.name} {...behaviour(row, at)}>
            <td class="select">{tick(row)}</td>
            <th scope="row">
              <span class="named">
                <RowGlyph api={api} name={row.name} path={keyOf(row)} folder={row.folder} etag={row.folder ? undefined : row.etag} />
                <span class="name-lines">
                  {name(row)}
                  {!row.folder && <span class="meta">{bytes(row.size)} · <When iso={row.lastModified} /></span>}
                  {row.shared?.mount && <span class="shared-by">{sharedLine(row.shared)}</span>}
                </span>
              </span>
            </th>
            <td class="size">{row.folder ? '—' : bytes(row.size)}</td>
            <td class="date">{row.folder ? '—' : <When iso={row.lastModified} />}</td>
            <td class="actions">{actions(row)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
