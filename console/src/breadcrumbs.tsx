import { following, hrefOf, type Route } from './route.js'

/** Where a folder is: My files, then each folder above it, each a link. */
export function Breadcrumbs ({ prefix, navigate }: { prefix: string, navigate: (route: Route) => void }) {
  const crumbs = prefix.split('/').filter(Boolean)
  const crumb = (target: string, label: string) => {
    const route: Route = { view: 'files', prefix: target }
    return <li key={target}><a href={hrefOf(route)} onClick={following(navigate, route)} aria-current={target === prefix ? 'page' : undefined}>{label}</a></li>
  }
  return (
    <nav aria-label="Breadcrumbs">
      <ol class="crumbs">
        {crumb('', 'My files')}
        {crumbs.map((name, i) => crumb(crumbs.slice(0, i + 1).join('/') + '/', name))}
      </ol>
    </nav>
  )
}
