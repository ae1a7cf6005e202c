import { Type } from '@sinclair/typebox'
import { INPUT_LIMITS } from '../limits.js'
import { IMAGE_FITS, IMAGE_FORMATS, type ImageFit, type ImageFormat, type ImageTransform as Transform } from '../storage/images.js'
import { BadRequestError } from '../errors.js'

const SIDE = `1–${INPUT_LIMITS.imageSide}`
const DESCRIPTIONS = {
  width: `The box's width in pixels, ${SIDE}`,
  height: `The box's height in pixels, ${SIDE}`,
  fit: '`inside` (the default): the whole image within the box, never enlarged; `cover`: the box filled, the image cropped; `contain`: the box filled, the image letterboxed',
  format: 'The format sent: the source\'s by default (GIF and TIFF are sent as PNG)',
  quality: 'JPEG, WebP and AVIF: 1–100 (the encoder\'s default when absent)'
}
const fit = Type.Unsafe<ImageFit>({ type: 'string', enum: [...IMAGE_FITS], description: DESCRIPTIONS.fit })
const format = Type.Unsafe<ImageFormat>({ type: 'string', enum: [...IMAGE_FORMATS], description: DESCRIPTIONS.format })

/** The query of GET /api/images: numbers as the query spells them, checked by `transformOf`. */
export const ImageQuery = Type.Object({
  width: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', description: DESCRIPTIONS.width })),
  height: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', description: DESCRIPTIONS.height })),
  fit: Type.Optional(fit),
  format: Type.Optional(format),
  quality: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', description: DESCRIPTIONS.quality }))
})

/** A download link's transform (POST /api/links). */
export const ImageTransform = Type.Object({
  width: Type.Optional(Type.Integer({ minimum: 1, maximum: INPUT_LIMITS.imageSide, description: DESCRIPTIONS.width })),
  height: Type.Optional(Type.Integer({ minimum: 1, maximum: INPUT_LIMITS.imageSide, description: DESCRIPTIONS.height })),
  fit: Type.Optional(fit),
  format: Type.Optional(format),
  quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: DESCRIPTIONS.quality }))
}, {
  $id: 'StowageImageTransform',
  additionalProperties: false,
  description: 'A download link of an image: the image transformed, as GET /api/images/{path} sends it'
})

const within = (name: string, value: string | undefined, most: number, unit: string) => {
  if (value === undefined) return undefined
  const number = Number(value)
  if (number < 1 || number > most) throw new BadRequestError(`${name} must be from 1 to ${most}${unit}, not ${value}`)
  return number
}

/** The transform a query asks for, its numbers in range (400 saying which is not). */
export function transformOf (query: { width?: string, height?: string, fit?: ImageFit, format?: ImageFormat, quality?: string }): Transform {
  return {
    width: within('width', query.width, INPUT_LIMITS.imageSide, ' pixels'),
    height: within('height', query.height, INPUT_LIMITS.imageSide, ' pixels'),
    fit: query.fit,
    format: query.format,
    quality: within('quality', query.quality, 100, '')
  }
}

export const imageSchemas = [ImageTransform]
