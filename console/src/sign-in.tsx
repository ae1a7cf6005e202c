import { useEffect, useState } from 'preact/hooks'
import { createApi } from './api.js'
import { ApiError } from './requests.js'
import { finishSignIn, hasIdentityProvider, startSignIn } from './idp.js'
import type { Session } from './session.js'

/** Sign in through the identity provider when the service has one, or with an API key (the
 *  embedded default has no identity provider). */
export function SignIn ({ notice, onSignedIn }: { notice?: string, onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState('')
  const [error, setError] = useState(notice)
  const [busy, setBusy] = useState(false)

  async function submit (event: Event) {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    const token = key.trim()
    try {
      await createApi({ current: async () => token, renewed: async () => undefined }).usage()
      onSignedIn({ method: 'key', token })
    } catch (failure) {
      setError(failure instanceof ApiError && failure.status === 401 ? 'That key was not accepted: check it and try again.' : (failure as Error).message)
    } finally {
      setBusy(false)
    }
  }
  const leave = () => startSignIn(location.pathname + location.search).catch((failure: Error) => setError(failure.message))

  return (
    <form class="sign-in" onSubmit={submit}>
      <h1>Sign in</h1>
      {hasIdentityProvider() && <button type="button" class="primary" onClick={leave}>Sign in</button>}
      <label for="api-key">API key</label>
      <input id="api-key" type="password" autocomplete="off" required value={key} onInput={(event) => setKey(event.currentTarget.value)} />
      {error && <p role="alert" class="error">{error}</p>}
      <button type="submit" disabled={busy}>Sign in with an API key</button>
    </form>
  )
}

/** Back from the identity provider: the code exchanged, then on to where the person was going. */
export function SignInReturn ({ onSignedIn }: { onSignedIn: (session: Session, returnTo: string) => void }) {
  const [error, setError] = useState<string>()
  useEffect(() => {
    finishSignIn().then(({ session, returnTo }) => onSignedIn(session, returnTo), (failure: Error) => setError(failure.message))
  }, [])
  if (!error) return <p role="status">Signing you in…</p>
  return (
    <section class="sign-in">
      <h1>Sign in</h1>
      <p role="alert" class="error">{error}</p>
      <a href={document.baseURI}>Sign in again</a>
    </section>
  )
}
