import { useEffect, useMemo, useState } from 'preact/hooks'
import { createApi } from './api.js'
import { currentRoute, hrefOf, type Route } from './route.js'
import { keepSession, savedSession, type Session } from './session.js'
import { Files } from './files.js'
import { SignIn } from './sign-in.js'

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

  return (
    <>
      <header>
        <a class="brand" href={hrefOf({ view: 'files', prefix: '' })} onClick={(event) => { event.preventDefault(); navigate({ view: 'files', prefix: '' }) }}>Stowage</a>
        {session && <button type="button" onClick={() => signIn(undefined)}>Sign out</button>}
      </header>
      <main>
        {session
          ? <Files api={api} prefix={route.prefix} navigate={navigate} onUnauthorized={() => signIn(undefined)} />
          : <SignIn onSignedIn={signIn} />}
      </main>
    </>
  )
}
