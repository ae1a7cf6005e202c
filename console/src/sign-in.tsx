import { useState } from 'preact/hooks'
import { ApiError, createApi } from './api.js'
import type { Session } from './session.js'

/** Sign in with an API key: the embedded default has no identity provider. */
export function SignIn ({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState('')
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)

  async function submit (event: Event) {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    const token = key.trim()
    try {
      await createApi(() => token).usage()
      onSignedIn({ method: 'key', token })
    } catch (failure) {
      setError(failure instanceof ApiError && failure.status === 401 ? 'That key was not accepted: check it and try again.' : (failure as Error).message)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form class="sign-in" onSubmit={submit}>
      <h1>Sign in</h1>
      <label for="api-key">API key</label>
      <input id="api-key" type="password" autocomplete="off" required value={key} onInput={(event) => setKey(event.currentTarget.value)} />
      {error && <p role="alert" class="error">{error}</p>}
      <button type="submit" disabled={busy}>Sign in with an API key</button>
    </form>
  )
}
