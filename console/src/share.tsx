import { useEffect, useState } from 'preact/hooks'
import type { Api, Person, Role, Share as ShareOfMine } from './api.js'
import { CopyButton, useModal } from './dialogs.js'
import { useAction } from './use-action.js'
import { ROLE_NAMES } from './listing.js'

const LIFETIMES = [['3600', 'An hour'], ['86400', 'A day'], ['604800', 'A week']] as const
const ROLES: Array<[Role, string]> = [['viewer', 'can view and download'], ['editor', 'can also change and delete']]
/** People found once the text is this long (the service's least). */
const SEARCHED_FROM = 2

interface ShareProps {
  api: Api
  /** A file, or a folder ending in `/`. */
  path: string
  onClose: () => void
  onUnauthorized: () => void
}

/** Who can reach a file or a folder: people of the organization (DESIGN §13), and, for a file, a
 *  signed link that anyone holding it can use. */
export function Share ({ api, path, onClose, onUnauthorized }: ShareProps) {
  const dialog = useModal()
  const folder = path.endsWith('/')
  return (
    <dialog ref={dialog} aria-labelledby="share-title" onClose={onClose}>
      <h2 id="share-title">Share {path}</h2>
      <People api={api} path={path} onUnauthorized={onUnauthorized} />
      {!folder && <Link api={api} path={path} onUnauthorized={onUnauthorized} />}
      <div class="inline">
        <button type="button" onClick={() => dialog.current?.close()}>Close</button>
      </div>
    </dialog>
  )
}

type Choice = { userId: string, label: string } | { org: true, label: string }

const personName = (person: Person) => person.name ?? person.email ?? person.userId

/** Find a person (or take the whole organization), choose Viewer or Editor, share; then who has
 *  access, each with their role to change and a Remove. */
function People ({ api, path, onUnauthorized }: { api: Api, path: string, onUnauthorized: () => void }) {
  const { error, attempt } = useAction(onUnauthorized)
  const [shares, setShares] = useState<ShareOfMine[]>()
  const [org, setOrg] = useState<string | null>(null)
  const [text, setText] = useState('')
  const [found, setFound] = useState<Person[]>([])
  const [chosen, setChosen] = useState<Choice>()
  const [role, setRole] = useState<Role>('viewer')
  const everyone = `Everyone in ${org ?? 'your organization'}`
  const who = (share: ShareOfMine) => 'org' in share.with ? everyone : personName(share.with)

  useEffect(() => {
    void attempt(async () => {
      const [me, mine] = await Promise.all([api.me(), api.sharesOf(path)])
      setOrg(me.orgId)
      setShares(mine)
    })
  }, [path])
  // People found as the person types; an answer to older text is dropped.
  useEffect(() => {
    const typed = text.trim()
    if ([...typed].length < SEARCHED_FROM) return setFound([])
    let current = true
    void attempt(async () => {
      const { people } = await api.people(typed)
      if (current) setFound(people)
    })
    return () => { current = false }
  }, [text])

  const add = (event: Event) => {
    event.preventDefault()
    if (!chosen) return
    void attempt(async () => {
      const made = await api.share(path, 'org' in chosen ? { org: true } : { userId: chosen.userId }, role)
      setShares([...shares ?? [], made])
      setChosen(undefined)
      setText('')
    })
  }
  const change = (share: ShareOfMine, role: Role) => attempt(async () => {
    const changed = await api.changeShare(share.id, role)
    setShares(shares?.map((other) => other.id === share.id ? changed : other))
  })
  const remove = (share: ShareOfMine) => attempt(async () => {
    await api.unshare(share.id)
    setShares(shares?.filter((other) => other.id !== share.id))
  })

  return (
    <section aria-labelledby="people-title">
      <h3 id="people-title">People</h3>
      <form onSubmit={add}>
        <label for="share-person">Share with</label>
        <input id="share-person" type="search" autoComplete="off" placeholder="A name or an email" value={chosen ? chosen.label : text}
          onInput={(event) => { setChosen(undefined); setText(event.currentTarget.value) }} />
        {!chosen && (
          <ul class="choices" aria-label="People found">
            {org !== null && <li><button type="button" onClick={() => setChosen({ org: true, label: everyone })}>{everyone}</button></li>}
            {found.map((person) => (
              <li key={person.userId}>
                <button type="button" onClick={() => setChosen({ userId: person.userId, label: personName(person) })}>
                  {personName(person)}{person.email && person.name ? <span class="shared-by"> {person.email}</span> : null}
                </button>
              </li>
            ))}
          </ul>
        )}
        <label for="share-role">As</label>
        <select id="share-role" value={role} onChange={(event) => setRole(event.currentTarget.value as Role)}>
          {ROLES.map(([value, what]) => <option key={value} value={value}>{ROLE_NAMES[value]}: {what}</option>)}
        </select>
        <div class="inline">
          <button type="submit" disabled={!chosen}>Share</button>
        </div>
      </form>
      {error && <p role="alert" class="error">{error}</p>}
      <h4 id="access-title">Who has access</h4>
      {shares?.length === 0 && <p>Only you.</p>}
      {shares && shares.length > 0 && (
        <ul class="access" aria-labelledby="access-title">
          {shares.map((share) => (
            <li key={share.id} aria-label={who(share)}>
              <span class="who">{who(share)}{share.expiresAt && <span class="shared-by"> until {new Date(share.expiresAt).toLocaleString()}</span>}</span>
              <select aria-label={`Role of ${who(share)}`} value={share.role} onChange={(event) => change(share, event.currentTarget.value as Role)}>
                {ROLES.map(([value]) => <option key={value} value={value}>{ROLE_NAMES[value]}</option>)}
              </select>
              <button type="button" class="danger" aria-label={`Remove ${who(share)}`} onClick={() => remove(share)}>Remove</button>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

/** A signed link to one file, to download it or to upload it anew, for a chosen time, with a copy button. */
function Link ({ api, path, onUnauthorized }: { api: Api, path: string, onUnauthorized: () => void }) {
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
    <section aria-labelledby="link-title">
      <h3 id="link-title">Public link</h3>
      <form onSubmit={create}>
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
        </div>
      </form>
    </section>
  )
}
