import { useEffect, useRef, useState } from 'preact/hooks'
import type { Api, Mount } from './api.js'
import { Breadcrumbs } from './breadcrumbs.js'
import type { Route } from './route.js'
import { Transfers, useUploads, type Outgoing } from './uploads.js'
import { NameTaken, type Choice } from './name-taken.js'
import { useAction } from './use-action.js'
import { AskName } from './ask-name.js'
import { Share } from './share.js'
import { kindOf, Preview } from './preview.js'
import { Versions } from './versions.js'
import { DRAGGED_KEYS, FileTable, type View } from './file-table.js'
import { actionsOf, canWrite, type RowAction } from './rights.js'
import { hasThumbnail } from './kinds.js'
import { bytes, freeName, mountOf, ownerOf, rowsOf, ROLE_NAMES, serviceOrder, sharedAs, sorted, type Row } from './listing.js'
import { useFolderStore } from './folder-store.js'
import { chosenFiles, droppedFiles, type Picked } from './drop.js'

interface FilesProps {
  api: Api
  prefix: string
  navigate: (route: Route) => void
  onUnauthorized: () => void
}

const FOLLOW_WAIT_SECONDS = 25
const FOLLOW_RETRY_MS = 10_000

/** Opens the browser's save for `url` (a link of Stowage's, or a blob); another origin's opens in a tab. */
function save (url: string, name: string) {
  Object.assign(document.createElement('a'), { href: url, download: name, target: '_blank', rel: 'noopener' }).click()
}

const VIEW_KEY = 'stowage.view'

/** A folder mostly of pictures (three in four of its files, four at least) is shown as a grid. */
function viewFor (rows: Row[]): View {
  const files = rows.filter((row) => !row.folder)
  const pictures = files.filter((row) => hasThumbnail(row.name)).length
  return pictures >= 4 && pictures * 4 >= files.length * 3 ? 'grid' : 'list'
}

/** Whether a drag carries files from outside the page (an upload), not rows of this one. */
const carriesFiles = (event: DragEvent) => event.dataTransfer?.types.includes('Files') === true

/** One folder: breadcrumbs, then its files and folders a page at a time. */
export function Files ({ api, prefix, navigate, onUnauthorized }: FilesProps) {
  const [{ rows, next, loading, usage, selected, undo, sort, asking, taken, dragging }, dispatch] = useFolderStore()
  const { error, attempt } = useAction(onUnauthorized)
  const chooser = useRef<HTMLInputElement>(null)
  const folderChooser = useRef<HTMLInputElement>(null)
  const uploads = useUploads(api, () => { void load() })
  // What others share with the person (GET /api/shared), listed with each first page: the mounts at
  // the top of their files, and, inside one, what its role lets them do here.
  const [mounts, setMounts] = useState<Mount[]>([])
  const within = mountOf(prefix, mounts)
  const writable = canWrite(within?.role)
  // The person's choice of list or grid, kept in this browser; until they choose, by what the folder holds.
  const [chosenView, setChosenView] = useState(() => (localStorage.getItem(VIEW_KEY) ?? undefined) as View | undefined)
  const choose = (view: View) => {
    localStorage.setItem(VIEW_KEY, view)
    setChosenView(view)
  }

  /** Lists this folder (its next page after `continuationToken`); `current` says whether the folder
   *  is still the one shown when the listing arrives (another may have been opened meanwhile). */
  const load = (continuationToken?: string, current = () => true) => attempt(async () => {
    dispatch({ type: 'loading', loading: true })
    try {
      const [listing, usage, received] = await Promise.all([api.list(prefix, continuationToken, true, serviceOrder(sort)),
        continuationToken ? undefined : api.usage(), continuationToken ? mounts : api.mounts()])
      if (!current()) return
      if (usage) dispatch({ type: 'usage', usage })
      setMounts(received)
      dispatch({ type: 'listed', rows: rowsOf(prefix, listing, received), next: listing.isTruncated ? listing.continuationToken : undefined, appended: continuationToken !== undefined })
    } finally {
      if (current()) dispatch({ type: 'loading', loading: false })
    }
  })
  // A folder sorted is sorted whole, by the service: listed again from its first page.
  useEffect(() => {
    let shown = true
    dispatch({ type: 'opened' })
    void load(undefined, () => shown)
    return () => { shown = false }
  }, [prefix, sort])

  // Files found by name under this folder, shown instead of it while there is a search.
  const [query, setQuery] = useState('')
  const [found, setFound] = useState<{ text: string, rows: Row[], next?: string }>()
  useEffect(() => setFound(undefined), [prefix])
  const search = (text: string, continuationToken?: string) => attempt(async () => {
    const page = await api.search(text, prefix, continuationToken)
    const rows: Row[] = page.files.map((file) => ({ name: file.key.slice(prefix.length), folder: false, size: file.size, lastModified: file.lastModified, etag: file.etag, ...sharedAs(within) }))
    setFound({ text, rows: [...continuationToken && found ? found.rows : [], ...rows], next: page.isTruncated ? page.continuationToken : undefined })
  })
  // The folder follows changes made elsewhere (another tab, the CLI, a sync): the change journal is
  // waited on, and the folder listed again when something under it changed.
  useEffect(() => {
    const stop = new AbortController()
    void (async () => {
      while (!stop.signal.aborted) {
        try {
          let { cursor } = await api.latestChange()
          while (!stop.signal.aborted) {
            const page = await api.changes(cursor, prefix, FOLLOW_WAIT_SECONDS, stop.signal)
            cursor = page.cursor
            if (page.changes.length > 0 && !stop.signal.aborted) void load(undefined, () => !stop.signal.aborted)
          }
        } catch {
          // Left (aborted), or the journal out of reach for now: followed again a little later.
          await new Promise((resolve) => setTimeout(resolve, FOLLOW_RETRY_MS))
        }
      }
    })()
    return () => stop.abort()
  }, [prefix])

  const keyOf = (row: Row) => prefix + row.name + (row.folder ? '/' : '')
  const rowOf = (key: string) => rows.find((row) => keyOf(row) === key)
  const ticked = () => [...selected].map(rowOf).filter((row): row is Row => row !== undefined)

  const download = (row: Row) => attempt(async () => {
    if (row.folder) return save(URL.createObjectURL(await api.archive(row.prefix)), `${row.name}.zip`)
    // What others share is read with the session's token: grantees make no links (403).
    if (row.shared) return save(URL.createObjectURL(await (await api.read(keyOf(row))).blob()), row.name)
    save((await api.link(keyOf(row), 'download', 300)).url, row.name)
  })
  /** Files and folders to the trash, a folder file by file; Undo brings them all back. A mount is
   *  not among them (its files are its owner's): it is left from its menu. */
  const remove = (chosen: Row[]) => attempt(async () => {
    const doomed = chosen.filter((row) => actionsOf(row).includes('delete'))
    if (doomed.length === 0) return
    const trashIds: string[] = []
    for (const row of doomed) {
      if (row.folder) trashIds.push(...await api.removeFolder(row.prefix))
      else trashIds.push(...[await api.remove(keyOf(row))].filter((id): id is string => id !== undefined))
    }
    dispatch({ type: 'removed', undo: trashIds.length ? { what: doomed.length === 1 ? `${doomed[0].name} is` : `${doomed.length} items are`, trashIds } : undefined })
    await load()
  })
  /** What is ticked, as one zip saved under the folder's name. */
  const downloadTicked = () => attempt(async () => {
    const names = ticked().map((row) => keyOf(row).slice(prefix.length))
    save(URL.createObjectURL(await api.archiveOf(prefix, names)), `${folderName ?? 'My files'}.zip`)
  })
  /** Files and folders of this folder (by key) moved or copied into `folder`, each under its name. */
  const transfer = (operation: 'move' | 'copy', keys: string[], folder: string) => attempt(async () => {
    for (const key of keys) await api[operation](key, folder + key.slice(prefix.length))
    dispatch({ type: 'ticked', keys, ticked: false })
    await load()
  })
  const restore = () => attempt(async () => {
    if (!undo) return
    for (const trashId of undo.trashIds) await api.restore(trashId)
    dispatch({ type: 'undone' })
    await load()
  })

  /** What was picked, by the name it has here: a file or folder whose name is taken asks first —
   *  replaced (a file: that version only), kept beside it under a free name, or skipped. */
  async function send (picked: Picked[]) {
    const names = new Set(rows.map((row) => row.name))
    const byTop = new Map<string, Picked[]>()
    for (const item of picked) {
      const top = item.path.split('/')[0]
      byTop.set(top, [...byTop.get(top) ?? [], item])
    }
    const outgoing: Outgoing[] = []
    for (const [top, members] of byTop) {
      const folder = members[0].path.includes('/')
      const existing = rows.find((row) => row.name === top && row.folder === folder)
      const choice = existing ? await new Promise<Choice>((choose) => dispatch({ type: 'taken', taken: { name: top, choose } })) : 'keep'
      dispatch({ type: 'taken' })
      if (choice === 'skip') continue
      if (choice === 'replace' && existing) {
        outgoing.push(...members.map(({ file, path }) => ({ file, path: prefix + path, ...(existing.folder ? {} : { ifMatch: existing.etag }) })))
        continue
      }
      const name = freeName(top, names, folder)
      names.add(name)
      outgoing.push(...members.map(({ file, path }) => ({ file, path: prefix + name + path.slice(top.length), ifNoneMatch: '*' as const })))
    }
    uploads.start(outgoing)
  }
  /** What the chooser gave, sent; the chooser emptied, so that the same files can be chosen again. */
  const chosen = (event: Event) => {
    const input = event.currentTarget as HTMLInputElement
    void send(chosenFiles(input.files))
    input.value = ''
  }
  const drop = (event: DragEvent) => {
    event.preventDefault()
    dispatch({ type: 'dragging', dragging: false })
    if (event.dataTransfer) void droppedFiles(event.dataTransfer).then(send)
  }

  const leave = (row: Row) => attempt(async () => {
    if (!row.shared) return
    await api.leave(row.shared.id)
    await load()
  })
  const act = (action: RowAction, row: Row) => {
    if (action === 'download') return download(row)
    if (action === 'delete') return remove([row])
    if (action === 'leave') return leave(row)
    dispatch({ type: 'asking', question: { kind: action, row } })
  }
  async function answer (name: string | undefined) {
    const question = asking
    dispatch({ type: 'asking' })
    if (name === undefined || !question) return
    if (question.kind === 'move-ticked' || question.kind === 'copy-ticked') {
      const folder = name.replace(/^\/+/, '').replace(/\/*$/, '/').replace(/^\/$/, '')
      return transfer(question.kind === 'move-ticked' ? 'move' : 'copy', question.rows.map(keyOf), folder)
    }
    if (!name) return
    if (question.kind === 'folder') {
      const made = `${prefix}${name.replace(/\/+$/, '')}/`
      return attempt(async () => {
        await api.makeFolder(made)
        navigate({ view: 'files', prefix: made })
      })
    }
    if (question.kind !== 'rename' && question.kind !== 'move' && question.kind !== 'copy') return
    const { row } = question
    const to = question.kind === 'rename' ? prefix + name : name.replace(/^\/+/, '')
    const destination = row.folder ? to.replace(/\/*$/, '/') : to
    await attempt(async () => {
      if (question.kind === 'rename' && row.shared?.mount) await api.renameMount(row.shared.id, name)
      else await (question.kind === 'copy' ? api.copy(keyOf(row), destination) : api.move(keyOf(row), destination))
      await load()
    })
  }
  const ask = asking && 'row' in asking ? asking : undefined
  /** The files before and after `row` that have a preview, in the order shown: the preview's Previous and Next. */
  const neighbours = (row: Row) => {
    const previewed = sorted(found?.rows ?? rows, sort).filter((other) => !other.folder && kindOf(other.name))
    const at = previewed.findIndex((other) => keyOf(other) === keyOf(row))
    const go = (other: Row | undefined) => other && (() => dispatch({ type: 'asking', question: { kind: 'preview', row: other } }))
    return { previous: go(previewed[at - 1]), next: go(previewed[at + 1]) }
  }
  /** The folder's rows, or what a search found, as one table does them. */
  const table = (titleId: string, shown: Row[]) => (
    <FileTable api={api} titleId={titleId} rows={shown} sort={sort} onSort={(sort) => dispatch({ type: 'sorted', sort })} selected={selected} keyOf={keyOf} navigate={navigate} onAction={act}
      onSelect={(keys, ticked) => dispatch({ type: 'ticked', keys, ticked })} onRemove={remove} onMove={(keys, folder) => transfer('move', keys, folder)}
      view={view} />
  )
  const folderName = prefix.split('/').filter(Boolean).at(-1)
  const view = chosenView ?? viewFor(found?.rows ?? rows)

  return (
    <section aria-labelledby="folder-title" class={dragging ? 'dropping' : undefined}
      onDragOver={(event) => { if (!carriesFiles(event) || !writable) return; event.preventDefault(); dispatch({ type: 'dragging', dragging: true }) }}
      onDragLeave={() => dispatch({ type: 'dragging', dragging: false })} onDrop={(event) => { if (carriesFiles(event) && writable) drop(event) }}>
      <Breadcrumbs prefix={prefix} navigate={navigate} />
      <h1 id="folder-title">{folderName ?? 'My files'}</h1>
      {within && (
        <p class="usage">Shared with you by {ownerOf(within)} · {ROLE_NAMES[within.role]}: {writable
          ? `you can change what is here, under ${ownerOf(within)}'s storage quota`
          : 'you can view, download and copy what is here'}</p>
      )}
      {usage && !within && <p class="usage">{bytes(usage.usedBytes)} used{usage.quotaBytes === null ? '' : ` of ${bytes(usage.quotaBytes)}`}{usage.versionBytes > 0 ? `, ${bytes(usage.versionBytes)} of it earlier versions` : ''}</p>}
      <div class="toolbar">
        {writable && (
          <>
            <button type="button" onClick={() => chooser.current?.click()}>Upload</button>
            <button type="button" onClick={() => folderChooser.current?.click()}>Upload folder</button>
            <button type="button" onClick={() => dispatch({ type: 'asking', question: { kind: 'folder' } })}>New folder</button>
          </>
        )}
        <span class="spacer" />
        <span class="views" role="group" aria-label="View">
          <button type="button" aria-pressed={view === 'list'} onClick={() => choose('list')}>List</button>
          <button type="button" aria-pressed={view === 'grid'} onClick={() => choose('grid')}>Grid</button>
        </span>
        <input ref={chooser} type="file" multiple hidden onChange={chosen} />
        <input ref={folderChooser} type="file" {...{ webkitdirectory: '' }} hidden onChange={chosen} />
      </div>
      {selected.size > 0 && (
        <div class="ticked" role="group" aria-label="Selected items">
          <span>{selected.size} selected</span>
          <button type="button" onClick={downloadTicked}>Download as zip</button>
          {writable && <button type="button" onClick={() => dispatch({ type: 'asking', question: { kind: 'move-ticked', rows: ticked() } })}>Move</button>}
          <button type="button" onClick={() => dispatch({ type: 'asking', question: { kind: 'copy-ticked', rows: ticked() } })}>Copy</button>
          {writable && <button type="button" class="danger" onClick={() => remove(ticked())}>Delete</button>}
          <button type="button" onClick={() => dispatch({ type: 'ticked', keys: [...selected], ticked: false })}>Clear selection</button>
        </div>
      )}
      <form class="search" role="search" onSubmit={(event) => { event.preventDefault(); if ([...query.trim()].length >= 2) void search(query.trim()) }}>
        <input type="search" aria-label={`Search ${folderName ?? 'My files'}`} placeholder="Find files by name" value={query} minLength={2}
          onInput={(event) => setQuery(event.currentTarget.value)} />
        <button type="submit">Search</button>
      </form>
      {writable && <p class="hint">Drop files or folders here to upload them.</p>}
      <Transfers uploads={uploads} />
      {taken && <NameTaken name={taken.name} onChoice={taken.choose} />}
      {asking?.kind === 'folder' && <AskName title="New folder" label="Folder name" initial="" action="Create" onAnswer={answer} />}
      {ask?.kind === 'share' && <Share api={api} path={keyOf(ask.row)} onClose={() => dispatch({ type: 'asking' })} onUnauthorized={onUnauthorized} />}
      {ask?.kind === 'preview' && !ask.row.folder && (
        <Preview key={keyOf(ask.row)} api={api} path={keyOf(ask.row)} size={ask.row.size} onClose={() => dispatch({ type: 'asking' })} onUnauthorized={onUnauthorized}
          actions={actionsOf(ask.row)} onAction={(action) => act(action, ask.row)} {...neighbours(ask.row)} />
      )}
      {ask?.kind === 'versions' && <Versions api={api} path={keyOf(ask.row)} canRestore={canWrite(ask.row.shared?.role)} onRestored={() => { void load() }} onClose={() => dispatch({ type: 'asking' })} onUnauthorized={onUnauthorized} />}
      {ask?.kind === 'rename' && <AskName title={`Rename ${ask.row.name}`} label="New name" initial={ask.row.name} action="Rename" onAnswer={answer} />}
      {(ask?.kind === 'move' || ask?.kind === 'copy') && (
        <AskName title={`${ask.kind === 'move' ? 'Move' : 'Copy'} ${ask.row.name}`} label={`${ask.kind === 'move' ? 'Move' : 'Copy'} to (a path from My files)`}
          initial={keyOf(ask.row)} action={ask.kind === 'move' ? 'Move' : 'Copy'} onAnswer={answer} />
      )}
      {(asking?.kind === 'move-ticked' || asking?.kind === 'copy-ticked') && (
        <AskName title={`${asking.kind === 'move-ticked' ? 'Move' : 'Copy'} ${asking.rows.length === 1 ? asking.rows[0].name : `${asking.rows.length} items`}`}
          label={`${asking.kind === 'move-ticked' ? 'Move' : 'Copy'} into the folder (a path from My files; empty: My files)`}
          initial={prefix} action={asking.kind === 'move-ticked' ? 'Move' : 'Copy'} onAnswer={answer} optional />
      )}
      {error && <p role="alert" class="error">{error}</p>}
      {undo && <p role="status">{undo.what} in the trash. <button type="button" onClick={restore}>Undo</button></p>}
      {found && (
        <section aria-labelledby="found-title">
          <h2 id="found-title">{found.rows.length === 0 ? `Nothing here is named like “${found.text}”` : `Found by “${found.text}”`}</h2>
          <button type="button" onClick={() => { setFound(undefined); setQuery('') }}>Back to the folder</button>
          {found.rows.length > 0 && table('found-title', found.rows)}
          {found.next && <button type="button" onClick={() => search(found.text, found.next)}>Show more</button>}
        </section>
      )}
      {!found && table('folder-title', rows)}
      {!found && !loading && rows.length === 0 && !error && <p class="empty">This folder is empty.{writable ? ' Drop files or folders here, or use Upload or New folder.' : ''}</p>}
      {!found && next && <button type="button" disabled={loading} onClick={() => load(next)}>Show more</button>}
    </section>
  )
}
