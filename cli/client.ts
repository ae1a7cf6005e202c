import { createReadStream, createWriteStream } from 'node:fs'
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { once } from 'node:events'
import { basename, dirname, extname, join, resolve } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { parseArgs } from 'node:util'
import type { AwsCredentials } from '../identity/aws-signing.js'
import { checkFilePath, checkPrefix } from '../storage/paths.js'
import { readSettings, settingsPath, writeSettings, type ClientSettings } from './config-file.js'
import { claimsOf, createSession, signedIn, type Session } from './session.js'
import { signInWithBrowser, signInWithDevice } from './signin.js'
import { syncFolder } from './sync.js'
import { keepInStep } from './watch.js'
import { uploadResumable } from './resumable.js'
import { causeOf, postJson, RequestFailed, UsageError, type CliIo } from './io.js'
import { createProgress } from './progress.js'
import { DEFAULT_REGION } from '../defaults.js'

// A --follow's wait, under the 60 s a proxy (nginx's proxy_read_timeout) lets an answer stay silent.
const FOLLOW_WAIT_SECONDS = 50
// sync --watch: a local file is sent once it and its folder have been left alone this long.
const WATCH_QUIET_MS = 1000

export interface AwsCredentialSource { (): Promise<AwsCredentials & { expiration?: Date }> }

export { RequestFailed }

const DEFAULT_RESUMABLE_BYTES = 64 * 1024 * 1024

/** Files that sync left alone because both sides changed: exit 1, after the summary. */
export class SyncConflicts extends RequestFailed {}

const CONTENT_TYPES: Record<string, string> = {
  '.md': 'text/markdown', '.txt': 'text/plain', '.json': 'application/json', '.html': 'text/html', '.csv': 'text/csv',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.svg': 'image/svg+xml', '.pdf': 'application/pdf'
}

/** The server's own path rules, as a command-line mistake (exit 2) rather than a refused request. */
function checkedLocally (check: () => string): string {
  try {
    return check()
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

/** A path is checked here by the server's own rules, and never rewritten: URL resolution would
 *  turn `x/../y.md` into `y.md`. */
const remotePath = (path: string) => checkedLocally(() => checkFilePath(path).split('/').map(encodeURIComponent).join('/'))

/** `90`, `90s`, `15m`, `1h`, `7d`: seconds. */
function durationSeconds (text: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim())
  if (!match) throw new UsageError('--expires must be a duration such as 90s, 15m, 1h or 7d')
  return Number(match[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as '' | 's' | 'm' | 'h' | 'd']
}

const remotePrefix = (prefix: string) => checkedLocally(() => checkPrefix(prefix))

/** The AWS SDK is loaded only in aws-sso mode: it costs about 0.4 s to load. */
const defaultAwsCredentials: AwsCredentialSource = async () => (await import('@aws-sdk/credential-providers')).fromNodeProviderChain()()

async function authHeaders (settings: ClientSettings, awsCredentials: AwsCredentialSource, session?: Session): Promise<Record<string, string>> {
  if (settings.mode === 'api-key') return { authorization: `Bearer ${settings.apiKey}` }
  if (settings.mode === 'oidc') return { authorization: `Bearer ${await session!.accessToken()}` }
  let credentials
  try {
    credentials = await awsCredentials()
  } catch (error) {
    throw new RequestFailed(`no AWS credentials (${(error as Error).message}); aws-sso mode never falls back to an API key`)
  }
  if (credentials.expiration && credentials.expiration.getTime() <= Date.now()) {
    throw new RequestFailed('the AWS credentials have expired; renew them (e.g. aws sso login)')
  }
  const { signCallerIdentity } = await import('../identity/aws-signing.js')
  return signCallerIdentity({ stsEndpoint: settings.stsEndpoint, region: settings.stsRegion, serverId: settings.serverId, credentials })
}

interface Answer { status: number, statusText: string, contentType: string | null, text: string }

/** A streamed PUT over node:http: unlike fetch, it reads an answer that comes before the body is
 *  all sent (a 413 for a declared length over the limit), and stops sending. */
async function streamRequest (url: string, headers: Record<string, string>, body: Readable): Promise<Answer> {
  const { request } = url.startsWith('https:') ? await import('node:https') : await import('node:http')
  return new Promise((resolve, reject) => {
    let answered = false
    const sending = request(url, { method: 'PUT', headers }, (response) => {
      answered = true
      body.unpipe(sending)
      body.destroy()
      const parts: Buffer[] = []
      response.on('data', (part: Buffer) => parts.push(part))
      response.on('error', reject)
      response.on('end', () => resolve({
        status: response.statusCode ?? 0,
        statusText: response.statusMessage ?? '',
        contentType: response.headers['content-type'] ?? null,
        text: Buffer.concat(parts).toString('utf8')
      }))
    })
    // Once the server has answered, a write cut short by its closing the connection is expected.
    sending.on('error', (error) => { if (!answered) reject(error) })
    body.on('error', (error) => sending.destroy(error))
    body.pipe(sending)
  })
}

/** The file as it is read, counted for the progress line; never more than `size` bytes, and an
 *  error if it shrinks meanwhile (the server would wait for the rest). */
function fileBody (local: string, size: number, onBytes: (n: number) => void): Readable {
  async function * read () {
    let sent = 0
    const file = size === 0 ? [] : createReadStream(local, { start: 0, end: size - 1, highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>
    for await (const chunk of file) {
      sent += chunk.length
      onBytes(chunk.length)
      yield chunk
    }
    if (sent !== size) throw new RequestFailed(`${local} changed while it was being sent; nothing was written`)
  }
  return Readable.from(read())
}

/** An ETag as the server sends it: quoted. `ls --long` shows them quoted, but a pasted one may not be. */
const quotedEtag = (etag: string) => /^(W\/)?".*"$/.test(etag) ? etag : `"${etag}"`

/** `text` as one word of a POSIX shell line (credential_process is split so). */
const shellWord = (text: string) => /^[\w/.:=@%+,-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`

/** --no-clobber and --if-match as the headers of a write, a copy or a move. */
function conditionHeaders ({ 'if-match': ifMatch, 'no-clobber': noClobber }: { 'if-match'?: string, 'no-clobber'?: boolean }): Record<string, string> {
  if (ifMatch !== undefined && noClobber) throw new UsageError('--if-match and --no-clobber exclude each other')
  if (noClobber) return { 'if-none-match': '*' }
  return ifMatch === undefined ? {} : { 'if-match': quotedEtag(ifMatch) }
}

function createApi (settings: ClientSettings, awsCredentials: AwsCredentialSource, env: Record<string, string | undefined>, signal?: AbortSignal) {
  // Joined, not resolved: a base URL with a path (https://host/stowage) keeps it.
  const base = settings.url.replace(/\/+$/, '')
  const session = settings.mode === 'oidc' ? createSession(env, settings) : undefined
  const headers = () => authHeaders(settings, awsCredentials, session)
  const reach = async <T>(send: () => Promise<T>): Promise<T> => {
    try {
      return await send()
    } catch (error) {
      if (error instanceof RequestFailed) throw error
      throw new RequestFailed(`cannot reach ${settings.url} (${causeOf(error)})`)
    }
  }
  const refusal = (status: number, message: string) => status !== 401 || settings.mode === 'aws-sso'
    ? new RequestFailed(`${status}: ${message}`)
    : new RequestFailed(settings.mode === 'api-key'
      ? '401: the API key was refused (revoked, expired, or for another service); run "stowage login" with a valid key'
      : '401: the sign-in was refused; run "stowage login"')
  const interpret = ({ status, statusText, contentType, text }: Answer) => {
    let parsed
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      throw new RequestFailed(`${settings.url} answered ${status} with ${contentType ?? 'no content type'}, not JSON: is it a Stowage service, or a proxy in front of one?`)
    }
    if (status < 200 || status > 299) throw refusal(status, parsed?.error ?? statusText)
    return parsed
  }
  /** Throws what a refusal that came as a fetch Response says. */
  const refused = async (answer: Response) => interpret({
    status: answer.status, statusText: answer.statusText, contentType: answer.headers.get('content-type'), text: await answer.text()
  })
  const send = async (method: string, path: string, body: unknown, extraHeaders: Record<string, string>) => {
    const sent = { ...await headers(), ...extraHeaders, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }
    return reach(async () => {
      const response = await fetch(base + path, { method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body), signal })
      return {
        status: response.status, statusText: response.statusText, contentType: response.headers.get('content-type'), text: await response.text(), headers: response.headers
      }
    })
  }
  const sendRenewed = async (method: string, path: string, body: unknown, extraHeaders: Record<string, string>) => {
    const answer = await send(method, path, body, extraHeaders)
    if (answer.status !== 401 || !session) return answer
    // An access token revoked before its time: renewed once, and the request sent again.
    await session.afterRefused()
    return send(method, path, body, extraHeaders)
  }
  return {
    session,
    async call (method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<any> {
      return interpret(await sendRenewed(method, path, body, extraHeaders))
    },
    /** Deletes a file; resolves with the trash item it became, if the service keeps a trash. */
    async remove (path: string, conditions: Record<string, string> = {}): Promise<{ trashId?: string }> {
      const answer = await sendRenewed('DELETE', `/api/raw/${remotePath(path)}`, undefined, conditions)
      interpret(answer)
      const trashId = answer.headers.get('stowage-trash-id')
      return trashId ? { trashId } : {}
    },
    /**
     * The file at `remote`: in one streamed PUT /api/raw, with its length declared so that a 413 or
     * 412 arrives before the file is sent; from STOWAGE_RESUMABLE_BYTES (64 MiB) up, in pieces
     * through /api/uploads, resumed by running the same command again after an interruption.
     */
    async upload (remote: string, local: string, contentType: string, conditions: Record<string, string>, io: CliIo, quiet: boolean): Promise<any> {
      const { size } = await stat(local)
      const progress = createProgress(io, `put ${local}`, size, { quiet })
      let written
      if (size >= Number(io.env.STOWAGE_RESUMABLE_BYTES || DEFAULT_RESUMABLE_BYTES)) {
        written = await uploadResumable({
          base,
          headers,
          stateDir: join(dirname(settingsPath(io.env)), 'uploads'),
          failure: (message) => new RequestFailed(message),
          refused: refusal
        }, remote, local, contentType, conditions, progress.advance)
      } else {
        const sent = { ...await headers(), ...conditions, 'content-type': contentType, 'content-length': String(size) }
        written = interpret(await reach(() => streamRequest(`${base}/api/raw/${remotePath(remote)}`, sent, fileBody(local, size, progress.advance))))
      }
      progress.finish()
      return written
    },

    /**
     * GET /api/raw into `output`, through `output.part`: an interrupted download continues from
     * where it stopped, if the file is still the one it began (If-Range with the ETag kept beside
     * the part); else it starts again.
     */
    async download (path: string, output: string, io: CliIo, quiet: boolean) {
      const partial = `${output}.part`
      const etagFile = `${partial}.etag`
      const have = await stat(partial).then((s) => s.size, () => 0)
      const etag = have > 0 ? await readFile(etagFile, 'utf8').catch(() => undefined) : undefined
      const sent: Record<string, string> = await headers()
      if (etag) Object.assign(sent, { range: `bytes=${have}-`, 'if-range': etag })
      const answer = await reach(() => fetch(base + path, { headers: sent }))
      if (answer.status === 416 && etag) {
        // The part is already whole: the file was fully read before the rename was missed.
        await answer.body?.cancel()
        await rename(partial, output)
        await rm(etagFile, { force: true })
        return { size: have, resumed: true, contentType: undefined }
      }
      if (answer.status !== 200 && answer.status !== 206) await refused(answer)
      const resumed = answer.status === 206
      const start = resumed ? have : 0
      const total = start + Number(answer.headers.get('content-length') ?? 0)
      await writeFile(etagFile, answer.headers.get('etag') ?? '')
      const progress = createProgress(io, `get ${path}`, total, { quiet, already: start })
      const counted = Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream<Uint8Array>)
      counted.on('data', (chunk: Buffer) => progress.advance(chunk.length))
      try {
        await pipeline(counted, createWriteStream(partial, { flags: resumed ? 'a' : 'w', mode: 0o600 }))
      } catch (error) {
        throw new RequestFailed(`the download stopped (${causeOf(error)}); run the same command again to continue`)
      }
      progress.finish()
      const size = (await stat(partial)).size
      if (size !== total) throw new RequestFailed(`the download stopped at ${size} of ${total} bytes; run the same command again to continue`)
      await rename(partial, output)
      await rm(etagFile, { force: true })
      return { size, resumed, contentType: answer.headers.get('content-type') ?? undefined }
    },

    /** GET /api/raw to standard output, as it arrives. */
    async stream (path: string, io: CliIo) {
      const answer = await reach(async () => fetch(base + path, { headers: await headers() }))
      if (answer.status !== 200) await refused(answer)
      // Standard output is a stream with backpressure in the command, a plain sink in tests.
      const out = io.stdout as unknown as Partial<NodeJS.EventEmitter>
      for await (const chunk of Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream<Uint8Array>)) {
        if (io.stdout.write(chunk as Buffer) === false && typeof out.once === 'function') await once(out as NodeJS.EventEmitter, 'drain')
      }
    }
  }
}

interface ShareAnswer { id: string, path: string, role: string, with: { userId?: string, email?: string, org?: true }, expiresAt?: string }

/** A share as `stowage shares` prints it: one line. */
const describeShare = (share: ShareAnswer) =>
  `${share.id}  ${share.path}  ${share.role}  with ${share.with.org ? 'your organization' : share.with.email ?? share.with.userId}${share.expiresAt ? `  until ${share.expiresAt}` : ''}`

/** --expires of a share: a date (2027-01-31, 2027-01-31T12:00:00Z) or a time from now (7d, 12h). */
function expiryOf (text: string): string {
  if (/^\d+[smhd]$/.test(text)) return new Date(Date.now() + durationSeconds(text) * 1000).toISOString()
  const date = new Date(text)
  if (Number.isNaN(date.getTime())) throw new UsageError('--expires must be a date (2027-01-31) or a time from now (7d, 12h)')
  return date.toISOString()
}

function print (io: CliIo, json: boolean, value: unknown, text: string) {
  io.stdout.write(json ? JSON.stringify(value, null, 2) + '\n' : text)
}

async function login (args: string[], io: CliIo, awsCredentials: AwsCredentialSource) {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: 'string' }, 'api-key': { type: 'string' }, 'aws-sso': { type: 'boolean' }, 'server-id': { type: 'string' },
      device: { type: 'boolean' }, 'no-browser': { type: 'boolean' },
      'sts-region': { type: 'string', default: DEFAULT_REGION }, 'sts-endpoint': { type: 'string' }, json: { type: 'boolean' }
    }
  })
  if (!values.url || !/^https?:\/\//.test(values.url)) throw new UsageError('login needs --url http(s)://…')
  let settings: ClientSettings
  if (values['aws-sso']) {
    if (!values['server-id']) throw new UsageError('--aws-sso needs --server-id')
    if (values['api-key']) throw new UsageError('--aws-sso and --api-key exclude each other')
    const region = values['sts-region'] as string
    settings = {
      url: values.url, mode: 'aws-sso', serverId: values['server-id'], stsRegion: region,
      stsEndpoint: values['sts-endpoint'] ?? 'https://sts.amazonaws.com'
    }
  } else if (values['api-key']) {
    if (values.device || values['no-browser']) throw new UsageError('--device and --no-browser are for signing in through the identity provider, not with --api-key')
    settings = { url: values.url, mode: 'api-key', apiKey: values['api-key'] }
  } else {
    const base = values.url.replace(/\/+$/, '')
    const answer = values.device ? await signInWithDevice(base, io) : await signInWithBrowser(base, io, { browser: values['no-browser'] !== true })
    settings = signedIn(values.url, answer)
  }
  const whoami = () => createApi(settings, awsCredentials, io.env).call('GET', '/api/auth/credentials')
  // A key is checked before it is kept. A sign-in's tokens are kept first: the first request may
  // already renew a short-lived access token, which reads and rotates the stored settings.
  let path: string
  let me: Record<string, unknown>
  if (settings.mode === 'oidc') {
    path = await writeSettings(io.env, settings)
    me = await whoami()
  } else {
    me = await whoami()
    path = await writeSettings(io.env, settings)
  }
  print(io, values.json === true, { ...me, config: path }, `Logged in to ${settings.url} as ${String(me.userId)}; settings in ${path}\n`)
}

/** Revokes the refresh token where the provider can, and forgets the settings either way. */
async function logout (settings: ClientSettings, io: CliIo, json: boolean) {
  let revoked = false
  if (settings.mode === 'oidc') {
    const response = await postJson(settings.url, '/api/auth/logout', { refreshToken: settings.refreshToken }).catch(() => undefined)
    revoked = response?.status === 204
    if (!revoked) io.stderr.write('stowage: the sign-in could not be revoked at the identity provider; it ends when the provider says\n')
  }
  await rm(settingsPath(io.env), { force: true })
  print(io, json, { loggedOut: true, revoked }, `Logged out of ${settings.url}${settings.mode === 'api-key' ? ' (the API key itself still works until revoked: stowage keys revoke ID)' : ''}\n`)
}

/** `1 file`, `2 files`. */
const counted = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`

const isFolder = async (path: string) => await stat(path).then((found) => found.isDirectory(), () => false)

/** A file here to send: what is wrong with the path, said as such (2), before the server is asked. */
async function localFile (path: string) {
  const found = await stat(path).catch(() => undefined)
  if (!found) throw new UsageError(`${path}: no such file here`)
  if (found.isDirectory()) throw new UsageError(`${path} is a folder: put sends one file; "stowage sync ${path} PREFIX" sends a folder`)
}

export async function runClient (command: string, args: string[], io: CliIo, awsCredentials: AwsCredentialSource = defaultAwsCredentials) {
  if (command === 'login') return login(args, io, awsCredentials)
  const { values, positionals } = parseArgs({
    args, allowPositionals: true,
    options: {
      json: { type: 'boolean' }, output: { type: 'string', short: 'o' }, 'content-type': { type: 'string' }, name: { type: 'string' }, expires: { type: 'string' }, 'skip-trash': { type: 'boolean' }, resolve: { type: 'string' },
      long: { type: 'boolean', short: 'l' }, 'if-match': { type: 'string' }, 'no-clobber': { type: 'boolean' }, upload: { type: 'boolean' },
      delete: { type: 'boolean' }, 'dry-run': { type: 'boolean' }, concurrency: { type: 'string' }, 'one-level': { type: 'boolean' }, to: { type: 'string' },
      with: { type: 'string' }, org: { type: 'boolean' }, role: { type: 'string' },
      cursor: { type: 'string' }, prefix: { type: 'string' }, follow: { type: 'boolean' }, newest: { type: 'boolean' }, watch: { type: 'boolean' }, endpoint: { type: 'string' }, region: { type: 'string' },
      width: { type: 'string' }, height: { type: 'string' }, format: { type: 'string' }
    }
  })
  const json = values.json === true
  const settings = await readSettings(io.env)
  if (command === 'logout') return logout(settings, io, json)
  const client = createApi(settings, awsCredentials, io.env, io.signal)
  const api = client.call
  const [first, second] = positionals
  const need = (value: string | undefined, usage: string) => {
    if (!value) throw new UsageError(`usage: stowage ${usage}`)
    return value
  }

  /** Every page a listing route answers, in order, until one names no continuationToken. */
  async function * pagesOf (path: string, query: Record<string, string> = {}) {
    let token: string | undefined
    do {
      const page = await api('GET', `${path}?${new URLSearchParams({ ...query, ...(token ? { continuationToken: token } : {}) })}`)
      yield page
      token = page.continuationToken
    } while (token)
  }

  /** Every file under `prefix`, over every page; with `oneLevel`, the files directly in it and its folders. */
  async function listAll (prefix: string, { oneLevel = false } = {}) {
    const files: Array<{ key: string, size: number, lastModified: string, etag: string }> = []
    const folders: string[] = []
    for await (const page of pagesOf('/api/files', { ...(prefix ? { prefix } : {}), ...(oneLevel ? { delimiter: '/' } : {}) })) {
      files.push(...page.files)
      folders.push(...page.folders ?? [])
    }
    return Object.assign(files, { folders })
  }

  switch (command) {
    case 'sync': {
      const usage = 'sync LOCAL_DIR REMOTE_PREFIX | sync REMOTE_PREFIX LOCAL_DIR [--delete] [--dry-run] [--concurrency N] [--watch] [--resolve here|server|both]'
      const from = need(first, usage)
      const to = need(second, usage)
      // The side that is a folder here is the local one: it is the source when it comes first.
      const direction = await isFolder(from) ? 'up' : 'down'
      const [localDir, remote] = direction === 'up' ? [from, to] : [to, from]
      // A first argument written as a path here (./x, ../x, /x, ~/x) names a folder here, not on the server.
      if (direction === 'down' && /^(\.{1,2}|~)?\//.test(from)) throw new UsageError(`${from}: no such folder here (sync LOCAL_DIR PREFIX sends a folder; sync PREFIX LOCAL_DIR fetches one)`)
      if (!json) io.stderr.write(direction === 'up' ? `sync: ${localDir} here → ${remote || 'your root'} on the server\n` : `sync: ${remote || 'your root'} on the server → ${localDir} here\n`)
      const prefix = remote === '' || remote === '/' ? '' : remotePrefix(remote.endsWith('/') ? remote : remote + '/')
      const concurrency = Number(values.concurrency ?? 4)
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new UsageError('--concurrency must be an integer from 1 to 64')
      const watching = values.watch === true
      const resolution = values.resolve as 'here' | 'server' | 'both' | undefined
      if (resolution !== undefined && !['here', 'server', 'both'].includes(resolution)) throw new UsageError('--resolve must be here (send this side\'s), server (fetch the server\'s) or both (keep both)')
      if (watching && values['dry-run'] === true) throw new UsageError('--watch and --dry-run exclude each other')
      // Followed from before the first pass: a change made during it is seen after.
      let cursor = watching ? (await api('GET', '/api/changes/latest')).cursor as string : ''

      /** One sync, and what it did in lines (or JSON); resolves with its summary. */
      const syncOnce = async (settledBefore?: number) => {
        let trashed = 0
        // Remote files an upload replaced (over the version last seen): the server may keep each as a version.
        const replaced: string[] = []
        // Watching, each side's changes go to the other: what is new there is never taken for a deletion here.
        const summary = await syncFolder(watching ? 'both' : direction, localDir, prefix, {
          list: async (under) => new Map((await listAll(under)).map((file) => [file.key, { size: file.size, etag: file.etag }])),
          upload: async (key, local, conditions) => {
            const written = await client.upload(key, local, CONTENT_TYPES[extname(local).toLowerCase()] ?? 'application/octet-stream', conditions, io, true)
            if (conditions['if-match']) replaced.push(key)
            return written
          },
          download: async (key, local) => { await client.download(`/api/raw/${remotePath(key)}`, local, io, true) },
          remove: async (key, conditions) => {
            if ((await client.remove(key, conditions)).trashId) trashed++
          }
        }, io, {
          delete: values.delete === true, dryRun: values['dry-run'] === true, concurrency, settledBefore, resolve: resolution,
          stateDir: join(dirname(settingsPath(io.env)), 'sync'), serviceUrl: settings.url
        })
        const verb = summary.dryRun ? 'would ' : ''
        const lines = [
          ...summary.uploaded.map((path) => `${verb}upload ${path}`), ...summary.downloaded.map((path) => `${verb}download ${path}`),
          ...summary.deleted.map((path) => `${verb}delete ${path}`), ...summary.conflicts.map(({ path, reason }) => `conflict ${path}: ${reason}`),
          `${summary.uploaded.length} uploaded, ${summary.downloaded.length} downloaded, ${summary.deleted.length} deleted, ${summary.unchanged} unchanged, ${counted(summary.conflicts.length, 'conflict')}${summary.dryRun ? ' (dry run: nothing changed)' : ''}`,
          // Deleted on the server: kept in its trash, from where they come back.
          ...trashed > 0 ? [`${trashed} deleted on the server went to its trash: "stowage trash" lists them, "stowage trash restore ID" puts one back`] : []
        ]
        // Replaced on the server: kept as versions, if the service keeps them (one look tells).
        const versioned = replaced.length > 0 && (await api('GET', `/api/versions?${new URLSearchParams({ path: replaced[0] })}`)).versions.length > 0
        if (versioned) lines.push(`${replaced.length} replaced on the server were kept as versions: "stowage versions PATH" lists them, "stowage versions restore ID" undoes one`)
        const shown = { ...summary, ...summary.direction !== 'down' && values.delete === true ? { trashed } : {}, ...versioned ? { keptAsVersions: replaced.length } : {} }
        // Watching, a pass that found nothing to do says nothing; JSON is a line per pass.
        const acted = summary.uploaded.length + summary.downloaded.length + summary.deleted.length + summary.conflicts.length > 0
        if (!watching) print(io, json, shown, lines.join('\n') + '\n')
        else if (acted) io.stdout.write(json ? JSON.stringify({ ...shown, at: new Date().toISOString() }) + '\n' : lines.join('\n') + '\n')
        return summary
      }

      const initial = await syncOnce()
      if (!watching) {
        // A conflict needs someone's attention: scripts see it in the exit code.
        if (initial.conflicts.length > 0) throw new SyncConflicts(`${counted(initial.conflicts.length, 'conflict')}; nothing was overwritten`)
        return
      }
      if (!json) io.stderr.write(`watching ${localDir} and ${remote || 'your root'}; stop with Ctrl-C\n`)
      return keepInStep({
        localDir,
        quietMs: WATCH_QUIET_MS,
        signal: io.signal ?? new AbortController().signal,
        async nextRemoteChanges () {
          const page = await api('GET', `/api/changes?${new URLSearchParams({ cursor, prefix, wait: String(FOLLOW_WAIT_SECONDS) })}`)
          cursor = page.cursor
          return page.changes.length > 0
        },
        pass: async () => ({ unsettled: (await syncOnce(Date.now() - WATCH_QUIET_MS)).unsettled.length > 0 }),
        onFailure: (error) => { io.stderr.write(`stowage: ${(error as Error).message}; trying again in a few seconds\n`) }
      })
    }
    case 'whoami': {
      const me = await api('GET', '/api/auth/credentials')
      const method = { 'api-key': 'an API key', 'aws-sso': 'AWS credentials (aws-sso)', oidc: 'the identity provider' }[settings.mode]
      const orgId = client.session ? claimsOf(client.session.settings.accessToken).org_id : undefined
      const ends = client.session ? 'renewed as it is used, until the provider ends the sign-in or you run "stowage logout"' : undefined
      return print(io, json, { ...me, method: settings.mode, ...(orgId ? { orgId } : {}), ...(client.session ? { accessTokenExpiresAt: client.session.settings.expiresAt } : {}) },
        `${me.userId}\n${me.bucket} ${me.region} ${me.prefix}\nsigned in with ${method}${orgId ? `, organization ${String(orgId)}` : ''}\n${ends ? `session ${ends}\n` : ''}`)
    }
    case 'aws-credentials': {
      if (!client.session) throw new RequestFailed('aws-credentials needs a sign-in through the identity provider: run "stowage login --url URL"')
      const { credentials } = await client.session.refreshNow()
      if (!credentials) throw new RequestFailed(`${settings.url} hands out no AWS credentials (its CREDENTIALS_ROLE_ARN is not set)`)
      // The AWS CLI's credential_process format: https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-sourcing-external.html
      io.stdout.write(JSON.stringify({
        Version: 1, AccessKeyId: credentials.accessKeyId, SecretAccessKey: credentials.secretAccessKey, SessionToken: credentials.sessionToken, Expiration: credentials.expiration
      }) + '\n')
      return
    }
    case 'ls': {
      const oneLevel = values['one-level'] === true
      const files = await listAll(first ? remotePrefix(first) : '', { oneLevel })
      const line = values.long === true
        ? (f: { size: number, lastModified: string, etag: string, key: string }) => `${String(f.size).padStart(12)}  ${f.lastModified}  ${f.etag.padEnd(36)}  ${f.key}\n`
        : (f: { size: number, lastModified: string, key: string }) => `${String(f.size).padStart(10)}  ${f.lastModified}  ${f.key}\n`
      // A folder where a file has its size and time, as `aws s3 ls` shows it.
      const folderLines = files.folders.map((folder) => `${'PRE'.padStart(values.long === true ? 12 : 10)}  ${''.padEnd(24)}  ${folder}\n`)
      return print(io, json, oneLevel ? { files: [...files], folders: files.folders } : { files: [...files] }, [...folderLines, ...files.map(line)].join(''))
    }
    case 'find': {
      const text = need(first, 'find TEXT [PREFIX] [--newest]')
      const found = []
      const query = { q: text, ...second ? { prefix: remotePrefix(second) } : {}, ...values.newest === true ? { sort: 'newest' } : {} }
      for await (const page of pagesOf('/api/search', query)) found.push(...page.files)
      const line = (f: { size: number, lastModified: string, key: string }) => `${String(f.size).padStart(10)}  ${f.lastModified}  ${f.key}\n`
      return print(io, json, { files: found }, found.map(line).join(''))
    }
    case 'get': {
      const remote = need(first, 'get PATH [-o FILE] [--width N] [--height N] [--format webp|avif|jpeg|png]')
      const path = remotePath(remote)
      // An image resized or converted by the server: what /api/images sends, in place of the file.
      const transform = Object.fromEntries((['width', 'height', 'format'] as const).flatMap((name) => values[name] === undefined ? [] : [[name, values[name]!]]))
      const source = Object.keys(transform).length > 0 ? `/api/images/${path}?${new URLSearchParams(transform)}` : `/api/raw/${path}`
      if (values.output) {
        // Into a folder that is there, under the file's own name, as cp does.
        const output = await isFolder(values.output) ? join(values.output, basename(remote)) : values.output
        if (!await isFolder(dirname(resolve(output)))) throw new UsageError(`-o ${values.output}: the folder ${dirname(resolve(output))} does not exist here`)
        const got = await client.download(source, output, io, json)
        return print(io, json, { path: remote, output, ...got }, '')
      }
      if (json && source !== `/api/raw/${path}`) throw new UsageError('--json with --width, --height or --format needs -o FILE: an image is not sent as JSON')
      // --json without -o keeps the JSON form: the file base64-encoded with its media type.
      return json ? print(io, true, await api('GET', `/api/files/${path}`), '') : client.stream(source, io)
    }
    case 'put': {
      const usage = 'put FILE PATH [--content-type T] [--if-match ETAG | --no-clobber]'
      const local = need(first, usage)
      const remote = need(second, usage)
      const conditions = conditionHeaders(values)
      const contentType = values['content-type'] ?? CONTENT_TYPES[extname(local).toLowerCase()] ?? 'application/octet-stream'
      remotePath(remote)
      await localFile(local)
      const written = await client.upload(remote, local, contentType, conditions, io, json)
      return print(io, json, written, `${written.key} (${written.size} bytes, ${written.contentType}) ${written.etag}\n`)
    }
    case 'share': {
      const remote = need(first, 'share PATH [--expires 1h] [--upload [--content-type T]]')
      remotePath(remote)
      const upload = values.upload === true
      const contentType = upload ? values['content-type'] ?? CONTENT_TYPES[extname(remote).toLowerCase()] : undefined
      const link = await api('POST', '/api/links', {
        path: remote, method: upload ? 'upload' : 'download', expiresIn: durationSeconds(values.expires ?? '1h'), ...(contentType ? { contentType } : {})
      })
      const howTo = upload ? `curl -T FILE${contentType ? ` -H 'Content-Type: ${contentType}'` : ''} '<the link>'\n` : ''
      return print(io, json, link, `${link.url}\nexpires ${link.expiresAt}\n${howTo}`)
    }
    case 'rm': {
      const path = need(first, 'rm PATH')
      const { trashId } = await client.remove(path)
      // Stdout stays empty for scripts; a person is told where the file went.
      if (trashId && !json) io.stderr.write(`${path} is in the trash: "stowage trash restore ${trashId}" puts it back\n`)
      return print(io, json, { deleted: path, ...trashId ? { trashId } : {} }, '')
    }
    case 'cp':
    case 'mv': {
      const usage = `${command} FROM TO [--if-match ETAG] [--no-clobber]   (a FROM ending in "/" is a folder)`
      const [from, to] = [need(first, usage), need(second, usage)]
      const conditions = conditionHeaders(values)
      const route = command === 'cp' ? '/api/copies' : '/api/moves'
      if (!from.endsWith('/')) {
        const done = await api('POST', route, { from, to }, conditions)
        return print(io, json, done, `${done.key} (${done.size} bytes) ${done.etag}\n`)
      }
      // A folder: the service works in steps of a few seconds; each request goes on where the last stopped.
      const total = { files: 0, bytes: 0 }
      for (let more = true; more;) {
        const step = await api('POST', route, { from, to }, conditions)
        total.files += step.files
        total.bytes += step.bytes
        more = step.isTruncated
      }
      return print(io, json, total, `${command === 'cp' ? 'copied' : 'moved'} ${counted(total.files, 'file')} (${counted(total.bytes, 'byte')}) from ${from} to ${to || 'your root'}\n`)
    }
    case 'changes': {
      // Without --cursor: from now. A line per change, then (unless following) the cursor to go on from.
      const prefix = values.prefix === undefined ? '' : remotePrefix(values.prefix)
      let cursor = values.cursor ?? (await api('GET', '/api/changes/latest')).cursor as string
      const line = (change: Record<string, string | number>) =>
        json ? JSON.stringify(change) + '\n' : `${change.at}  ${String(change.op).padEnd(13)}  ${change.from ? `${change.from} -> ` : ''}${change.key}\n`
      for (;;) {
        const page = await api('GET', `/api/changes?${new URLSearchParams({ cursor, prefix, ...values.follow === true ? { wait: String(FOLLOW_WAIT_SECONDS) } : {} })}`)
          .catch((error: unknown) => { if (!io.signal?.aborted) throw error })
        if (!page) return
        for (const change of page.changes) io.stdout.write(line(change))
        cursor = page.cursor
        if (values.follow !== true && !page.hasMore) {
          // To go on from; said so, since without --cursor the changes begin now and there may be none yet.
          if (json) io.stdout.write(JSON.stringify({ cursor }) + '\n')
          else io.stdout.write(`${page.changes.length === 0 && values.cursor === undefined ? 'no changes since now: ' : ''}go on with --cursor ${cursor}${values.cursor === undefined ? ' (or --follow to wait for them)' : ''}\n`)
          return
        }
      }
    }
    case 'mkdir': {
      const made = await api('POST', '/api/folders', { path: need(first, 'mkdir PATH') })
      return print(io, json, made, '')
    }
    case 'rmdir': {
      const path = need(first, 'rmdir PATH')
      await api('DELETE', `/api/folders/${remotePath(path.endsWith('/') ? path.slice(0, -1) : path)}`)
      return print(io, json, { removed: path }, '')
    }
    case 'versions': {
      const usage = 'versions PATH | versions get ID [-o FILE] | versions restore ID [--to PATH] | versions rm ID'
      const id = () => encodeURIComponent(need(second, usage))
      if (first === 'get') {
        if (!values.output) return client.stream(`/api/versions/${id()}`, io)
        const got = await client.download(`/api/versions/${id()}`, values.output, io, json)
        return print(io, json, { id: second, output: values.output, ...got }, '')
      }
      if (first === 'restore') {
        const restored = await api('POST', `/api/versions/${id()}/restore`, values.to === undefined ? {} : { to: values.to })
        return print(io, json, restored, `${restored.key} (${restored.size} bytes) ${restored.etag}\n`)
      }
      if (first === 'rm') {
        await api('DELETE', `/api/versions/${id()}`)
        return print(io, json, { removed: second }, '')
      }
      const path = need(first, usage)
      remotePath(path)
      const versions = []
      for await (const page of pagesOf('/api/versions', { path })) versions.push(...page.versions)
      if (versions.length === 0 && !json) {
        // None kept, or no such file: each said, since an empty answer told neither.
        const exists = ((await api('GET', `/api/files?${new URLSearchParams({ prefix: path })}`)).files as Array<{ key: string }>).some(({ key }) => key === path)
        io.stderr.write(exists ? `${path} has no earlier versions\n` : `${path}: no such file, and no versions of it\n`)
        if (!exists) throw new RequestFailed(`${path}: no such file`)
        return
      }
      return print(io, json, { versions }, versions.map((version: Record<string, string>) =>
        `${version.id}  ${String(version.size).padStart(10)}  ${version.lastModified}  ${version.etag}\n`).join(''))
    }
    case 'trash': {
      const usage = 'trash [ls] | trash restore ID [--to PATH] | trash rm ID | trash empty'
      if (first === undefined || first === 'ls') {
        const items = []
        for await (const page of pagesOf('/api/trash')) items.push(...page.items)
        return print(io, json, { items }, items.map((item: Record<string, string>) =>
          `${item.id}  ${String(item.size).padStart(10)}  deleted ${item.deletedAt}  purged on ${item.expiresAt}  ${item.key}\n`).join(''))
      }
      if (first === 'restore') {
        const id = need(second, usage)
        const restored = await api('POST', `/api/trash/${encodeURIComponent(id)}/restore`, values.to === undefined ? {} : { to: values.to }).catch((error: unknown) => {
          // The API's field is `to`; here it is a flag.
          if (error instanceof Error) error.message = error.message.replace('elsewhere with "to"', 'elsewhere with --to PATH')
          throw error
        })
        return print(io, json, restored, `${restored.key} (${restored.size} bytes) ${restored.etag}\n`)
      }
      if (first === 'rm') {
        const id = need(second, usage)
        await api('DELETE', `/api/trash/${encodeURIComponent(id)}`)
        return print(io, json, { purged: id }, '')
      }
      if (first === 'empty') {
        await api('DELETE', '/api/trash')
        return print(io, json, { emptied: true }, '')
      }
      throw new UsageError(`usage: stowage ${usage}`)
    }
    case 'keys': {
      if (first === 'create') {
        const expiresAt = values.expires === undefined ? undefined : new Date(values.expires)
        if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new UsageError('--expires must be a date, such as 2027-01-31 or 2027-01-31T12:00:00Z')
        const created = await api('POST', '/api/keys', {
          ...(values.name === undefined ? {} : { name: values.name }),
          ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {})
        })
        return print(io, json, created, `${created.key}\nid ${created.id}; this is the only time the key is shown\n`)
      }
      if (first === 'ls') {
        const { keys } = await api('GET', '/api/keys')
        return print(io, json, { keys }, keys.map((k: Record<string, string | null>) =>
          `${k.id}  ${k.start}…  ${k.name || '-'}  created ${k.createdAt}  last used ${k.lastUsedAt ?? 'never'}  expires ${k.expiresAt ?? 'never'}\n`).join(''))
      }
      if (first === 'revoke') {
        const id = need(second, 'keys revoke ID')
        await api('DELETE', `/api/keys/${encodeURIComponent(id)}`)
        return print(io, json, { revoked: id }, '')
      }
      throw new UsageError('usage: stowage keys create [--name N] [--expires DATE] | keys ls | keys revoke ID')
    }
    case 'shares': {
      const usage = 'usage: stowage shares add PATH --with EMAIL|USERID|--org [--role viewer|editor] [--expires WHEN] | shares ls [PATH] | shares rm ID'
      if (first === 'add') {
        const path = need(second, 'shares add PATH --with EMAIL|USERID|--org')
        if ((values.with === undefined) === (values.org !== true)) throw new UsageError('say who with --with EMAIL|USERID or --org (one of them)')
        const role = values.role ?? 'viewer'
        if (role !== 'viewer' && role !== 'editor') throw new UsageError('--role is viewer or editor')
        const made = await api('POST', '/api/shares', {
          path,
          with: values.org === true ? { org: true } : values.with!.includes('@') ? { email: values.with } : { userId: values.with },
          role,
          ...(values.expires === undefined ? {} : { expiresAt: expiryOf(values.expires) })
        })
        return print(io, json, made, `${describeShare(made)}
`)
      }
      if (first === 'ls') {
        const { shares } = await api('GET', `/api/shares${second === undefined ? '' : `?path=${encodeURIComponent(second)}`}`)
        return print(io, json, { shares }, shares.map((share: ShareAnswer) => `${describeShare(share)}
`).join(''))
      }
      if (first === 'rm') {
        const id = need(second, 'shares rm ID')
        await api('DELETE', `/api/shares/${encodeURIComponent(id)}`)
        return print(io, json, { removed: id }, '')
      }
      throw new UsageError(usage)
    }
    case 'shared': {
      if (first === undefined || first === 'ls') {
        const { shares } = await api('GET', '/api/shared')
        return print(io, json, { shares }, shares.map((share: { id: string, name: string, role: string, kind: string, owner: { userId: string, email?: string }, expiresAt?: string }) =>
          `${share.id}  ${share.kind === 'folder' ? `${share.name}/` : share.name}  ${share.role}  from ${share.owner.email ?? share.owner.userId}${share.expiresAt ? `  until ${share.expiresAt}` : ''}\n`).join(''))
      }
      if (first === 'rename') {
        const id = need(second, 'shared rename ID NAME')
        const name = need(positionals[2], 'shared rename ID NAME')
        const renamed = await api('PATCH', `/api/shared/${encodeURIComponent(id)}`, { name })
        return print(io, json, renamed, `${renamed.id}  now ${renamed.name}\n`)
      }
      if (first === 'leave') {
        const id = need(second, 'shared leave ID')
        await api('DELETE', `/api/shared/${encodeURIComponent(id)}`)
        return print(io, json, { left: id }, '')
      }
      throw new UsageError('usage: stowage shared [ls] | shared rename ID NAME | shared leave ID')
    }
    case 's3-credentials': {
      if (first === 'create') {
        const created = await api('POST', '/api/s3-credentials', { ...values.name === undefined ? {} : { name: values.name }, ...values['skip-trash'] === true ? { skipTrash: true } : {} })
        return print(io, json, created, `access key id      ${created.accessKeyId}\nsecret access key  ${created.secretAccessKey}\nthis is the only time the secret is shown\n`)
      }
      if (first === 'ls') {
        const { credentials } = await api('GET', '/api/s3-credentials')
        return print(io, json, { credentials }, credentials.map((c: Record<string, string | null>) =>
          `${c.accessKeyId}  ${c.name}  created ${c.createdAt}  last used ${c.lastUsedAt ?? 'never'}${c.skipTrash ? '  deletes skip the trash' : ''}\n`).join(''))
      }
      if (first === 'revoke') {
        const id = need(second, 's3-credentials revoke ACCESS_KEY_ID')
        await api('DELETE', `/api/s3-credentials/${encodeURIComponent(id)}`)
        return print(io, json, { revoked: id }, '')
      }
      throw new UsageError('usage: stowage s3-credentials create [--name N] [--skip-trash] | s3-credentials ls | s3-credentials revoke ACCESS_KEY_ID')
    }
    case 's3': {
      if (first === 'credentials') {
        // The credential_process format: the AWS CLI and SDKs, and rclone through them, run this for each session.
        const session = await api('POST', '/api/s3-credentials/session')
        io.stdout.write(JSON.stringify({ Version: 1, AccessKeyId: session.accessKeyId, SecretAccessKey: session.secretAccessKey, SessionToken: session.sessionToken, Expiration: session.expiration }) + '\n')
        return
      }
      if (first === 'profile') {
        const usage = 's3 profile --endpoint URL [--name N] [--region R]'
        const endpoint = need(values.endpoint, usage)
        if (!/^https?:\/\/[^/]+\/?$/.test(endpoint)) throw new UsageError('--endpoint must be the S3 endpoint\'s URL, such as https://s3.example.com or http://127.0.0.1:9000')
        const name = values.name ?? 'stowage'
        // The endpoint's S3_API_REGION, which the service does not say: us-east-1 unless told.
        const region = values.region ?? 'us-east-1'
        // This very command, as it was run (a Node with its flags and this script): the AWS tools run it.
        const command = [process.execPath, ...process.execArgv, process.argv[1] ?? 'stowage', 's3', 'credentials'].map(shellWord).join(' ')
        return print(io, json, { name, endpoint, region, credentialProcess: command }, [
          `# ~/.aws/config: aws --profile ${name} s3 ls; AWS_PROFILE=${name} for the SDKs`,
          `# (the AWS CLI reads endpoint_url from 2.13 on; an older one, such as Debian 12's 2.9, needs it on the command line:`,
          `#  aws --profile ${name} --endpoint-url ${endpoint.replace(/\/$/, '')} s3 ls)`,
          `[profile ${name}]`, `credential_process = ${command}`, `endpoint_url = ${endpoint.replace(/\/$/, '')}`, `region = ${region}`, '',
          `# ~/.config/rclone/rclone.conf: rclone lsd ${name}: (it reads the profile above)`,
          `[${name}]`, 'type = s3', 'provider = Other', 'env_auth = true', `profile = ${name}`, `endpoint = ${endpoint.replace(/\/$/, '')}`, `region = ${region}`, ''
        ].join('\n'))
      }
      throw new UsageError('usage: stowage s3 credentials | s3 profile --endpoint URL [--name N] [--region R]')
    }
  }
  throw new UsageError(`unknown command "${command}"; run "stowage help"`)
}
