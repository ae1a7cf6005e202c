// The service's API, from the page: every call carries the session's token, and every refusal
// becomes a message that says what a person can do about it.

import { postJson, refusal, serviceUrl } from './requests.js'
import type { Tokens } from './tokens.js'

export interface TrashItem { id: string, key: string, size: number, deletedAt: string, expiresAt: string }
export interface KeySummary { id: string, name: string, start: string, createdAt: string, lastUsedAt: string | null }

export interface Listing {
  files: Array<{ key: string, size: number, lastModified: string, etag: string }>
  folders?: string[]
  isTruncated: boolean
  continuationToken?: string
}

export function createApi (tokens: Tokens) {
  async function answer (path: string, init: RequestInit = {}): Promise<Response> {
    const send = (bearer: string | undefined) => {
      const headers = new Headers(init.headers)
      if (bearer) headers.set('authorization', `Bearer ${bearer}`)
      return fetch(serviceUrl(path), { ...init, headers })
    }
    let response = await send(await tokens.current())
    if (response.status === 401) {
      const renewed = await tokens.renewed()
      if (renewed) response = await send(renewed)
    }
    if (!response.ok) throw refusal(response.status, await response.text().catch(() => ''), response.statusText)
    return response
  }
  const call = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const answered = await answer(path, init)
    return (answered.status === 204 ? undefined : await answered.json()) as T
  }
  const filePath = (path: string) => path.split('/').map(encodeURIComponent).join('/')
  function list (prefix: string, continuationToken?: string, oneLevel = true) {
    const query = new URLSearchParams({ prefix, ...(oneLevel ? { delimiter: '/' } : {}) })
    if (continuationToken) query.set('continuationToken', continuationToken)
    return call<Listing>(`api/files?${query}`)
  }
  const remove = async (path: string) => (await answer(`api/raw/${filePath(path)}`, { method: 'DELETE' })).headers.get('stowage-trash-id') ?? undefined
  async function transfer (route: string, from: string, to: string) {
    while ((await call<{ isTruncated?: boolean }>(route, postJson({ from, to }))).isTruncated);
  }

  return {
    usage: () => call<{ usedBytes: number, quotaBytes: number | null }>('api/usage'),
    list,
    /** To the trash: answers the trash item's id, for Undo. */
    remove,
    /** Every file under a folder, to the trash one by one (an object store has no folder to delete): their trash ids. */
    async removeFolder (prefix: string) {
      const trashIds: string[] = []
      for (;;) {
        // Deleted as listed, so each page starts again from what is left.
        const page = await list(prefix, undefined, false)
        for (const file of page.files) {
          const trashId = await remove(file.key)
          if (trashId) trashIds.push(trashId)
        }
        if (!page.isTruncated || page.files.length === 0) return trashIds
      }
    },
    /** A file, with the session's token: the whole of it, or its first `firstBytes`. */
    read: (path: string, firstBytes?: number) => answer(`api/raw/${filePath(path)}`, firstBytes ? { headers: { range: `bytes=0-${firstBytes - 1}` } } : {}),
    /** A folder as one zip, kept in the page until it is saved. */
    archive: async (prefix: string) => (await answer(`api/archive?${new URLSearchParams({ prefix })}`)).blob(),
    restore: (trashId: string) => call(`api/trash/${encodeURIComponent(trashId)}/restore`, postJson({})),
    trash: (continuationToken?: string) =>
      call<{ items: TrashItem[], isTruncated: boolean, continuationToken?: string }>(`api/trash${continuationToken ? `?${new URLSearchParams({ continuationToken })}` : ''}`),
    purge: (trashId: string) => call(`api/trash/${encodeURIComponent(trashId)}`, { method: 'DELETE' }),
    emptyTrash: () => call('api/trash', { method: 'DELETE' }),
    /** A file or, `from` ending in `/`, a folder, moved: a folder's move is sent again until it is done. */
    move: (from: string, to: string) => transfer('api/moves', from, to),
    /** A file or a folder copied, as moved. */
    copy: (from: string, to: string) => transfer('api/copies', from, to),
    keys: () => call<{ keys: KeySummary[] }>('api/keys'),
    createKey: (name: string) => call<KeySummary & { key: string }>('api/keys', postJson({ name })),
    revokeKey: (id: string) => call(`api/keys/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    /** A signed link: a URL that downloads the file, or takes one upload of it, with no token. */
    link: (path: string, method: 'download' | 'upload', expiresIn: number) =>
      call<{ url: string, expiresAt: string }>('api/links', postJson({ path, method, expiresIn })),
    /** Forgets the identity provider's refresh token there too. */
    logout: (refreshToken: string) => call('api/auth/logout', postJson({ refreshToken })),
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
