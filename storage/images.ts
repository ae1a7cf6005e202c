import { createHash } from 'node:crypto'
import sharp, { type Metadata } from 'sharp'
import { isNotModified, type ReadConditions } from './conditional.js'
import type { FileService } from './files.js'
import type { ImageCache } from './image-cache.js'
import type { ObjectRead } from './object-store.js'
import { INPUT_LIMITS, type createSlots } from '../limits.js'
import { ImageTooLargeError, UnsupportedMediaTypeError } from '../errors.js'

export const IMAGE_FITS = ['cover', 'contain', 'inside'] as const
export const IMAGE_FORMATS = ['webp', 'avif', 'jpeg', 'png'] as const
export type ImageFit = typeof IMAGE_FITS[number]
export type ImageFormat = typeof IMAGE_FORMATS[number]

/** What a client asks of an image: a box to fit it in, how, and the format and quality to send. */
export interface ImageTransform {
  width?: number
  height?: number
  /** `inside` (the default): within the box, never enlarged; `cover`: fills it, cropped; `contain`: fills it, letterboxed. */
  fit?: ImageFit
  /** The source's own by default (GIF and TIFF: PNG). */
  format?: ImageFormat
  /** 1–100, for JPEG, WebP and AVIF. */
  quality?: number
}

/** The formats read, as sharp names them, and what each is sent as by default. */
const SENT_AS: Record<string, ImageFormat> = { jpeg: 'jpeg', png: 'png', webp: 'webp', avif: 'avif', gif: 'png', tiff: 'png' }
const CONTENT_TYPES: Record<ImageFormat, string> = { webp: 'image/webp', avif: 'image/avif', jpeg: 'image/jpeg', png: 'image/png' }
const NOT_AN_IMAGE = 'the file is not an image this service reads: JPEG, PNG, WebP, AVIF, GIF or TIFF'

export type TransformedImage =
  | { notModified: true, etag: string, lastModified: Date }
  | { notModified: false, etag: string, lastModified: Date, contentType: string, size: number, body: NodeJS.ReadableStream | Buffer }

export interface ImagesOptions {
  files: FileService
  cache: ImageCache
  /** Largest image decoded, in pixels, read from its header before any decoding. */
  maxPixels: number
  /** Transforms run at once, and waiting, on this instance. */
  slots: ReturnType<typeof createSlots>
}

/** The transform as one string, the same however the query spelled it: part of the cache key and the ETag. */
const canonical = ({ width, height, fit = 'inside', format, quality }: ImageTransform) =>
  `w=${width ?? ''};h=${height ?? ''};fit=${fit};f=${format ?? ''};q=${quality ?? ''}`

/** A source's format as sharp reads it; AVIF is HEIF with AV1 inside (HEIC is not decoded). */
function formatOf (metadata: Metadata): string | undefined {
  if (metadata.format === 'heif') return metadata.compression === 'av1' ? 'avif' : undefined
  return metadata.format
}

/** The file's bytes, up to INPUT_LIMITS.imageSourceBytes (422 past it, its stream let go unread). */
async function readWhole (file: ObjectRead): Promise<Buffer> {
  if (file.size > INPUT_LIMITS.imageSourceBytes) {
    file.body.destroy()
    throw new ImageTooLargeError(`the image file is larger than ${INPUT_LIMITS.imageSourceBytes} bytes, the most this service transforms`)
  }
  const chunks: Buffer[] = []
  for await (const chunk of file.body) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/**
 * Images transformed on the server (sharp, over libvips): resized into a box, turned upright by
 * their EXIF orientation, stripped of their metadata, in the format asked. Each is kept in the image
 * cache, so it is made once for every instance; its ETag is its source's and the transform's.
 */
export function createImages ({ files, cache, maxPixels, slots }: ImagesOptions) {
  /** Makes the image (in a slot): reads the source, checks its header, then decodes it. */
  async function make (userId: string, path: string, transform: ImageTransform) {
    const read = await files.read(userId, path)
    if (read.notModified) throw new Error('a read without conditions answered 304')
    const bytes = await readWhole(read.file)
    let metadata: Metadata
    try {
      metadata = await sharp(bytes).metadata()
    } catch {
      throw new UnsupportedMediaTypeError(NOT_AN_IMAGE)
    }
    const format = formatOf(metadata)
    if (format === undefined || !(format in SENT_AS)) throw new UnsupportedMediaTypeError(NOT_AN_IMAGE)
    const pixels = (metadata.width ?? 0) * (metadata.pageHeight ?? metadata.height ?? 0)
    if (pixels > maxPixels) throw new ImageTooLargeError(`the image has ${pixels} pixels, more than the ${maxPixels} this service decodes (IMAGE_MAX_PIXELS)`)
    const sentAs = transform.format ?? SENT_AS[format]
    const { width, height, fit = 'inside', quality } = transform
    let pipeline = sharp(bytes, { limitInputPixels: maxPixels, sequentialRead: true }).rotate()
    if (width !== undefined || height !== undefined) {
      pipeline = pipeline.resize({ width, height, fit, withoutEnlargement: fit === 'inside', background: { r: 0, g: 0, b: 0, alpha: 0 } })
    }
    pipeline = sentAs === 'png' ? pipeline.png() : pipeline.toFormat(sentAs, { quality })
    let data: Buffer
    try {
      data = await pipeline.toBuffer()
    } catch {
      throw new UnsupportedMediaTypeError(`${NOT_AN_IMAGE}; this one could not be decoded`)
    }
    return { data, contentType: CONTENT_TYPES[sentAs], etag: read.file.etag }
  }

  return {
    /** The image at `path` transformed, from the cache or made now; 304 when the client's copy is current. */
    async transformed (userId: string, path: string, transform: ImageTransform, conditions: ReadConditions = {}): Promise<TransformedImage> {
      const source = await files.head(userId, path)
      const sourceKey = files.userPrefix(userId) + path
      const described = canonical(transform)
      const etagOf = (sourceEtag: string) => `"${createHash('sha256').update(`${sourceEtag}\n${described}`).digest('hex').slice(0, 32)}"`
      const etag = etagOf(source.etag)
      const lastModified = source.lastModified
      if (isNotModified({ key: sourceKey, size: 0, etag, lastModified }, conditions)) return { notModified: true, etag, lastModified }
      const cached = await cache.read(cache.keyOf(sourceKey, source.etag, described))
      if (cached) return { notModified: false, etag, lastModified, contentType: cached.contentType, size: cached.size, body: cached.body }
      const made = await slots.run(() => make(userId, path, transform))
      // The bytes read may be newer than the head: they name the image.
      await cache.keep(cache.keyOf(sourceKey, made.etag, described), sourceKey, made.data, made.contentType)
      return { notModified: false, etag: etagOf(made.etag), lastModified, contentType: made.contentType, size: made.data.length, body: made.data }
    }
  }
}

export type Images = ReturnType<typeof createImages>
