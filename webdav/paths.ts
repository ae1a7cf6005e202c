import { BadRequestError } from '../errors.js'
import { checkFilePath } from '../storage/paths.js'
import { DavError } from './errors.js'

/** Where WebDAV is mounted on the main port: the user's root. */
export const MOUNT = '/dav'

/** A resource a request names: its path in the user's root ("" for the root itself), and whether the URL ended in "/". */
export interface Target {
  path: string
  slash: boolean
}

/** The resource of a request URL's path (`/dav/a/b.txt`); 400 for what the file API's paths refuse (`..` encoded or not included). */
export function targetOf (urlPath: string): Target {
  const bare = urlPath.split('?', 1)[0]
  // A fragment never reaches a server from a browser: one that does names no resource.
  if (bare.includes('#')) throw new BadRequestError('a WebDAV URL has no fragment (#)')
  if (bare !== MOUNT && !bare.startsWith(`${MOUNT}/`)) throw new BadRequestError(`WebDAV paths begin with ${MOUNT}/`)
  const rest = bare.slice(MOUNT.length + 1)
  const slash = rest.endsWith('/')
  const encoded = slash ? rest.slice(0, -1) : rest
  if (encoded === '') return { path: '', slash: true }
  let path: string
  try {
    path = encoded.split('/').map((segment) => decodeURIComponent(segment)).join('/')
  } catch {
    throw new BadRequestError('the URL is not valid percent-encoded UTF-8')
  }
  // A segment that decodes to a "/" would name a path the URL does not.
  if (encoded.split('/').some((segment) => decodeURIComponent(segment).includes('/'))) throw new BadRequestError('a path segment may not hold an encoded "/"')
  return { path: checkFilePath(path), slash }
}

/** The URL path of a resource: each segment encoded, a folder's ending in "/". */
export function hrefOf (path: string, folder: boolean): string {
  const encoded = path === '' ? '' : path.split('/').map(encodeURIComponent).join('/')
  return `${MOUNT}/${encoded}${folder && path !== '' ? '/' : ''}`
}

/** The URL path of a key as locks and properties keep it (a folder's ends in "/", the root's is ""). */
export const hrefOfKey = (key: string) => hrefOf(key.replace(/\/$/, ''), key === '' || key.endsWith('/'))

/** A Destination header's resource: on this server (its host, or a path alone), under the mount; else 502 as RFC 4918 §9.8.5 says. */
export function destinationOf (header: string | undefined, host: string | undefined): Target {
  if (header === undefined || header === '') throw new BadRequestError('COPY and MOVE need a Destination header')
  let url: URL
  try {
    url = new URL(header, `http://${host ?? 'localhost'}`)
  } catch {
    throw new BadRequestError('the Destination header is not a URL')
  }
  // Compared as URLs: a default port may be written or not.
  if (host !== undefined && url.host !== new URL(`http://${host}`).host) throw new DavError(502, 'the Destination is on another server')
  return targetOf(url.pathname)
}
