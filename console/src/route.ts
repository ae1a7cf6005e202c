// The console's URLs: `files/<prefix>` under where it is mounted, so that a folder is a deep link
// and the browser's back and forward move between folders.

export type Route = { view: 'files', prefix: string } | { view: 'trash' } | { view: 'keys' }
  /** Where the identity provider sends the person back with a code. */
  | { view: 'callback' }

const base = () => new URL(document.baseURI).pathname

/** The path's text; a malformed escape (typed by hand) opens My files rather than failing. */
function decoded (path: string) {
  try {
    return decodeURIComponent(path)
  } catch {
    return ''
  }
}

export function currentRoute (): Route {
  const path = decoded(location.pathname.slice(base().length))
  if (path === 'trash' || path === 'keys' || path === 'callback') return { view: path }
  return { view: 'files', prefix: path.startsWith('files/') ? path.slice('files/'.length) : '' }
}

export const hrefOf = (route: Route) => base() + (route.view === 'files' ? 'files/' + route.prefix.split('/').map(encodeURIComponent).join('/') : route.view)

/** A link's click, kept in the page: the route is pushed instead of the page being loaded again. */
export const following = (navigate: (route: Route) => void, route: Route) => (event: MouseEvent) => {
  event.preventDefault()
  navigate(route)
}
