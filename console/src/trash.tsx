import { useEffect, useState } from 'preact/hooks'
import type { Api, TrashItem } from './api.js'
import { useAction } from './use-action.js'

/** Deleted files until they expire: restore one, purge one, or empty it all. */
export function Trash ({ api, onUnauthorized }: { api: Api, onUnauthorized: () => void }) {
  const [items, setItems] = useState<TrashItem[]>()
  const { error, attempt } = useAction(onUnauthorized)
  const load = () => attempt(async () => setItems((await api.trash()).items))
  useEffect(() => { void load() }, [])
  const then = (action: () => Promise<unknown>) => () => attempt(async () => { await action(); await load() })

  return (
    <section aria-labelledby="trash-title">
      <h1 id="trash-title">Trash</h1>
      <p>Deleted files wait here until they expire.</p>
      {error && <p role="alert" class="error">{error}</p>}
      {items && items.length > 0 && <button type="button" onClick={then(() => api.emptyTrash())}>Empty trash</button>}
      {items?.length === 0 && <p>The trash is empty.</p>}
      {items && items.length > 0 && (
        <table aria-labelledby="trash-title">
          <thead><tr><th scope="col">File</th><th scope="col">Deleted</th><th scope="col">Expires</th><th scope="col"><span class="hidden">Actions</span></th></tr></thead>
          <tbody>
            {items.map((item) => (
              <tr key={item.id} aria-label={item.key}>
                <th scope="row">{item.key}</th>
                <td data-label="Deleted">{new Date(item.deletedAt).toLocaleString()}</td>
                <td data-label="Expires">{new Date(item.expiresAt).toLocaleDateString()}</td>
                <td class="actions">
                  <button type="button" aria-label={`Restore ${item.key}`} onClick={then(() => api.restore(item.id))}>Restore</button>
                  <button type="button" aria-label={`Purge ${item.key}`} onClick={then(() => api.purge(item.id))}>Purge</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
