import type { Element } from '@xmldom/xmldom'
import { XMLSerializer } from '@xmldom/xmldom'
import type { DavLock, DeadProperty, PropertyName } from '../db/webdav.js'
import { BadRequestError } from '../errors.js'
import { INPUT_LIMITS } from '../limits.js'
import { hrefOf, hrefOfKey } from './paths.js'
import { childElements, DAV, davChild, elementXml, escapeXml } from './xml.js'

/** A file or folder as PROPFIND describes it. What a folder's listing does not tell (a file's type) is left out. */
export interface Entry {
  path: string
  folder: boolean
  size?: number
  lastModified?: Date
  etag?: string
  contentType?: string
}

/** What a PROPFIND asks: every property (and `include`d ones), their names, or the properties named. */
export type PropfindRequest =
  | { kind: 'allprop', include: PropertyName[] }
  | { kind: 'propname' }
  | { kind: 'prop', names: PropertyName[] }

/** What the live properties need beside the entry: the locks on it, and the user's usage for RFC 4331's quota properties. */
export interface LiveContext {
  locks: DavLock[]
  quota?: { usedBytes: number, availableBytes?: number }
  /** On a mount and below it: the caller's role there (DESIGN §13). */
  shareRole?: string
  now: Date
}

// Stowage's own live property: a mount's and what lies under it, the caller's role there.
export const STOWAGE = 'urn:stowage'
const SHARE_ROLE = { namespace: STOWAGE, name: 'share-role' }
const isShareRole = ({ namespace, name }: PropertyName) => namespace === STOWAGE && name === 'share-role'
/** Whether a PROPFIND shows share-role: allprop and propname do, and a prop naming it. */
export const asksShareRole = (request: PropfindRequest) => request.kind !== 'prop' || request.names.some(isShareRole)

// RFC 4331's properties are given only when named, as it says.
const NAMED_ONLY = new Set(['quota-available-bytes', 'quota-used-bytes'])

// ownCloud's and Nextcloud's namespace: rclone's webdav backend (vendor owncloud or nextcloud) asks
// for oc:checksums to compare files by hash (`rclone check`).
export const OWNCLOUD = 'http://owncloud.org/ns'

/** oc:checksums of a file whose ETag is its MD5 (a single-part upload): `MD5:<hex>`, as ownCloud writes it. */
function checksumsOf (entry: Entry): string | undefined {
  const md5 = entry.folder ? undefined : /^"([0-9a-f]{32})"$/.exec(entry.etag ?? '')?.[1]
  return md5 && `<x:checksum>MD5:${md5}</x:checksum>`
}

/** The lock as lockdiscovery and a LOCK answer show it. */
export function activeLockXml (lock: DavLock, now: Date): string {
  const seconds = Math.max(0, Math.round((lock.expiresAt.getTime() - now.getTime()) / 1000))
  return '<D:activelock><D:locktype><D:write/></D:locktype>' +
    `<D:lockscope><D:${lock.scope}/></D:lockscope><D:depth>${lock.depth === 'infinity' ? 'infinity' : '0'}</D:depth>` +
    (lock.owner === '' ? '' : `<D:owner>${lock.owner}</D:owner>`) +
    `<D:timeout>Second-${seconds}</D:timeout><D:locktoken><D:href>${escapeXml(lock.token)}</D:href></D:locktoken>` +
    `<D:lockroot><D:href>${escapeXml(hrefOfKey(lock.path))}</D:href></D:lockroot></D:activelock>`
}

const SUPPORTED_LOCK = ['exclusive', 'shared'].map((scope) => `<D:lockentry><D:lockscope><D:${scope}/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>`).join('')

/** The live properties of `entry` that it has, in DAV:, as name and XML content, pair after pair
 *  (a listing renders a thousand entries a request: no map nor array of pairs for each). */
function liveProperties (entry: Entry, { locks, quota, now }: LiveContext): string[] {
  const live = ['displayname', escapeXml(entry.path.slice(entry.path.lastIndexOf('/') + 1)), 'resourcetype', entry.folder ? '<D:collection/>' : '']
  if (entry.lastModified) live.push('creationdate', entry.lastModified.toISOString(), 'getlastmodified', entry.lastModified.toUTCString())
  if (!entry.folder) {
    if (entry.size !== undefined) live.push('getcontentlength', String(entry.size))
    if (entry.etag !== undefined) live.push('getetag', escapeXml(entry.etag))
    if (entry.contentType !== undefined) live.push('getcontenttype', escapeXml(entry.contentType))
  }
  live.push('supportedlock', SUPPORTED_LOCK, 'lockdiscovery', locks.length === 0 ? '' : locks.map((lock) => activeLockXml(lock, now)).join(''))
  if (quota) {
    live.push('quota-used-bytes', String(quota.usedBytes))
    if (quota.availableBytes !== undefined) live.push('quota-available-bytes', String(quota.availableBytes))
  }
  return live
}

/** The content of the live property `name` in `live` (liveProperties); undefined when the entry has none. */
function liveValue (live: string[], name: string): string | undefined {
  for (let at = 0; at < live.length; at += 2) if (live[at] === name) return live[at + 1]
  return undefined
}

/** Whether a property of DAV: is one this server keeps itself (and so cannot be set). */
export const isLive = ({ namespace, name }: PropertyName) => isShareRole({ namespace, name }) || namespace === DAV && ['creationdate', 'displayname', 'getcontentlength', 'getcontenttype', 'getetag', 'getlastmodified', 'resourcetype', 'supportedlock', 'lockdiscovery', 'quota-available-bytes', 'quota-used-bytes'].includes(name)

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 403: 'Forbidden', 404: 'Not Found', 424: 'Failed Dependency', 507: 'Insufficient Storage' }
export const statusLine = (status: number) => `HTTP/1.1 ${status} ${STATUS_TEXT[status]}`

/** One `<D:propstat>` per status, of the properties given. */
export function propstats (byStatus: Map<number, string[]>): string {
  let xml = ''
  for (const [status, properties] of byStatus) {
    if (properties.length > 0) xml += `<D:propstat><D:prop>${properties.join('')}</D:prop><D:status>${statusLine(status)}</D:status></D:propstat>`
  }
  return xml
}

/** The `<D:response>` of `entry` for `request`: found properties under 200, those named and missing under 404. */
export function responseXml (entry: Entry, request: PropfindRequest, dead: DeadProperty[], context: LiveContext): string {
  const live = liveProperties(entry, context)
  const found: string[] = []
  const missing: string[] = []
  if (request.kind === 'propname') {
    for (let at = 0; at < live.length; at += 2) if (!NAMED_ONLY.has(live[at])) found.push(`<D:${live[at]}/>`)
    if (context.shareRole) found.push(elementXml(SHARE_ROLE))
    for (const property of dead) found.push(elementXml(property))
  } else {
    const named = request.kind === 'prop' ? request.names : request.include
    if (request.kind === 'allprop') {
      for (let at = 0; at < live.length; at += 2) if (!NAMED_ONLY.has(live[at])) found.push(elementXml({ namespace: DAV, name: live[at] }, live[at + 1]))
      if (context.shareRole) found.push(elementXml(SHARE_ROLE, context.shareRole))
      for (const property of dead) found.push(elementXml(property, property.value))
    }
    for (const wanted of named) {
      if (request.kind === 'allprop' && !(wanted.namespace === DAV && NAMED_ONLY.has(wanted.name))) continue
      const value = wanted.namespace === DAV
        ? liveValue(live, wanted.name)
        : wanted.namespace === OWNCLOUD && wanted.name === 'checksums' ? checksumsOf(entry) : isShareRole(wanted) ? context.shareRole : undefined
      const property = value === undefined ? dead.find((one) => one.namespace === wanted.namespace && one.name === wanted.name) : undefined
      if (value !== undefined) found.push(elementXml(wanted, value))
      else if (property) found.push(elementXml(property, property.value))
      else missing.push(elementXml(wanted))
    }
  }
  const href = hrefOf(entry.path, entry.folder)
  return `<D:response><D:href>${escapeXml(href)}</D:href>${propstats(new Map([[200, found], [404, missing]]))}</D:response>`
}

/** The properties `elements` name: at most INPUT_LIMITS.davProperties in one request (400 past it). */
export function propertiesNamed (elements: Element[]): Element[] {
  if (elements.length > INPUT_LIMITS.davProperties) throw new BadRequestError(`a request may name at most ${INPUT_LIMITS.davProperties} properties; this one names ${elements.length}`)
  return elements
}

/** A property element's name. */
export const nameOf = (element: Element): PropertyName => ({ namespace: element.namespaceURI ?? '', name: element.localName ?? element.nodeName })

/** A PROPFIND body's request: allprop when there is none. */
export function propfindRequestOf (root: Element | undefined): PropfindRequest {
  if (!root) return { kind: 'allprop', include: [] }
  if (davChild(root, 'propname')) return { kind: 'propname' }
  const prop = davChild(root, 'prop')
  if (prop) return { kind: 'prop', names: propertiesNamed(childElements(prop)).map(nameOf) }
  if (davChild(root, 'allprop')) {
    const include = davChild(root, 'include')
    return { kind: 'allprop', include: include ? propertiesNamed(childElements(include)).map(nameOf) : [] }
  }
  throw new BadRequestError('a PROPFIND body names allprop, propname or prop')
}

/** A property's content as it was sent: its children as XML, their namespaces declared within. */
export function contentOf (element: Element): string {
  const serializer = new XMLSerializer()
  return Array.from(element.childNodes as unknown as ArrayLike<Element>).map((child) => serializer.serializeToString(child)).join('')
}
