// The service's API, from the page: a client typed by the service's own OpenAPI document
// (api-schema.ts), every call through one fetch that carries the session's token, renews it once
// after a 401, and turns a refusal into a message that says what a person can do about it. Only
// byte bodies (a file read, a zip, tus uploads) are requests of their own, through the same fetch.

import type { components } from './api-schema.js'
import { refusal, serviceClient, serviceUrl } from './requests.js'
import type { Tokens } from './tokens.js'

type Schemas = components['schemas']
export type TrashItem = Schemas['StowageTrashItem']
export type KeySummary = Schemas['StowageKeySummary']
export type S3CredentialSummary = Schemas['StowageS3CredentialList']['credentials'][number]
export type Listing = Schemas['StowageFileList']
export type Version = Schemas['StowageVersion']
export type Person = Schemas['StowagePerson']
/** A share of the caller's, with a person or with their whole organization. */
export type Share = Schemas['StowageShare']
/** A share someone made with the caller: mounted at the top of their files. */
export type Mount = Schemas['StowageReceivedShare']
export type Role = Share['role']
/** A listing's order, as the service sorts a whole folder. */
export interface ServiceOrder { sort: 'name' | 'size' | 'lastModified', order: 'asc' | 'desc', folders: 'first' }

export function createApi (tokens: Tokens) {
  async function sessionFetch (request: Request): Promise<Response> {
    const send = (bearer: string | undefined) => {
      const attempt = request.clone()
      if (bearer) attempt.headers.set('authorization', `Bearer ${bearer}`)
      return fetch(attempt)
    }
    let response = await send(await tokens.current())
    if (response.status === 401) {
      const renewed = await tokens.renewed()
      if (renewed) response = await send(renewed)
    }
    if (!response.ok) throw refusal(response.status, await response.text().catch(() => ''), response.statusText)
    return response
  }
  const client = serviceClient(sessionFetch)
  /** What an answer that sessionFetch let through holds: it threw for every refusal. */
  const dataOf = async <T>(call: Promise<{ data?: T }>) => (await call).data as T
  const bytes = (path: string, init?: RequestInit) => sessionFetch(new Request(serviceUrl(path), init))
  const filePath = (path: string) => path.split('/').map(encodeURIComponent).join('/')
  const list = (prefix: string, continuationToken?: string, oneLevel = true, order?: ServiceOrder) =>
    dataOf(client.GET('/api/files', { params: { query: { prefix, continuationToken, ...(oneLevel ? { delimiter: '/' as const, ...order } : {}) } } }))
  const remove = async (path: string) => (await bytes(`api/raw/${filePath(path)}`, { method: 'DELETE' })).headers.get('stowage-trash-id') ?? undefined
  async function transfer (route: '/api/moves' | '/api/copies', from: string, to: string) {
    for (;;) {
      const done = await dataOf(client.POST(route, { body: { from, to } }))
      if (!('isTruncated' in done) || !done.isTruncated) return
    }
  }

  return {
    usage: () => dataOf(client.GET('/api/usage')),
    /** A picture's thumbnail, `pixels` square, cropped to fill it (WebP). */
    thumbnail: async (path: string, pixels: number) =>
      await (await bytes(`api/images/${filePath(path)}?width=${pixels}&height=${pixels}&fit=cover&format=webp`)).blob(),
    list,
    /** Files under `prefix` whose path holds `text`, in any case, a page at a time. */
    search: (text: string, prefix: string, continuationToken?: string) => dataOf(client.GET('/api/search', { params: { query: { q: text, prefix, continuationToken } } })),
    /** To the trash: answers the trash item's id, for Undo. */
    remove,
    /** Every file under a folder, to the trash one by one, then the folders made on purpose in it,
     *  deepest first (they go for good: Undo brings the files back, and their folders with them): the files' trash ids. */
    async removeFolder (prefix: string) {
      const trashIds: string[] = []
      const made = new Set<string>()
      for (;;) {
        // Deleted as listed, so each page starts again from what is left.
        const page = await list(prefix, undefined, false)
        for (const folder of page.folders ?? []) made.add(folder)
        for (const file of page.files) {
          const trashId = await remove(file.key)
          if (trashId) trashIds.push(trashId)
        }
        if (!page.isTruncated || page.files.length === 0) break
      }
      for (const folder of [...made].sort().reverse()) await bytes(`api/folders/${filePath(folder.slice(0, -1))}`, { method: 'DELETE' })
      return trashIds
    },
    /** Where the change journal stands now. */
    latestChange: () => dataOf(client.GET('/api/changes/latest')),
    /** Changes under `prefix` after `cursor`, waited for up to `wait` seconds; `signal` ends the wait. */
    changes: (cursor: string, prefix: string, wait: number, signal: AbortSignal) =>
      dataOf(client.GET('/api/changes', { params: { query: { cursor, prefix, wait: String(wait) } }, signal })),
    /** A folder that exists while it is empty. */
    makeFolder: (path: string) => dataOf(client.POST('/api/folders', { body: { path } })),
    /** A file's earlier versions, newest first, a page at a time. */
    versions: (path: string, continuationToken?: string) => dataOf(client.GET('/api/versions', { params: { query: { path, continuationToken } } })),
    readVersion: (id: string) => bytes(`api/versions/${encodeURIComponent(id)}`),
    /** The version made the file again; the file it replaces becomes a version. */
    restoreVersion: (id: string) => dataOf(client.POST('/api/versions/{id}/restore', { params: { path: { id } }, body: {} })),
    /** A file, with the session's token: the whole of it, or its first `firstBytes`. */
    read: (path: string, firstBytes?: number) => bytes(`api/raw/${filePath(path)}`, firstBytes ? { headers: { range: `bytes=0-${firstBytes - 1}` } } : {}),
    /** A folder as one zip, kept in the page until it is saved. */
    archive: async (prefix: string) => (await bytes(`api/archive?${new URLSearchParams({ prefix })}`)).blob(),
    /** Files and folders of one folder (`names` in it, a folder's ending in `/`) as one zip, as a folder's. */
    archiveOf: async (prefix: string, names: string[]) =>
      await (await bytes('api/archive', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prefix, names }) })).blob(),
    restore: (trashId: string) => dataOf(client.POST('/api/trash/{id}/restore', { params: { path: { id: trashId } }, body: {} })),
    trash: (continuationToken?: string) => dataOf(client.GET('/api/trash', { params: { query: { continuationToken } } })),
    purge: (trashId: string) => dataOf(client.DELETE('/api/trash/{id}', { params: { path: { id: trashId } } })),
    emptyTrash: () => dataOf(client.DELETE('/api/trash')),
    /** A file or, `from` ending in `/`, a folder, moved: a folder's move is sent again until it is done. */
    move: (from: string, to: string) => transfer('/api/moves', from, to),
    /** A file or a folder copied, as moved. */
    copy: (from: string, to: string) => transfer('/api/copies', from, to),
    keys: () => dataOf(client.GET('/api/keys')),
    /** A key named `name` that stops working after `expiresInDays` days (never, without). */
    createKey: (name: string, expiresInDays?: number) =>
      dataOf(client.POST('/api/keys', { body: { name, ...expiresInDays ? { expiresAt: new Date(Date.now() + expiresInDays * 86_400_000).toISOString() } : {} } })),
    revokeKey: (id: string) => dataOf(client.DELETE('/api/keys/{id}', { params: { path: { id } } })),
    s3Credentials: () => dataOf(client.GET('/api/s3-credentials')),
    createS3Credential: (name: string) => dataOf(client.POST('/api/s3-credentials', { body: name ? { name } : {} })),
    revokeS3Credential: (accessKeyId: string) => dataOf(client.DELETE('/api/s3-credentials/{accessKeyId}', { params: { path: { accessKeyId } } })),
    /** A signed link: a URL that downloads the file, or takes one upload of it, with no token. */
    link: (path: string, method: 'download' | 'upload', expiresIn: number) => dataOf(client.POST('/api/links', { body: { path, method, expiresIn } })),
    /** Who is signed in, and their organization (people share within it). */
    me: () => dataOf(client.GET('/api/me')),
    /** People of the caller's organization whose email or name begins with `text`. */
    people: (text: string) => dataOf(client.GET('/api/people', { params: { query: { q: text } } })),
    /** The caller's shares of `path` (a file, or a folder ending in `/`) itself, not of what lies under it. */
    sharesOf: async (path: string) => (await dataOf(client.GET('/api/shares', { params: { query: { path } } }))).shares.filter((share) => share.path === path),
    share: (path: string, withWhom: { userId: string } | { org: true }, role: Role) => dataOf(client.POST('/api/shares', { body: { path, with: withWhom, role } })),
    changeShare: (id: string, role: Role) => dataOf(client.PATCH('/api/shares/{id}', { params: { path: { id } }, body: { role } })),
    unshare: (id: string) => dataOf(client.DELETE('/api/shares/{id}', { params: { path: { id } } })),
    /** What others share with the caller, each mounted at the top of their files. */
    mounts: async () => (await dataOf(client.GET('/api/shared'))).shares,
    renameMount: (id: string, name: string) => dataOf(client.PATCH('/api/shared/{id}', { params: { path: { id } }, body: { name } })),
    /** Leaves a share: the owner's files stay. */
    leave: (id: string) => dataOf(client.DELETE('/api/shared/{id}', { params: { path: { id } } })),
    /** Forgets the identity provider's refresh token there too. */
    logout: (refreshToken: string) => dataOf(client.POST('/api/auth/logout', { body: { refreshToken } })),
    /** What tus uploads need: the endpoint, and each request signed with the token of its moment. */
    uploads: {
      endpoint: serviceUrl('api/uploads').href,
      onBeforeRequest: async (request: { setHeader: (name: string, value: string) => void }) => {
        request.setHeader('authorization', `Bearer ${await tokens.current()}`)
      }
    }
  }
}

export type Api = ReturnType<typeof createApi>
