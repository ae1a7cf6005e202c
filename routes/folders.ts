import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { stowageOf } from '../http/decorators.js'
import { answer, CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { FolderBody, FolderMade, FolderPathParams } from '../schemas/folders.js'
import { DOCUMENTED } from '../schemas/openapi.js'

/** Folders made on purpose: they exist while empty, until deleted. */
export const folderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { stowageAuthenticate, stowageFiles: files } = stowageOf(app)
  app.addHook('onRequest', stowageAuthenticate)

  app.post('/api/folders', {
    config: DOCUMENTED,
    schema: {
      operationId: 'makeFolder',
      tags: ['files'],
      summary: 'Make a folder that exists while it is empty',
      description: 'It is listed in `folders` by the one-level listing, costs no quota, and stays when its last file is deleted. Making one that exists changes nothing.',
      security: CALLER_SECURITY,
      body: Type.Ref(FolderBody),
      response: { 201: answer('The folder exists', Type.Ref(FolderMade)), ...errorResponses(400, 403, 409, 415, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => reply.code(201).send(await files.makeFolder(request.userId, request.body.path)))

  app.delete('/api/folders/*', {
    config: DOCUMENTED,
    schema: {
      operationId: 'removeFolder',
      tags: ['files'],
      summary: 'Remove an empty folder',
      security: CALLER_SECURITY,
      params: FolderPathParams,
      response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(400, 403, 404, 409, ...CALLER_REFUSALS) }
    }
  }, async (request, reply) => {
    await files.removeFolder(request.userId, request.params['*'])
    return reply.code(204).send(null)
  })
}
