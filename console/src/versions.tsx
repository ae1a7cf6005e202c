import { useEffect, useState } from 'preact/hooks'
import type { Api, Version } from './api.js'
import { useModal } from './dialogs.js'
import { bytes } from './listing.js'
import { useAction } from './use-action.js'

interface VersionsProps {
  api: Api
  path: string
  /** Whether the person may make a version the file again (not through a share as its viewer). */
  canRestore: boolean
  /** Called once a version is the file again, for the folder to show it. */
  onRestored: () => void
  onClose: () => void
  onUnauthorized: () => void
}

/** A file's earlier versions, newest first: each with its date and size, to download or to make the file again. */
export function Versions ({ api, path, canRestore, onRestored, onClose, onUnauthorized }: VersionsProps) {
  const dialog = useModal()
  const [versions, setVersions] = useState<Version[]>()
  const [next, setNext] = useState<string>()
  const [restored, setRestored] = useState<string>()
  const { error, attempt } = useAction(onUnauthorized)

  const load = (continuationToken?: string) => attempt(async () => {
    const page = await api.versions(path, continuationToken)
    setVersions((shown) => [...continuationToken ? shown ?? [] : [], ...page.versions])
    setNext(page.isTruncated ? page.continuationToken : undefined)
  })
  useEffect(() => { void load() }, [path])

  const download = (version: Version) => attempt(async () => {
    const url = URL.createObjectURL(await (await api.readVersion(version.id)).blob())
    Object.assign(document.createElement('a'), { href: url, download: path.split('/').at(-1) }).click()
  })
  const restore = (version: Version) => attempt(async () => {
    await api.restoreVersion(version.id)
    setRestored(new Date(version.lastModified).toLocaleString())
    onRestored()
    await load()
  })

  return (
    <dialog ref={dialog} aria-labelledby="versions-title" onClose={onClose}>
      {/* The file's name, cut with an ellipsis when it is longer than the dialog (its path on hover). */}
      <h2 id="versions-title" class="title-cut">Versions of <span title={path}>{path.split('/').at(-1)}</span></h2>
      <p>Earlier versions are kept when the file is replaced; restoring one keeps the current file as a version too.</p>
      {error && <p role="alert" class="error">{error}</p>}
      {restored && <p role="status">The version of {restored} is the file again.</p>}
      {versions?.length === 0 && <p>No earlier version is kept.</p>}
      {versions && versions.length > 0 && (
        <table aria-label="Earlier versions, newest first">
          <thead><tr><th scope="col">Written</th><th scope="col">Size</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {versions.map((version) => (
              <tr key={version.id}>
                <td data-label="Written">{new Date(version.lastModified).toLocaleString()}</td>
                <td data-label="Size">{bytes(version.size)}</td>
                <td class="inline">
                  <button type="button" aria-label={`Download the version of ${new Date(version.lastModified).toLocaleString()}`} onClick={() => download(version)}>Download</button>
                  {canRestore && <button type="button" aria-label={`Restore the version of ${new Date(version.lastModified).toLocaleString()}`} onClick={() => restore(version)}>Restore</button>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div class="inline">
        {next && <button type="button" onClick={() => load(next)}>Show more</button>}
        <button type="button" onClick={() => dialog.current?.close()}>Close</button>
      </div>
    </dialog>
  )
}
