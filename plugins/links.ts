import fp from 'fastify-plugin'
import { sharedSecret } from '../db/settings.js'
import { createLinkSigner } from '../storage/links.js'
import { decorateStowage, stowageOf } from '../http/decorators.js'

export interface LinksPluginOptions {
  /** The signing secret of links Stowage serves; else one made at random and kept in the database. */
  secret?: string
}

/** The signer of the links Stowage serves, with a secret every instance on the database shares. */
export const linksPlugin = fp<LinksPluginOptions>(async (app, { secret }) => {
  const key = secret ? Buffer.from(secret) : await sharedSecret(stowageOf(app).stowageDb, 'link-signing')
  decorateStowage(app, 'stowageLinks', createLinkSigner(key))
}, { name: 'stowage-links', fastify: '5.x', dependencies: ['stowage-db'] })
