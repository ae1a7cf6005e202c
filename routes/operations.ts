import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import type { Readable } from 'node:stream'
import { Type } from '@sinclair/typebox'
import { BadRequestError } from '../errors.js'
import { stowageOf } from '../http/decorators.js'
import { DOCUMENTED, RAW_FILE_HEADERS } from '../schemas/openapi.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { FileWritten, WriteHeaders } from '../schemas/files.js'
import { ArchiveQuery, ArchiveSelection, FolderTransferred, TransferBody } from '../schemas/operations.js'
import { zipFolder, zipSelection } from '../storage/archive.js'
import { writePreconditions } from '../storage/conditional.js'
import { transferFolder } from '../storage/folders.js'
import { clientSignal } from './client-signal.js'
import { ownerOf } from '../http/file-answers.js'

export interface OperationRoutesOptions {
  /** A folder copy or move stops starting files after this, and answers isTruncated: the client sends it again. */
  folderBudgetMs?: number
}

const DEFAULT_FOLDER_BUDGET_MS = 10_000

/** The name a browser saves an archive under: the folder's own, or the service's for the root. */
const archiveName = (prefix: string) => `${prefix.split('/').filter(Boolean).at(-1) ?? 'stowage'}.zip`

/** Copy and move on the store's side, of a file or a folder, and a folder as one zip. */
export const operationRoutes: FastifyPluginAsyncTypebox<OperationRoutesOptions> = async (app, { folderBudgetMs = DEFAULT_FOLDER_BUDGET_MS }) => {
  const { stowageAuthenticate, stowageFiles: files, stowageShares: shares } = stowageOf(app)
  app.addHook('onRequest', stowageAuthenticate)

  for (const operation of ['copy', 'move'] as const) {
    const past = operation === 'copy' ? 'copied' : 'moved'
    app.post(operation === 'copy' ? '/api/copies' : '/api/moves', {
      config: DOCUMENTED,
      schema: {
        operationId: operation === 'copy' ? 'copyFiles' : 'moveFiles',
        tags: ['files'],
        summary: `${operation === 'copy' ? 'Copy' : 'Move'} a file or a folder, on the store's side`,
        description: `No byte passes through the service. If-Match applies to the source file, If-None-Match: * to the destination. ` +
          `A \`from\` ending in "/" ${operation}s every file under it; a request that stops at its time budget answers isTruncated, and the same request again goes on.`,
        security: CALLER_SECURITY,
        headers: WriteHeaders,
        body: Type.Ref(TransferBody),
        response: {
          200: {
            ...answer(`A file: the destination as it is stored now. A folder: what was ${past}`, Type.Union([Type.Ref(FileWritten), Type.Ref(FolderTransferred)])),
            headers: { ETag: RAW_FILE_HEADERS.ETag }
          },
          ...errorResponses(400, 403, 404, 409, 412, 415, 507, ...CALLER_REFUSALS)
        }
      }
    }, async (request, reply) => {
      const { from, to } = request.body
      const { ifMatch, ifNoneMatch } = writePreconditions(request.headers)
      if (!from.endsWith('/')) {
        const done = await files[operation](ownerOf(request), from, to, { source: { ifMatch }, destination: { ifNoneMatch } })
        reply.header('etag', done.etag)
        return done
      }
      if (ifMatch) throw new BadRequestError('If-Match names one file\'s version: a folder has none')
      const owner = ownerOf(request)
      return transferFolder(files, owner, operation, from, to, {
        destination: { ifNoneMatch }, deadline: Date.now() + folderBudgetMs, signal: clientSignal(reply), moving: () => shares.follow(owner, from, to)
      })
    })
  }

  const sendZip = (reply: FastifyReply, zip: Readable, name: string) => reply.type('application/zip')
    .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(name)}`)
    .send(zip)

  app.get('/api/archive', {
    config: DOCUMENTED,
    schema: {
      operationId: 'downloadArchive',
      tags: ['files'],
      summary: 'Every file under a prefix as one zip, streamed',
      description: 'Names are relative to the prefix, in UTF-8; files are stored uncompressed; ZIP64 past 4 GiB. A store failing mid-way cuts the answer off: a zip that ends early is never sent as whole.',
      security: CALLER_SECURITY,
      querystring: ArchiveQuery,
      response: {
        200: { description: 'The zip', content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } } },
        ...errorResponses(400, 404, ...CALLER_REFUSALS)
      }
    }
  }, async (request, reply) => {
    const { prefix } = request.query
    return sendZip(reply, await zipFolder(files, request.userId, prefix), archiveName(prefix))
  })

  app.post('/api/archive', {
    config: DOCUMENTED,
    schema: {
      operationId: 'downloadSelection',
      tags: ['files'],
      summary: 'Chosen files and folders of one folder as one zip, streamed',
      description: 'As GET /api/archive makes a folder\'s zip, for what a person ticked in a folder: each name zipped under itself, a folder with everything under it. 404 names the first that is not there, before the answer begins.',
      security: CALLER_SECURITY,
      body: Type.Ref(ArchiveSelection),
      response: {
        200: { description: 'The zip', content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } } },
        ...errorResponses(400, 404, 415, ...CALLER_REFUSALS)
      }
    }
  }, async (request, reply) => {
    const { prefix, names } = request.body
    return sendZip(reply, await zipSelection(files, request.userId, prefix, names), archiveName(prefix))
  })
}
