import { useEffect, useState } from 'preact/hooks'
import type { Api } from './api.js'
import { currentRoute, following, hrefOf, type Route } from './route.js'
import type { Session, SessionStore } from './session.js'
import { Files } from './files.js'
import { Keys } from './keys.js'
import { offersS3, S3Credentials } from './s3-credentials.js'
import { SignIn, SignInReturn } from './sign-in.js'
import { Trash } from './trash.js'

/** The console's one place of state: the session (in its store) and the route; views get what they need. */
export function App ({ sessions, api }: { sessions: SessionStore, api: Api }) {
  const [session, setSession] = useState(sessions.get)
  const [route, setRoute] = useState<Route>(currentRoute)

  useEffect(() => sessions.subscribe(() => setSession(sessions.get())), [])
  useEffect(() => {
    const follow = () => setRoute(currentRoute())
    addEventListener('popstate', follow)
    return () => removeEventListener('popstate', follow)
  }, [])

  const signIn = (next: Session) => sessions.set(next)
  const navigate = (next: Route) => {
    history.pushState(null, '', hrefOf(next))
    setRoute(next)
  }
  const returned = (next: Session, returnTo: string) => {
    history.replaceState(null, '', returnTo)
    setRoute(currentRoute())
    sessions.set(next)
  }

  // A session refused and not renewable is forgotten, and the sign-in says why; signing out also
  // revokes the provider's refresh token.
  const [ended, setEnded] = useState<string>()
  const forget = () => {
    setEnded('Your session has ended: sign in again.')
    sessions.set(undefined)
  }
  async function signOut () {
    const ending = sessions.get()
    if (ending?.method === 'idp' && ending.refreshToken) await api.logout(ending.refreshToken).catch(() => undefined)
    setEnded(undefined)
    sessions.set(undefined)
  }
  const link = (target: Route, label: string) => (
    <a href={hrefOf(target)} aria-current={target.view === route.view ? 'page' : undefined}
      onClick={following(navigate, target)}>{label}</a>
  )

  return (
    <>
      <header>
        <span class="brand">Stowage</span>
        {session && (
          <nav aria-label="Console">
            {link({ view: 'files', prefix: '' }, 'My files')}
            {link({ view: 'trash' }, 'Trash')}
            {link({ view: 'keys' }, 'API keys')}
            <button type="button" onClick={signOut}>Sign out</button>
          </nav>
        )}
      </header>
      <main>
        {route.view === 'callback' && <SignInReturn onSignedIn={returned} />}
        {!session && route.view !== 'callback' && <SignIn notice={ended} onSignedIn={signIn} />}
        {session && route.view === 'files' && <Files api={api} prefix={route.prefix} navigate={navigate} onUnauthorized={forget} />}
        {session && route.view === 'trash' && <Trash api={api} onUnauthorized={forget} />}
        {session && route.view === 'keys' && <><Keys api={api} onUnauthorized={forget} />{offersS3() && <S3Credentials api={api} onUnauthorized={forget} />}</>}
      </main>
    </>
  )
}
