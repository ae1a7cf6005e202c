import { useEffect, useState } from 'preact/hooks'
import type { Api, KeySummary } from './api.js'
import { CopyButton } from './dialogs.js'
import { serviceUrl } from './requests.js'
import { useAction } from './use-action.js'

// A key for a script or a device; the shorter it lives, the less a lost one can do.
const LIFETIMES = [['7', 'in 7 days'], ['30', 'in 30 days'], ['90', 'in 90 days'], ['365', 'in a year'], ['never', 'never']] as const

/** API keys: a new one's secret is shown once, with a copy button; others are listed and revoked. */
export function Keys ({ api, onUnauthorized }: { api: Api, onUnauthorized: () => void }) {
  const [keys, setKeys] = useState<KeySummary[]>([])
  const [name, setName] = useState('')
  const [lifetime, setLifetime] = useState('90')
  const [created, setCreated] = useState<string>()
  const { error, attempt } = useAction(onUnauthorized)
  const load = () => attempt(async () => setKeys((await api.keys()).keys))
  useEffect(() => { void load() }, [])

  const create = (event: Event) => {
    event.preventDefault()
    void attempt(async () => {
      setCreated((await api.createKey(name.trim(), lifetime === 'never' ? undefined : Number(lifetime))).key)
      setName('')
      await load()
    })
  }

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      {error && <p role="alert" class="error">{error}</p>}
      <form class="inline" onSubmit={create}>
        <label for="key-name">Name</label>
        <input id="key-name" value={name} maxLength={200} onInput={(event) => setName(event.currentTarget.value)} />
        <label for="key-lifetime">Expires</label>
        <select id="key-lifetime" value={lifetime} onChange={(event) => setLifetime(event.currentTarget.value)}>
          {LIFETIMES.map(([days, label]) => <option key={days} value={days}>{label}</option>)}
        </select>
        <button type="submit">Create key</button>
      </form>
      {created && (
        <div role="status" class="secret">
          <p>Your new key, shown this once: keep it somewhere safe.</p>
          <output aria-label="New key">{created}</output>
          <CopyButton text={created} label="Copy" attempt={attempt} />
          <p>To open your files in Finder, Windows, GNOME Files or rclone, connect to <code aria-label="WebDAV address">{serviceUrl('dav/').href}</code> with
            any user name and this key as the password.</p>
        </div>
      )}
      <table aria-labelledby="keys-title">
        <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="hidden">Actions</span></th></tr></thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id} aria-label={key.name || key.start}>
              <th scope="row">{key.name || '(no name)'}</th>
              <td data-label="Key"><code>{key.start}…</code></td>
              <td data-label="Last used">{key.lastUsedAt ? new Date(key.lastUsedAt).toLocaleString() : 'never'}</td>
              <td data-label="Expires">{key.expiresAt ? new Date(key.expiresAt).toLocaleDateString() : 'never'}</td>
              <td class="actions"><button type="button" aria-label={`Revoke ${key.name || key.start}`} onClick={() => attempt(async () => { await api.revokeKey(key.id); await load() })}>Revoke</button></td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}
