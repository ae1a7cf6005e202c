import { Type } from '@sinclair/typebox'
import { mediaType } from './files.js'
import { ImageTransform } from './images.js'

const LinkMethod = Type.Union([Type.Literal('download'), Type.Literal('upload')], { description: '`download` (GET, HEAD, ranges) or `upload` (PUT)' })

export const CreateLinkBody = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 1024, description: 'The file, under the same rules as the file routes' }),
  method: LinkMethod,
  expiresIn: Type.Optional(Type.Integer({ minimum: 1, description: 'Seconds the link works for: 3600 by default, at most LINK_MAX_SECONDS' })),
  contentType: Type.Optional(mediaType('An upload link: the Content-Type the upload must send (application/octet-stream by default)')),
  size: Type.Optional(Type.Integer({ minimum: 0, description: 'An upload link: the exact length the upload must have' })),
  transform: Type.Optional(Type.Ref(ImageTransform))
}, { $id: 'StowageCreateLink', additionalProperties: false })

export const CreatedLink = Type.Object({
  url: Type.String({ description: 'Works without Authorization, for this file and method only, until expiresAt' }),
  method: LinkMethod,
  expiresAt: Type.String({ format: 'date-time' })
}, { $id: 'StowageCreatedLink' })

export const linkSchemas = [CreateLinkBody, CreatedLink]
