import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { stowageOf } from '../http/decorators.js'
import { serveImage } from '../http/file-answers.js'
import { CALLER_REFUSALS, CALLER_SECURITY, errorResponses } from '../schemas/common.js'
import { FilePathParams, ReadHeaders } from '../schemas/files.js'
import { ImageQuery, transformOf } from '../schemas/images.js'
import { DOCUMENTED } from '../schemas/openapi.js'

const IMAGE_HEADERS = {
  ETag: { type: 'string', description: 'The source\'s ETag and the transform\'s: send it back in If-None-Match' },
  'Last-Modified': { type: 'string', description: 'When the source was last written, as an HTTP date' },
  'Content-Length': { type: 'integer', description: 'Bytes in the body' }
}

/** Images transformed on the server: thumbnails and previews in the size and format a page needs. */
export const imageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { stowageAuthenticate, stowageImages: images } = stowageOf(app)
  app.addHook('onRequest', stowageAuthenticate)

  app.get('/api/images/*', {
    config: DOCUMENTED,
    exposeHeadRoute: false,
    schema: {
      operationId: 'transformImage',
      tags: ['files'],
      summary: 'An image file, resized and converted',
      description: 'JPEG, PNG, WebP, AVIF, GIF (its first frame) and TIFF, turned upright by their EXIF orientation and sent without metadata. The same rights as downloading the file. Made once and kept for every instance until the file changes.',
      security: CALLER_SECURITY,
      params: FilePathParams,
      querystring: ImageQuery,
      headers: ReadHeaders,
      response: {
        200: { description: 'The image', headers: IMAGE_HEADERS, content: { 'image/*': { schema: { type: 'string', format: 'binary' } } } },
        304: { description: 'Your copy is current (If-None-Match / If-Modified-Since)', headers: IMAGE_HEADERS, type: 'null' },
        ...errorResponses(400, 404, 415, 422, ...CALLER_REFUSALS)
      }
    }
  }, async (request, reply) => serveImage(images, request, reply, request.userId, request.params['*'], transformOf(request.query)))
}
