import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { createDavLockRepository, createDeadPropertyRepository } from '../db/webdav.js'
import { createByteBudget, type ByteBudget } from '../limits.js'
import { DEFAULT_UPLOAD_MEMORY_BYTES } from '../defaults.js'
import { DavError } from '../webdav/errors.js'
import { createDavLocks, lockSpaces } from '../webdav/locks.js'
import { davMethods } from '../webdav/methods.js'
import { MOUNT } from '../webdav/paths.js'
import { errorXml } from '../webdav/xml.js'
import { stowageOf } from '../http/decorators.js'
import { errorHandler } from './errors.js'
import { sweepEvery } from '../http/sweep.js'

export interface WebdavRoutesOptions {
  uploadMemory?: ByteBudget
}

// What one file's or folder's dead properties may weigh.
export const MAX_PROPERTY_BYTES = 64 * 1024

const DAV_METHODS = ['PROPFIND', 'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK']
const ALLOWED = ['OPTIONS', 'GET', 'HEAD', 'PUT', 'DELETE', ...DAV_METHODS].join(', ')
// File managers speak only Basic: offered beside Bearer.
const CHALLENGES = ['Basic realm="Stowage", charset="UTF-8"', 'Bearer']

/**
 * WebDAV at /dav/, the user's root (RFC 4918 class 1 and 2): a front end over the file API, with
 * its locks and dead properties in the database. Authenticated by the chain, or by HTTP Basic with
 * an API key as the password; OPTIONS answers anyone, as clients ask it before they authenticate.
 */
export const webdavRoutes: FastifyPluginAsync<WebdavRoutesOptions> = async (app, { uploadMemory = createByteBudget(DEFAULT_UPLOAD_MEMORY_BYTES) }) => {
  const { stowageAuthenticate, stowageFiles: files, stowageDb: db, stowageQuotas: quotas, stowageShares: shares } = stowageOf(app)
  for (const method of DAV_METHODS) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true })
  }
  // Bodies are files or XML documents, read by the method: no parser may buffer them.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, _payload, done) => done(null))
  app.setErrorHandler(async (error, request, reply) => {
    if (error instanceof DavError) {
      if (!request.raw.complete) request.raw.resume()
      reply.code(error.status)
      return error.condition
        ? reply.header('content-type', 'application/xml; charset=utf-8').send(errorXml(error.condition, error.hrefs))
        : reply.header('content-type', 'text/plain; charset=utf-8').send(error.message)
    }
    if ((error as { statusCode?: number }).statusCode === 401) {
      return reply.code(401).header('www-authenticate', CHALLENGES).header('content-type', 'text/plain; charset=utf-8').send('Unauthorized: sign in with your user name and an API key as the password (Basic), or a Bearer token')
    }
    return errorHandler(error as Parameters<typeof errorHandler>[0], request, reply)
  })

  const spaceOf = lockSpaces(files.place)
  const locks = createDavLocks(createDavLockRepository(db), spaceOf)
  sweepEvery(app, { everyMs: 600_000, what: 'expired WebDAV locks', sweep: locks.sweep })
  const methods = davMethods({ files, locks, spaceOf, properties: createDeadPropertyRepository(db), quotas, shares, uploadMemory, maxPropertyBytes: MAX_PROPERTY_BYTES })
  const handlers: Record<string, (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>> = {
    GET: methods.get, HEAD: methods.get, PUT: methods.put, DELETE: methods.delete, PROPFIND: methods.propfind, PROPPATCH: methods.proppatch,
    MKCOL: methods.mkcol, COPY: methods.copy, MOVE: methods.move, LOCK: methods.lock, UNLOCK: methods.unlock
  }
  const options = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.header('dav', '1, 2').header('ms-author-via', 'DAV').header('allow', ALLOWED).header('content-length', 0).send()

  // Another protocol than the API's: not in the OpenAPI document (docs/api.md describes it).
  const hidden = { hide: true }
  for (const url of [MOUNT, `${MOUNT}/`, `${MOUNT}/*`]) {
    app.route({ method: 'OPTIONS', url, schema: hidden, handler: options })
    app.route({
      method: Object.keys(handlers),
      url,
      schema: hidden,
      exposeHeadRoute: false,
      config: { basicAuth: true, streamedBody: true },
      onRequest: stowageAuthenticate,
      handler: async (request, reply) => await handlers[request.method](request, reply)
    })
  }
}
