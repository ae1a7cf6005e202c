import type { Shares } from '../storage/shares.js'
import { STATUS_CODES } from 'node:http'
import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Element } from '@xmldom/xmldom'
import { weightOf, type DavLock, type DeadProperty, type DeadPropertyRepository, type PropertyName } from '../db/webdav.js'
import { BadRequestError, FolderInTheWayError, NotFoundError, UnsupportedMediaTypeError } from '../errors.js'
import { INPUT_LIMITS, type ByteBudget } from '../limits.js'
import { ownerOf, receiveRawFile, sendRawHeaders, serveRawFile } from '../http/file-answers.js'
import { isFileMediaType } from '../schemas/files.js'
import { writePreconditions, isNotModified, readConditions } from '../storage/conditional.js'
import { DEFAULT_CONTENT_TYPE, withMountsLookedUpOnce, type FileService } from '../storage/files.js'
import { deleteFolder, transferFolder } from '../storage/folders.js'
import type { Quotas } from '../storage/quotas.js'
import { DavError, preconditionFailed } from './errors.js'
import { ifHolds, parseIf, submittedTokens, type ResourceState } from './if-header.js'
import { keyOf, lockTokenOf, timeoutOf, type DavLocks, type LockSpaceOf, type Resource, type Write } from './locks.js'
import { destinationOf, hrefOf, hrefOfKey, targetOf, type Target } from './paths.js'
import { activeLockXml, asksShareRole, contentOf, isLive, nameOf, propertiesNamed, propfindRequestOf, propstats, responseXml, type Entry, type PropfindRequest } from './properties.js'
import { bodyText, childElements, DAV, davChild, davDocument, davRoot, elementXml, escapeXml, XML_DECLARATION } from './xml.js'

/** What the methods work with: the file API, and WebDAV's own locks and properties. */
export interface DavServices {
  files: FileService
  locks: DavLocks
  /** Where a resource's locks and dead properties are kept: through a mount, among its owner's files. */
  spaceOf: LockSpaceOf
  properties: DeadPropertyRepository
  quotas: Quotas
  /** A folder moved takes its shares along. */
  shares: Shares
  uploadMemory: ByteBudget
  /** The most dead properties of one file or folder may weigh. */
  maxPropertyBytes: number
}

// A MKCOL body is refused whatever it is: this much is read to tell.
const MAX_MKCOL_BODY_BYTES = 64 * 1024
// A copy or move of a folder runs to its end in steps of this long (each a page of files at most).
const FOLDER_STEP_MS = 10_000

const MULTISTATUS_TYPE = 'application/xml; charset=utf-8'
// A PROPFIND's folder is listed this many entries at a time (S3's page): its answer is streamed an entry at a time whatever the page.
const PROPFIND_PAGE = 1000
const ENTRIES_A_CHUNK = 100

interface Found { kind: 'file' | 'folder', entry: Entry }

/** What is at `path`: a file, a folder, or nothing. */
async function find (files: FileService, userId: string, path: string): Promise<Found | undefined> {
  if (path === '') return { kind: 'folder', entry: { path, folder: true } }
  try {
    const meta = await files.head(userId, path)
    return { kind: 'file', entry: { path, folder: false, size: meta.size, lastModified: meta.lastModified, etag: meta.etag, contentType: meta.contentType } }
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error
  }
  const [since] = await files.folderDates(userId, [path])
  if (since) return { kind: 'folder', entry: { path, folder: true, lastModified: since } }
  return await files.folderExists(userId, path) ? { kind: 'folder', entry: { path, folder: true } } : undefined
}

const parentOf = (path: string) => path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : ''

/** 409 unless the folder that would hold `path` exists (RFC 4918: no intermediate collections are made). */
async function requireParent (files: FileService, userId: string, path: string) {
  if (!await files.folderExists(userId, parentOf(path))) throw new DavError(409, `the folder ${parentOf(path)} does not exist`)
}

const depthOf = (request: FastifyRequest, fallback: 'infinity' | '0' | '1'): 'infinity' | '0' | '1' => {
  const depth = String(request.headers.depth ?? fallback).trim().toLowerCase()
  if (depth !== '0' && depth !== '1' && depth !== 'infinity') throw new BadRequestError('Depth must be 0, 1 or infinity')
  return depth
}

const resourceOf = (found: Found | undefined, target: Target): Resource => ({ path: target.path, folder: found ? found.kind === 'folder' : target.slash })

/**
 * The If header checked (412 when it does not hold), and the locks bearing on `writes` checked
 * against the tokens it submits (423). A request without If submits none.
 */
async function checkWrite (services: DavServices, request: FastifyRequest, writes: Write[]) {
  await services.locks.checkUnlocked(request.userId, writes, await submittedBy(services, request))
}

/** The lock tokens the request's If header submits, once the header holds (412 otherwise). */
async function submittedBy ({ files, locks }: DavServices, request: FastifyRequest): Promise<Set<string>> {
  const header = request.headers.if
  const lists = typeof header === 'string' ? parseIf(header) : []
  if (lists.length > 0) {
    const own = targetOf(request.url)
    const stateOf = async (resource: string | undefined): Promise<ResourceState> => {
      let target = own
      if (resource !== undefined) {
        try {
          target = targetOf(new URL(resource, `http://${request.headers.host ?? 'localhost'}`).pathname)
        } catch {
          return { tokens: new Set() }
        }
      }
      const found = await find(files, request.userId, target.path)
      const held = await locks.bearingOn(request.userId, { ...resourceOf(found, target), membership: false })
      return { etag: found?.kind === 'file' ? found.entry.etag : undefined, tokens: new Set(held.map((lock) => lock.token)) }
    }
    if (!await ifHolds(lists, stateOf)) throw preconditionFailed()
  }
  return submittedTokens(lists)
}

export function davMethods (services: DavServices) {
  const { files, locks, spaceOf, properties, quotas, shares } = services

  /** The dead properties of a folder gone, and of all under it (a file's go by the journal); a mount
   *  left leaves its owner's alone. */
  async function dropProperties (userId: string, resource: Resource) {
    const space = await spaceOf(userId, resource)
    if (!space.mountItself) await properties.remove(space.userId, keyOf(space.resource))
  }

  /** The places of a copy's or move's source and destination among the properties: in one owner's
   *  files they are copied or moved along; across a mount's edge they do not follow (`undefined`). */
  async function propertyRoute (userId: string, from: Resource, to: Resource) {
    const [source, target] = await Promise.all([spaceOf(userId, from), spaceOf(userId, to)])
    return source.userId === target.userId ? { userId: source.userId, from: keyOf(source.resource), to: keyOf(target.resource) } : undefined
  }

  async function propfind (request: FastifyRequest, reply: FastifyReply) {
    const target = targetOf(request.url)
    const depth = depthOf(request, 'infinity')
    if (depth === 'infinity') throw new DavError(403, 'PROPFIND with Depth: infinity is not served: ask Depth 1, folder by folder', 'propfind-finite-depth')
    const document = await davDocument(request)
    const asked = propfindRequestOf(document && davRoot(document, 'propfind'))
    const found = await find(files, request.userId, target.path)
    if (!found) throw new NotFoundError(`no file or folder at ${target.path}`)
    const wantsQuota = asked.kind === 'prop' && asked.names.some((name) => name.namespace === DAV && name.name.startsWith('quota-'))
    const usage = wantsQuota ? await quotas.usage(ownerOf(request)) : undefined
    const quota = usage && { usedBytes: usage.usedBytes, availableBytes: usage.quotaBytes === null ? undefined : Math.max(0, usage.quotaBytes - usage.usedBytes) }
    const userId = request.userId
    const now = new Date()
    // The locks on it, above it and (a folder's) under it; each entry shows those that bear on it.
    // Where its locks and dead properties are kept, found once for both.
    const space = await spaceOf(userId, resourceOf(found, target))
    const held = await locks.bearingIn(space, false)
    const onEntry = (entry: Entry) => held.filter((lock) => lock.path === keyOf(entry) || (lock.depth === 'infinity' && keyOf(entry).startsWith(lock.path)))
    const wantsDead = asked.kind !== 'prop' || asked.names.some((name) => !isLive(name))
    const deadOf = async (paths: string[]) => {
      if (!wantsDead) return new Map<string, DeadProperty[]>()
      const set = await properties.listEach(space.userId, paths.map(space.inSpace))
      return new Map(paths.map((path) => [path, set.get(space.inSpace(path)) ?? []]))
    }
    const wantsDates = asked.kind !== 'prop' || asked.names.some((name) => name.namespace === DAV && (name.name === 'getlastmodified' || name.name === 'creationdate'))
    const datesOf = async (folders: string[]) => wantsDates ? await files.folderDates(userId, folders) : []

    // share-role: the mount's role on it and below it; at the top, each mount's own.
    const wantsRole = asksShareRole(asked)
    const roleHere = wantsRole && target.path !== '' ? (await files.place(ownerOf(request), target.path, 'read')).mount?.role : undefined
    const rolesAtTop = wantsRole && target.path === '' && depth === '1' ? await shares.roles(userId) : undefined
    const roleOf = (entry: Entry) => roleHere ?? rolesAtTop?.get(entry.path)

    const self = responseXml(found.entry, asked, (await deadOf([keyOf(found.entry)])).get(keyOf(found.entry)) ?? [], { locks: onEntry(found.entry), quota, shareRole: roleHere, now })
    reply.code(207).header('content-type', MULTISTATUS_TYPE)
    if (depth === '0' || found.kind === 'file') return reply.send(`${XML_DECLARATION}<D:multistatus xmlns:D="DAV:">${self}</D:multistatus>`)
    return reply.send(Readable.from(folderListing(userId, target.path, asked, self, { deadOf, datesOf, onEntry, roleOf, quota, now })))
  }

  /** A folder's multistatus, a page of its entries at a time: memory does not follow its length. */
  async function * folderListing (userId: string, folder: string, asked: PropfindRequest, self: string,
    { deadOf, datesOf, onEntry, roleOf, quota, now }: {
      deadOf: (paths: string[]) => Promise<Map<string, DeadProperty[]>>, datesOf: (folders: string[]) => Promise<Array<Date | undefined>>,
      onEntry: (entry: Entry) => DavLock[], roleOf: (entry: Entry) => string | undefined, quota: LiveQuota, now: Date
    }) {
    yield `${XML_DECLARATION}<D:multistatus xmlns:D="DAV:">${self}`
    const prefix = folder === '' ? '' : `${folder}/`
    let continuationToken: string | undefined
    do {
      const page = await files.list(userId, { prefix, delimiter: '/', continuationToken, pageSize: PROPFIND_PAGE })
      const folders = page.folders ?? []
      const dates = await datesOf(folders)
      const entries: Entry[] = [
        ...folders.map((path, index) => ({ path: path.slice(0, -1), folder: true, lastModified: dates[index] })),
        ...page.files.map((file) => ({ path: file.key, folder: false, size: file.size, lastModified: new Date(file.lastModified), etag: file.etag }))
      ]
      const dead = await deadOf(entries.map(keyOf))
      // A hundred entries a chunk: what is held is their answers, whatever the page's length; a
      // chunk each was a write each, which cost more than the answers themselves.
      for (let at = 0; at < entries.length; at += ENTRIES_A_CHUNK) {
        yield entries.slice(at, at + ENTRIES_A_CHUNK).map((entry) => responseXml(entry, asked, dead.get(keyOf(entry)) ?? [], { locks: onEntry(entry), quota, shareRole: roleOf(entry), now })).join('')
      }
      continuationToken = page.isTruncated ? page.continuationToken : undefined
    } while (continuationToken)
    yield '</D:multistatus>'
  }

  async function proppatch (request: FastifyRequest, reply: FastifyReply) {
    const target = targetOf(request.url)
    const document = await davDocument(request)
    if (document === undefined) throw new BadRequestError('PROPPATCH needs a DAV:propertyupdate body')
    const root = davRoot(document, 'propertyupdate')
    const found = await find(files, request.userId, target.path)
    if (!found) throw new NotFoundError(`no file or folder at ${target.path}`)
    // A viewer's PROPPATCH under a mount is refused as any write of theirs is (DESIGN §13).
    if (target.path !== '') await files.place(ownerOf(request), target.path, 'write')
    const resource = resourceOf(found, target)
    await checkWrite(services, request, [{ ...resource, membership: false }])
    const instructions = childElements(root).filter((child) => child.namespaceURI === DAV && (child.localName === 'set' || child.localName === 'remove'))
      .flatMap((instruction) => { const prop = davChild(instruction, 'prop'); return prop ? childElements(prop).map((element) => ({ set: instruction.localName === 'set', element })) : [] })
    propertiesNamed(instructions.map(({ element }) => element))
    const changes: Array<{ set?: DeadProperty, remove?: PropertyName }> = instructions.map(({ set, element }) =>
      set ? { set: { ...nameOf(element), value: contentOf(element) } } : { remove: nameOf(element) })
    const names = changes.map((change) => elementXml(change.set ?? change.remove!))
    const protectedOnes = changes.filter((change) => isLive(change.set ?? change.remove!))
    let statuses: Map<number, string[]>
    if (protectedOnes.length > 0) {
      // All or nothing: the protected ones refused, the rest not done because of them.
      const refused = new Set(protectedOnes)
      statuses = new Map([[403, changes.filter((change) => refused.has(change)).map((change) => elementXml(change.set ?? change.remove!))], [424, changes.filter((change) => !refused.has(change)).map((change) => elementXml(change.set ?? change.remove!))]])
    } else {
      const space = await spaceOf(request.userId, resource)
      const tooMuch = await properties.patch(space.userId, keyOf(space.resource), changes, (after) => {
        if (weightOf(after) > services.maxPropertyBytes) throw new TooMuch()
      }).then(() => false, (error: unknown) => {
        if (error instanceof TooMuch) return true
        throw error
      })
      statuses = new Map([[tooMuch ? 507 : 200, names]])
    }
    const href = hrefOf(target.path, resource.folder)
    return reply.code(207).header('content-type', MULTISTATUS_TYPE)
      .send(`${XML_DECLARATION}<D:multistatus xmlns:D="DAV:"><D:response><D:href>${escapeXml(href)}</D:href>${propstats(statuses)}</D:response></D:multistatus>`)
  }

  /** As the raw routes; a folder (looked for only when no file is there) has nothing to GET. */
  async function get (request: FastifyRequest, reply: FastifyReply) {
    const { path } = targetOf(request.url)
    const folder = () => new DavError(405, 'a folder has no content to GET: list it with PROPFIND')
    if (path === '') throw folder()
    try {
      if (request.method === 'GET') return await serveRawFile(files, request, reply, request.userId, path)
      const file = await files.head(request.userId, path)
      sendRawHeaders(reply, file, path)
      if (isNotModified(file, readConditions(request.headers))) return reply.code(304).send()
      return reply.header('content-length', file.size).send()
    } catch (error) {
      if (error instanceof NotFoundError && await files.folderExists(request.userId, path)) throw folder()
      throw error
    }
  }

  /**
   * A raw PUT's cost and two lookups: the locks on the path and its ancestors, and (in the index, by
   * key) the folder that holds the file and one of its name; where the path leads is asked once. A
   * folder removed while the body uploads is there again once the file is, as a folder holding a
   * file is.
   */
  const put = (request: FastifyRequest, reply: FastifyReply) => withMountsLookedUpOnce(() => putFile(request, reply))

  async function putFile (request: FastifyRequest, reply: FastifyReply) {
    const { path, slash } = targetOf(request.url)
    if (path === '' || slash) throw new DavError(405, 'a folder cannot be written with PUT: make it with MKCOL')
    await checkWrite(services, request, [{ path, folder: false, membership: true }])
    // Before the body is read, in one lookup: a folder that holds the file, none of its name.
    const [parentThere, folderNamed] = await files.foldersExist(request.userId, [parentOf(path), path])
    if (folderNamed) throw new DavError(405, 'a folder has that name')
    if (!parentThere) throw new DavError(409, `the folder ${parentOf(path)} does not exist`)
    const given = request.headers['content-type']
    const contentType = given !== undefined && isFileMediaType(given) ? given : DEFAULT_CONTENT_TYPE
    const written = await receiveRawFile(files, services.uploadMemory, request, reply, ownerOf(request), path, { contentType }).catch((error: unknown) => {
      if (error instanceof FolderInTheWayError) throw new DavError(405, 'a folder has that name')
      throw error
    })
    return reply.code(written.replaced ? 204 : 201).send()
  }

  async function mkcol (request: FastifyRequest, reply: FastifyReply) {
    const { path } = targetOf(request.url)
    if (await bodyText(request, MAX_MKCOL_BODY_BYTES) !== undefined) throw new UnsupportedMediaTypeError('MKCOL with a body is not supported')
    if (path === '' || await find(files, request.userId, path)) throw new DavError(405, 'something exists at that URL already')
    await requireParent(files, request.userId, path)
    await checkWrite(services, request, [{ path, folder: true, membership: true }])
    await files.makeFolder(request.userId, path)
    return reply.code(201).send()
  }

  /** A file or a folder (and all under it) gone: files to the trash, with their locks and properties. */
  async function remove (userId: string, found: Found) {
    if (found.kind === 'file') await files.delete(userId, found.entry.path)
    else await deleteFolder(files, userId, `${found.entry.path}/`)
    await locks.releaseAt(userId, found.entry)
    if (found.kind === 'folder') await dropProperties(userId, found.entry)
  }

  async function del (request: FastifyRequest, reply: FastifyReply) {
    const target = targetOf(request.url)
    if (target.path === '') throw new DavError(403, 'your root cannot be deleted')
    const userId = request.userId
    const found = await find(files, userId, target.path)
    if (!found) throw new NotFoundError(`no file or folder at ${target.path}`)
    if (found.kind === 'file') {
      await checkWrite(services, request, [{ ...found.entry, membership: true }])
      // As the raw DELETE: If-Match applies.
      await files.delete(userId, target.path, writePreconditions(request.headers))
      await locks.releaseAt(userId, found.entry)
      return reply.code(204).send()
    }
    // A folder: a lock on it or above it refuses the whole; one on a member keeps that member
    // (RFC 4918 §9.6.1), and the rest goes.
    const folder = keyOf(found.entry)
    const submitted = await submittedBy(services, request)
    const missing = (await locks.bearingOn(userId, { ...found.entry, membership: true })).filter((lock) => !locks.holds(userId, lock, submitted))
    const onFolder = missing.filter((lock) => lock.path === folder || !lock.path.startsWith(folder))
    if (onFolder.length > 0) await locks.checkUnlocked(userId, [{ ...found.entry, membership: true }], submitted)
    // A locked file, anything in a locked folder, and the folders that hold either.
    const kept = (path: string) => missing.some((lock) => path === lock.path || (lock.path.endsWith('/') && path.startsWith(lock.path)) || (path.endsWith('/') && lock.path.startsWith(path)))
    const { notDeleted } = await deleteFolder(files, userId, folder, { kept })
    if (notDeleted.length === 0) {
      await locks.releaseAt(userId, found.entry)
      await dropProperties(userId, found.entry)
      return reply.code(204).send()
    }
    const responses = notDeleted.map(({ path, status }) => `<D:response><D:href>${escapeXml(hrefOfKey(path))}</D:href><D:status>HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}</D:status></D:response>`)
    return reply.code(207).header('content-type', MULTISTATUS_TYPE).send(`${XML_DECLARATION}<D:multistatus xmlns:D="DAV:">${responses.join('')}</D:multistatus>`)
  }

  async function copyOrMove (request: FastifyRequest, reply: FastifyReply) {
    const operation = request.method === 'COPY' ? 'copy' : 'move'
    const source = targetOf(request.url)
    const destination = destinationOf(request.headers.destination as string | undefined, request.headers.host)
    const overwrite = String(request.headers.overwrite ?? 'T').trim().toUpperCase()
    if (overwrite !== 'T' && overwrite !== 'F') throw new BadRequestError('Overwrite must be T or F')
    const userId = request.userId
    const found = await find(files, userId, source.path)
    if (!found) throw new NotFoundError(`no file or folder at ${source.path}`)
    const depth = depthOf(request, 'infinity')
    if (depth === '1' || (operation === 'move' && depth !== 'infinity' && found.kind === 'folder')) throw new BadRequestError(`Depth ${depth} is not one ${request.method} takes here`)
    if (source.path === '' || destination.path === '') throw new DavError(403, 'your root cannot be copied, moved or replaced')
    if (source.path === destination.path) throw new DavError(403, 'the source and the destination are the same')
    if (found.kind === 'folder' && `${destination.path}/`.startsWith(`${source.path}/`)) throw new DavError(403, 'a folder cannot be put inside itself')
    // What is shared with the caller, moved whole: the mount is renamed, the owner's files stay.
    const itself = operation === 'move' ? await files.mountItself(userId, found.kind === 'folder' ? `${source.path}/` : source.path) : undefined
    if (itself) {
      await files.renameMount(userId, itself, destination.path)
      return reply.code(201).send()
    }
    const existing = await find(files, userId, destination.path)
    if (existing && overwrite === 'F') throw preconditionFailed('the destination exists and Overwrite is F')
    await requireParent(files, userId, destination.path)
    const writes: Write[] = [{ path: destination.path, folder: found.kind === 'folder' || existing?.kind === 'folder', membership: !existing }]
    if (operation === 'move') writes.push({ ...found.entry, membership: true })
    await checkWrite(services, request, writes)
    // A file replaces a file as a version of it; anything else that is there goes to the trash first.
    if (existing && (existing.kind === 'folder' || found.kind === 'folder')) await remove(userId, existing)
    const owner = ownerOf(request)
    const from = keyOf(found.entry)
    const to = keyOf({ path: destination.path, folder: found.kind === 'folder' })
    // A moved folder's own properties (and its folders') go first: its folders' deletes on the way take theirs.
    const route = operation === 'copy' || found.kind === 'folder' ? await propertyRoute(userId, found.entry, { path: destination.path, folder: found.kind === 'folder' }) : undefined
    if (operation === 'move' && found.kind === 'folder') {
      if (route) await properties.moveFolders(route.userId, route.from, route.to)
      else await dropProperties(userId, found.entry)
      await shares.follow(owner, from, to)
    }
    if (found.kind === 'file') {
      await files[operation](owner, source.path, destination.path)
    } else if (depth === '0') {
      await files.makeFolder(userId, destination.path)
    } else {
      await files.makeFolder(userId, destination.path)
      for (let done = false; !done;) {
        done = !(await transferFolder(files, owner, operation, `${source.path}/`, `${destination.path}/`, { deadline: Date.now() + FOLDER_STEP_MS })).isTruncated
      }
    }
    // A moved file's properties go with it by the journal; a copy's are copied here.
    if (operation === 'copy' && route) await properties.copy(route.userId, route.from, route.to, { deep: depth !== '0' })
    if (operation === 'move') {
      await locks.releaseAt(userId, found.entry)
      if (found.kind === 'folder') await files.removeFolder(userId, `${source.path}/`, { unlessEmpty: true })
    }
    return reply.code(existing ? 204 : 201).send()
  }

  async function lock (request: FastifyRequest, reply: FastifyReply) {
    const target = targetOf(request.url)
    const userId = request.userId
    const document = await davDocument(request)
    const timeoutSeconds = timeoutOf(request.headers.timeout as string | undefined)
    let found = await find(files, userId, target.path)
    if (document === undefined) {
      // A refresh: the lock named by the If header, given its time again.
      const token = [...submittedTokens(parseIf(String(request.headers.if ?? '')))][0]
      const refreshed = await locks.refresh(userId, resourceOf(found, target), token, timeoutSeconds)
      return reply.code(200).header('content-type', MULTISTATUS_TYPE)
        .send(`${XML_DECLARATION}<D:prop xmlns:D="DAV:"><D:lockdiscovery>${activeLockXml(refreshed, new Date())}</D:lockdiscovery></D:prop>`)
    }
    const info = davRoot(document, 'lockinfo')
    const scopeElement = davChild(info, 'lockscope')
    const scope = scopeElement && davChild(scopeElement, 'shared') ? 'shared' : scopeElement && davChild(scopeElement, 'exclusive') ? 'exclusive' : undefined
    if (!scope) throw new BadRequestError('a LOCK names its lockscope: exclusive or shared')
    const type = davChild(info, 'locktype')
    if (!type || !davChild(type, 'write')) throw new BadRequestError('only write locks are served')
    const ownerElement = davChild(info, 'owner')
    const owner = ownerElement ? contentOf(ownerElement as Element) : ''
    if (Buffer.byteLength(owner) > INPUT_LIMITS.davLockOwnerBytes) throw new BadRequestError(`a lock's owner is at most ${INPUT_LIMITS.davLockOwnerBytes} bytes`)
    const depth = depthOf(request, 'infinity')
    if (depth === '1') throw new BadRequestError('a LOCK\'s Depth is 0 or infinity')
    if (target.path !== '') await files.place(ownerOf(request), target.path, 'write')
    let created = false
    if (!found) {
      // A lock on an unmapped URL makes an empty file, locked (RFC 4918 §7.3).
      if (target.slash) throw new NotFoundError(`no folder at ${target.path}`)
      await requireParent(files, userId, target.path)
      await checkWrite(services, request, [{ path: target.path, folder: false, membership: true }])
      await files.write(ownerOf(request), target.path, [], { contentType: DEFAULT_CONTENT_TYPE, length: 0 })
      found = await find(files, userId, target.path)
      created = true
    }
    const taken = await locks.lock(userId, resourceOf(found, target), { depth: depth === '0' ? '0' : 'infinity', scope, owner, timeoutSeconds })
    return reply.code(created ? 201 : 200).header('content-type', MULTISTATUS_TYPE).header('lock-token', `<${taken.token}>`)
      .send(`${XML_DECLARATION}<D:prop xmlns:D="DAV:"><D:lockdiscovery>${activeLockXml(taken, new Date())}</D:lockdiscovery></D:prop>`)
  }

  async function unlock (request: FastifyRequest, reply: FastifyReply) {
    const target = targetOf(request.url)
    const token = lockTokenOf(request.headers['lock-token'] as string | undefined)
    const found = await find(files, request.userId, target.path)
    await locks.unlock(request.userId, resourceOf(found, target), token)
    return reply.code(204).send()
  }

  return { propfind, proppatch, get, put, mkcol, delete: del, copy: copyOrMove, move: copyOrMove, lock, unlock }
}

/** Thrown inside the properties' transaction to roll it back: they would weigh more than allowed. */
class TooMuch extends Error {}

type LiveQuota = { usedBytes: number, availableBytes?: number } | undefined
