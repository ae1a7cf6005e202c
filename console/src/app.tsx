import { useEffect, useMemo, useState } from 'preact/hooks'
import { createApi } from './api.js'
import { currentRoute, following, hrefOf, type Route } from './route.js'
import { keepSession, savedSession, type Session } from './session.js'
import { Files } from './files.js'
import { Keys } from './keys.js'
import { SignIn } from './sign-in.js'
import { Trash } from './trash.js'

/** The console's one place of state: the session and the route; views get what they need. */
export function App () {
  const [session, setSession] = useState<Session | undefined>(savedSession)
  const [route, setRoute] = useState<Route>(currentRoute)
  const api = useMemo(() => createApi(() => session?.token), [session])

  useEffect(() => {
    const follow = () => setRoute(currentRoute())
    addEventListener('popstate', follow)
    return () => removeEventListener('popstate', follow)
  }, [])

  const signIn = (next: Session | undefined) => {
    keepSession(next)
    setSession(next)
  }
  const navigate = (next: Route) => {
    history.pushState(null, '', hrefOf(next))
    setRoute(next)
  }

  const signOut = () => signIn(undefined)
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
        {!session && <SignIn onSignedIn={signIn} />}
        {session && route.view === 'files' && <Files api={api} prefix={route.prefix} navigate={navigate} onUnauthorized={signOut} />}
        {session && route.view === 'trash' && <Trash api={api} onUnauthorized={signOut} />}
        {session && route.view === 'keys' && <Keys api={api} onUnauthorized={signOut} />}
      </main>
    </>
  )
}
