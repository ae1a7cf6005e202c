import { useEffect, useRef, useState } from 'preact/hooks'
import type { Api, Listing } from './api.js'
import { Breadcrumbs } from './breadcrumbs.js'
import { following, hrefOf, type Route } from './route.js'
import { Transfers, useUploads, type Outgoing } from './uploads.js'
import { NameTaken, type Choice } from './name-taken.js'
import { useAction } from './use-action.js'
import { AskName } from './ask-name.js'
import { Share } from './share.js'

interface FilesProps {
  api: Api
  prefix: string
  navigate: (route: Route) => void
  onUnauthorized: () => void
}

type Row = { name: string, folder: true, prefix: string } | { name: string, folder: false, size: number, lastModified: string, etag: string }

const nameIn = (prefix: string, key: string) => key.slice(prefix.length).replace(/\/$/, '')

/** Files and folders together, in key order, as the service pages them. */
function rowsOf (prefix: string, listing: Listing): Row[] {
  const folders: Row[] = listing.folders.map((folder) => ({ name: nameIn(prefix, folder), folder: true, prefix: folder }))
  const files: Row[] = listing.files.map((file) => ({ name: nameIn(prefix, file.key), folder: false, size: file.size, lastModified: file.lastModified, etag: file.etag }))
  return [...folders, ...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

const bytes = (size: number) => size < 1024 ? `${size} B` : size < 1024 ** 2 ? `${(size / 1024).toFixed(1)} KiB` : size < 1024 ** 3 ? `${(size / 1024 ** 2).toFixed(1)} MiB` : `${(size / 1024 ** 3).toFixed(1)} GiB`

/** `name`, or `name (1)`, `name (2)`… before its extension: the first not in `taken`. */
function freeName (name: string, taken: Set<string>) {
  const dot = name.lastIndexOf('.')
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, '']
  let candidate = name
  for (let i = 1; taken.has(candidate); i++) candidate = `${stem} (${i})${extension}`
  return candidate
}

type SortKey = 'name' | 'size' | 'date'
const sortValue = (row: Row, key: SortKey): string | number =>
  key === 'name' ? row.name : row.folder ? -1 : key === 'size' ? row.size : row.lastModified

/** The rows shown sorted by a column, folders first when sorting by size or date. */
function sorted (rows: Row[], { key, descending }: { key: SortKey, descending: boolean }) {
  const order = rows.slice().sort((a, b) => {
    const [x, y] = [sortValue(a, key), sortValue(b, key)]
    return x < y ? -1 : x > y ? 1 : 0
  })
  return descending ? order.reverse() : order
}

/** One folder: breadcrumbs, then its files and folders a page at a time. */
export function Files ({ api, prefix, navigate, onUnauthorized }: FilesProps) {
  const [rows, setRows] = useState<Row[]>([])
  const [next, setNext] = useState<string>()
  const [loading, setLoading] = useState(true)
  const { error, attempt } = useAction(onUnauthorized)
  const [undo, setUndo] = useState<{ name: string, trashId: string }>()
  const [sort, setSort] = useState<{ key: SortKey, descending: boolean }>({ key: 'name', descending: false })
  const [usage, setUsage] = useState<{ usedBytes: number, quotaBytes: number | null }>()
  // What a dialog is asking for: a new folder's name, or where a file or folder goes.
  const [asking, setAsking] = useState<{ kind: 'folder' } | { kind: 'rename' | 'move' | 'share', row: Row }>()
  const [taken, setTaken] = useState<{ name: string, choose: (choice: Choice) => void }>()
  const chooser = useRef<HTMLInputElement>(null)
  const uploads = useUploads(api, () => { void load() })

  const load = (continuationToken?: string) => attempt(async () => {
    setLoading(true)
    try {
      const [listing] = await Promise.all([api.list(prefix, continuationToken), continuationToken ? undefined : api.usage().then(setUsage)])
      setRows((shown) => [...(continuationToken ? shown : []), ...rowsOf(prefix, listing)])
      setNext(listing.isTruncated ? listing.continuationToken : undefined)
    } finally {
      setLoading(false)
    }
  })
  useEffect(() => { setRows([]); void load() }, [prefix])

  const download = (name: string) => attempt(async () => {
    const { url } = await api.link(prefix + name, 'download', 300)
    // Same origin (a link Stowage serves), this downloads; a store's own link (S3 presigned) opens
    // in a new tab instead, as browsers do for another origin, and the console stays.
    Object.assign(document.createElement('a'), { href: url, download: name, target: '_blank', rel: 'noopener' }).click()
  })
  const remove = (name: string) => attempt(async () => {
    const trashId = await api.remove(prefix + name)
    setUndo(trashId ? { name, trashId } : undefined)
    await load()
  })
  const restore = () => attempt(async () => {
    if (!undo) return
    await api.restore(undo.trashId)
    setUndo(undefined)
    await load()
  })

  /** Each chosen file, asked about when its name is taken: replaced (that version only), kept beside
   *  it under a free name, or skipped; a new name is created only if it is still free. */
  async function send (files: File[]) {
    const names = new Set(rows.map((row) => row.name))
    const outgoing: Outgoing[] = []
    for (const file of files) {
      const existing = rows.find((row) => !row.folder && row.name === file.name)
      const choice = existing ? await new Promise<Choice>((choose) => setTaken({ name: file.name, choose })) : 'keep'
      setTaken(undefined)
      if (choice === 'skip') continue
      if (choice === 'replace' && existing && !existing.folder) {
        outgoing.push({ file, path: prefix + file.name, ifMatch: existing.etag })
        continue
      }
      const name = freeName(file.name, names)
      names.add(name)
      outgoing.push({ file, path: prefix + name, ifNoneMatch: '*' })
    }
    uploads.start(outgoing)
  }

  const keyOf = (row: Row) => prefix + row.name + (row.folder ? '/' : '')
  async function answer (name: string | undefined) {
    const question = asking
    setAsking(undefined)
    if (!name || !question) return
    // An object store has no empty folders: a new one is opened, and is kept once a file is in it.
    if (question.kind === 'folder') return navigate({ view: 'files', prefix: `${prefix}${name.replace(/\/+$/, '')}/` })
    const { row } = question
    const to = question.kind === 'rename' ? prefix + name : name.replace(/^\/+/, '')
    await attempt(async () => {
      await api.move(keyOf(row), row.folder ? to.replace(/\/*$/, '/') : to)
      await load()
    })
  }

  const folderName = prefix.split('/').filter(Boolean).at(-1)
  const column = (key: SortKey, label: string) => (
    <th scope="col" aria-sort={sort.key === key ? (sort.descending ? 'descending' : 'ascending') : undefined}>
      <button type="button" class="sort" onClick={() => setSort({ key, descending: sort.key === key && !sort.descending })}>
        {label}<span aria-hidden="true">{sort.key === key ? (sort.descending ? ' ▼' : ' ▲') : ''}</span>
      </button>
    </th>
  )
  const rowActions = (row: Row) => (
    <>
      <button type="button" aria-label={`Rename ${row.name}`} onClick={() => setAsking({ kind: 'rename', row })}>Rename</button>
      <button type="button" aria-label={`Move ${row.name}`} onClick={() => setAsking({ kind: 'move', row })}>Move</button>
    </>
  )

  return (
    <section aria-labelledby="folder-title">
      <Breadcrumbs prefix={prefix} navigate={navigate} />
      <h1 id="folder-title">{folderName ?? 'My files'}</h1>
      {usage && <p class="usage">{bytes(usage.usedBytes)} used{usage.quotaBytes === null ? '' : ` of ${bytes(usage.quotaBytes)}`}</p>}
      <div class="toolbar">
        <button type="button" onClick={() => chooser.current?.click()}>Upload</button>
        <button type="button" onClick={() => setAsking({ kind: 'folder' })}>New folder</button>
        <input ref={chooser} type="file" multiple hidden onChange={(event) => {
          void send([...event.currentTarget.files ?? []])
          event.currentTarget.value = ''
        }} />
      </div>
      <Transfers uploads={uploads} />
      {taken && <NameTaken name={taken.name} onChoice={taken.choose} />}
      {asking?.kind === 'folder' && <AskName title="New folder" label="Folder name" initial="" action="Create" onAnswer={answer} />}
      {asking?.kind === 'share' && <Share api={api} path={keyOf(asking.row)} onClose={() => setAsking(undefined)} onUnauthorized={onUnauthorized} />}
      {(asking?.kind === 'rename' || asking?.kind === 'move') && (
        <AskName title={`${asking.kind === 'rename' ? 'Rename' : 'Move'} ${asking.row.name}`} label={asking.kind === 'rename' ? 'New name' : 'Move to (a path from My files)'}
          initial={asking.kind === 'rename' ? asking.row.name : keyOf(asking.row)} action={asking.kind === 'rename' ? 'Rename' : 'Move'} onAnswer={answer} />
      )}
      {error && <p role="alert" class="error">{error}</p>}
      {undo && <p role="status">{undo.name} is in the trash. <button type="button" onClick={restore}>Undo</button></p>}
      <table aria-labelledby="folder-title">
        <thead><tr>{column('name', 'Name')}{column('size', 'Size')}{column('date', 'Modified')}<th scope="col"><span class="hidden">Actions</span></th></tr></thead>
        <tbody>
          {sorted(rows, sort).map((row) => row.folder
            ? <tr key={row.prefix} aria-label={row.name}><th scope="row"><a href={hrefOf({ view: 'files', prefix: row.prefix })} onClick={following(navigate, { view: 'files', prefix: row.prefix })}>{row.name}/</a></th><td>—</td><td>—</td><td class="actions">{rowActions(row)}</td></tr>
            : <tr key={row.name} aria-label={row.name}><th scope="row">{row.name}</th><td>{bytes(row.size)}</td><td><time dateTime={row.lastModified}>{new Date(row.lastModified).toLocaleString()}</time></td>
                <td class="actions">
                  <button type="button" aria-label={`Download ${row.name}`} onClick={() => download(row.name)}>Download</button>
                  <button type="button" aria-label={`Share ${row.name}`} onClick={() => setAsking({ kind: 'share', row })}>Share</button>
                  {rowActions(row)}
                  <button type="button" aria-label={`Delete ${row.name}`} onClick={() => remove(row.name)}>Delete</button>
                </td>
              </tr>)}
        </tbody>
      </table>
      {!loading && rows.length === 0 && !error && <p>This folder is empty.</p>}
      {next && <button type="button" disabled={loading} onClick={() => load(next)}>Show more</button>}
    </section>
  )
}
