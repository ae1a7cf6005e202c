import { useState } from 'preact/hooks'
import type { Api } from './api.js'
import { CopyButton, useModal } from './dialogs.js'
import { useAction } from './use-action.js'

const LIFETIMES = [['3600', 'An hour'], ['86400', 'A day'], ['604800', 'A week']] as const

/** A signed link to one file, to download it or to upload it anew, for a chosen time, with a copy button. */
export function Share ({ api, path, onClose, onUnauthorized }: { api: Api, path: string, onClose: () => void, onUnauthorized: () => void }) {
  const dialog = useModal()
  const [method, setMethod] = useState<'download' | 'upload'>('download')
  const [expiresIn, setExpiresIn] = useState('86400')
  const [link, setLink] = useState<{ url: string, expiresAt: string }>()
  const { error, attempt } = useAction(onUnauthorized)

  const create = (event: Event) => {
    event.preventDefault()
    void attempt(async () => {
      setLink(await api.link(path, method, Number(expiresIn)))
    })
  }

  return (
    <dialog ref={dialog} aria-labelledby="share-title" onClose={onClose}>
      <form onSubmit={create}>
        <h2 id="share-title">Share {path}</h2>
        <fieldset>
          <legend>Anyone with the link can</legend>
          <label><input type="radio" name="method" checked={method === 'download'} onChange={() => setMethod('download')} /> download this file</label>
          <label><input type="radio" name="method" checked={method === 'upload'} onChange={() => setMethod('upload')} /> upload a new version of it (as often as wanted, until it expires)</label>
        </fieldset>
        <label for="share-expiry">For</label>
        <select id="share-expiry" value={expiresIn} onChange={(event) => setExpiresIn(event.currentTarget.value)}>
          {LIFETIMES.map(([seconds, label]) => <option key={seconds} value={seconds}>{label}</option>)}
        </select>
        {error && <p role="alert" class="error">{error}</p>}
        {link && (
          <div role="status" class="secret">
            <output aria-label="Link">{link.url}</output>
            <p>Works until {new Date(link.expiresAt).toLocaleString()}.</p>
          </div>
        )}
        <div class="inline">
          <button type="submit">Create link</button>
          {link && <CopyButton text={link.url} label="Copy link" attempt={attempt} />}
          <button type="button" onClick={() => dialog.current?.close()}>Close</button>
        </div>
      </form>
    </dialog>
  )
}
