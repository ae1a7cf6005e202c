import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from '@sinclair/typebox'
import { BadRequestError, ForbiddenError } from '../errors.js'
import type { ByteBudget } from '../limits.js'
import { stowageOf } from '../http/decorators.js'
import { DEFAULT_CONTENT_TYPE } from '../storage/files.js'
import type { LinkGrant } from '../storage/links.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { CreatedLink, CreateLinkBody } from '../schemas/links.js'
import { DOCUMENTED } from '../schemas/openapi.js'
import { baseUrlOf } from './base-url.js'
import { ownerOf, receiveRawFile, servedAs, serveImage, serveRawFile } from '../http/file-answers.js'

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)

/** A refused link, as a page: what happened and what to do, with nothing that runs. */
function refusalPage (reply: FastifyReply, reason: string) {
  const page = `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>This link does not work</title>` +
    `<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:15vh auto;padding:0 1rem;color:#1f2328}</style>` +
    `<h1>This link does not work</h1><p>${escapeHtml(reason.charAt(0).toUpperCase() + reason.slice(1))}.</p><p>Ask the person who sent it for a new one.</p></html>`
  return reply.code(403).header('content-type', 'text/html; charset=utf-8').header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'").send(page)
}

export interface LinkRoutesOptions {
  uploadMemory: ByteBudget
  /** The longest lifetime a link may be given. */
  maxSeconds: number
  /** Links to the store itself (S3 presigned URLs) where it can make them; else served by Stowage. */
  viaStore: boolean
  /** Where clients reach Stowage; else the request's own origin. */
  publicUrl?: string
}

const DEFAULT_SECONDS = 3600

/** What the store answers a download link with: the raw route's rule, and, for a file that is
 *  downloaded rather than shown, no type a browser could sniff (the store sends no nosniff). */
function storeServed (contentType: string, path: string) {
  const served = servedAs(contentType, path)
  return served.disposition ? { ...served, contentType: DEFAULT_CONTENT_TYPE } : served
}

/**
 * Signed links: `POST /api/links` hands out a URL for one file and one method that works without
 * credentials until it expires. A download link on S3 is a presigned URL, so the bytes go straight
 * between the client and the store; otherwise Stowage serves it at `/links/{token}`, with the raw routes' answers.
 */
export const linkRoutes: FastifyPluginAsyncTypebox<LinkRoutesOptions> = async (app, options) => {
  const { stowageAuthenticate, stowageFiles: files, stowageLinks: signer, stowageImages: images } = stowageOf(app)
  const prefix = app.prefix

  const createRoute: FastifyPluginAsyncTypebox = async (api) => {
    api.addHook('onRequest', stowageAuthenticate)
    api.post('/api/links', {
      config: DOCUMENTED,
      schema: {
        operationId: 'createLink',
        tags: ['files'],
        summary: 'A URL for one file and one method that needs no credentials until it expires',
        description: 'A download link serves the file as `GET /api/raw/{path}` does, ranges included; an upload link takes one PUT of the file. A link cannot be widened by editing it, and cannot be revoked before it expires.',
        security: CALLER_SECURITY,
        body: Type.Ref(CreateLinkBody),
        response: { 201: answer('The link', Type.Ref(CreatedLink)), ...errorResponses(400, 403, 404, 415, ...CALLER_REFUSALS) }
      }
    }, async (request, reply) => {
      const { path, method, expiresIn = Math.min(DEFAULT_SECONDS, options.maxSeconds), size, transform } = request.body
      if (expiresIn > options.maxSeconds) throw new BadRequestError(`expiresIn must be at most ${options.maxSeconds} seconds (LINK_MAX_SECONDS)`)
      if (transform && method !== 'download') throw new BadRequestError('transform is for download links of images only')
      if (size !== undefined && size > files.maxUploadBytes) throw new BadRequestError(`size must be at most ${files.maxUploadBytes} bytes (MAX_UPLOAD_BYTES)`)
      const contentType = method === 'upload' ? request.body.contentType ?? DEFAULT_CONTENT_TYPE : undefined
      // A grantee's link would outlive their share: what is shared with them is not theirs to link.
      if ((await files.place(ownerOf(request), path, 'read')).mount) throw new ForbiddenError('what is shared with you cannot be linked: ask its owner for a link')
      // The same rights as the operation itself: the caller's own file, which must exist to be read.
      const downloaded = method === 'download' ? await files.head(request.userId, path) : undefined
      if (method === 'upload') await files.checkWritable(request.userId, path, {})
      const owner = ownerOf(request)
      const grant: LinkGrant = { ...owner, path, method, expiresAt: Math.floor(Date.now() / 1000) + expiresIn, contentType, size, transform }
      // An upload always passes through Stowage, which counts it: a quota may be set while a link
      // lives. So does a transformed image, which Stowage makes.
      const url = options.viaStore && downloaded && !transform && files.presign
        ? await files.presign(request.userId, path, { expiresInSeconds: expiresIn, served: storeServed(downloaded.contentType, path) })
        : `${baseUrlOf(request, options.publicUrl)}${prefix}/links/${signer.token(grant)}`
      return reply.code(201).send({ url, method, expiresAt: new Date(grant.expiresAt * 1000).toISOString() })
    })
  }

  const linkedFiles: FastifyPluginAsyncTypebox = async (links) => {
    // An upload link's body is the file, read as it arrives.
    links.removeAllContentTypeParsers()
    links.addContentTypeParser('*', (_request, _payload, done) => done(null))
    const grantOf = (token: string, method: LinkGrant['method']) => {
      const grant = signer.verify(token)
      if (grant.method !== method) throw new ForbiddenError(`this link is for ${grant.method === 'download' ? 'downloading' : 'uploading'} only`)
      return grant
    }
    // A wildcard, not `:token`: a token is longer than a path parameter may be.
    const hidden = { hide: true }

    links.get('/links/*', { schema: hidden }, async (request, reply) => {
      let grant: LinkGrant
      try {
        grant = grantOf((request.params as { '*': string })['*'], 'download')
      } catch (error) {
        // A link is opened in a browser more often than by a program: a person gets a page.
        if (error instanceof ForbiddenError && /text\/html/.test(request.headers.accept ?? '')) return refusalPage(reply, (error as Error).message)
        throw error
      }
      if (grant.transform) return serveImage(images, request, reply, grant.userId, grant.path, grant.transform)
      return serveRawFile(files, request, reply, grant.userId, grant.path)
    })

    links.put('/links/*', { schema: hidden, config: { streamedBody: true } }, async (request, reply) => {
      const grant = grantOf((request.params as { '*': string })['*'], 'upload')
      const contentType = grant.contentType ?? DEFAULT_CONTENT_TYPE
      if ((request.headers['content-type'] ?? DEFAULT_CONTENT_TYPE) !== contentType) throw new ForbiddenError(`this link takes a file of type ${contentType} only`)
      if (grant.size !== undefined && request.headers['content-length'] !== String(grant.size)) throw new ForbiddenError(`this link takes a file of ${grant.size} bytes only`)
      const { replaced: _, ...written } = await receiveRawFile(files, options.uploadMemory, request, reply, { userId: grant.userId, orgId: grant.orgId ?? null }, grant.path, { contentType, maxBytes: grant.size })
      return written
    })
  }

  await app.register(createRoute)
  await app.register(linkedFiles)
}
