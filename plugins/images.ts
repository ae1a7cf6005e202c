import fp from 'fastify-plugin'
import { decorateStowage, stowageOf } from '../http/decorators.js'
import { createSlots } from '../limits.js'
import { createImages } from '../storage/images.js'
import { DEFAULT_IMAGE_CONCURRENCY, DEFAULT_IMAGE_MAX_PIXELS } from '../defaults.js'

export interface ImagesPluginOptions {
  /** The largest image decoded, in pixels (IMAGE_MAX_PIXELS): 100 megapixels by default. */
  maxPixels?: number
  /** Transforms at once on this instance (IMAGE_CONCURRENCY); four times as many wait, and past
   *  that a request is 503 with Retry-After. */
  concurrency?: number
}

/** Images transformed on the server, for the images route and download links that carry a transform. */
export const imagesPlugin = fp<ImagesPluginOptions>(async (app, { maxPixels = DEFAULT_IMAGE_MAX_PIXELS, concurrency = DEFAULT_IMAGE_CONCURRENCY }) => {
  const { stowageFiles: files, stowageImageCache: cache } = stowageOf(app)
  const slots = createSlots(concurrency, concurrency * 4, 'image transforms')
  decorateStowage(app, 'stowageImages', createImages({ files, cache, maxPixels, slots }))
}, { name: 'stowage-images', fastify: '5.x', dependencies: ['stowage-storage'] })
