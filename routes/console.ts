import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { isStowageError, ServiceUnavailableError } from '../errors.js'
import { stowageOf } from '../http/decorators.js'
import { PkceValue } from '../schemas/auth.js'
import { baseUrlOf } from './base-url.js'

export interface ConsoleRoutesOptions {
  /** PUBLIC_URL: its path (a proxy's prefix) comes before the console's. */
  publicUrl?: string
  /** Origins of the store's signed links, which audio and video previews stream from. */
  mediaSources?: string[]
}

// The page runs no script or style but its own built files: not 'self', under which a script
// injected from a user's /links/ file would run and read the session. It talks to this origin only,
// is framed nowhere, frames only the PDFs it read itself (blob:), and plays media from its own signed links.
const contentSecurityPolicy = (assets: string, mediaSources: string[]) => [
  "default-src 'none'", `script-src ${assets}`, `style-src ${assets}`, "img-src 'self' blob: data:", ["media-src 'self' blob:", ...mediaSources].join(' '),
  "frame-src blob:", "connect-src 'self'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'"
].join('; ')
// The built files themselves are scripts, styles and an icon: as pages, they may do nothing.
const ASSET_POLICY = "default-src 'none'; frame-ancestors 'none'"

/** Where the page sends a person to sign in: it keeps `state` and the verifier; the service builds the provider's request. */
const SignInQuery = Type.Object({
  redirectUri: Type.String({ maxLength: 2048 }),
  codeChallenge: PkceValue('The PKCE (S256) challenge of the verifier the page keeps'),
  state: PkceValue('What the page checks on its return')
})

/** The built console (`npm run build` writes it to dist/console), from the sources or from dist. */
function builtConsole (): string | undefined {
  return ['../dist/console/', '../console/']
    .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
    .find((folder) => existsSync(`${folder}assets`))
}

/**
 * The web console at /console/: its hashed assets cached for a year, and for any other path under
 * it (a deep link, /console/files/<prefix>) its page, told where it is mounted by a <base>.
 */
export const consoleRoutes: FastifyPluginAsync<ConsoleRoutesOptions> = async (app, { publicUrl, mediaSources = [] }) => {
  const folder = builtConsole()
  const mountedAt = `${publicUrl ? new URL(publicUrl).pathname.replace(/\/$/, '') : ''}${app.prefix}/console/`
  // A source with a path needs an origin: PUBLIC_URL's, else the one the page was asked on.
  const policyOf = (request: FastifyRequest) => contentSecurityPolicy(`${baseUrlOf(request, publicUrl)}${app.prefix}/console/assets/`, mediaSources)
  const guarded = (reply: FastifyReply, policy: string) => reply
    .header('content-security-policy', policy)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
  // The page is told where it is mounted, whether the service can sign people in through an
  // identity provider, and whether it makes S3 credentials.
  const signInWith = stowageOf(app).stowageIdentity.protectedResource?.clientId ? 'identity-provider api-key' : 'api-key'
  const s3 = stowageOf(app).stowageS3Credentials ? 'on' : 'off'
  const page = folder && readFileSync(`${folder}index.html`, 'utf8')
    .replace('<head>', `<head>\n    <base href="${mountedAt}">\n    <meta name="stowage-sign-in" content="${signInWith}">\n    <meta name="stowage-s3" content="${s3}">`)
  const hidden = { schema: { hide: true } }

  if (folder) {
    await app.register(fastifyStatic, {
      root: `${folder}assets`,
      prefix: '/console/assets/',
      decorateReply: false,
      immutable: true,
      maxAge: '365d',
      index: false,
      setHeaders: (response) => guarded(response, ASSET_POLICY)
    })
  }
  app.get('/console', hidden, async (_request, reply) => reply.redirect(mountedAt))

  // Sign-in through the identity provider: the page keeps `state` and the PKCE verifier, and sends
  // the person here to be passed on. What goes wrong comes back to the page as an OAuth error would.
  app.get<{ Querystring: Static<typeof SignInQuery> }>('/console/sign-in', { schema: { hide: true, querystring: SignInQuery } }, async (request, reply) => {
    const { signIn } = stowageOf(app).stowageIdentity
    try {
      return reply.redirect((await signIn.authorizationUrl(request.query)).href)
    } catch (error) {
      request.log.warn({ err: error }, 'console sign-in could not start')
      const description = isStowageError(error) ? (error as Error).message : 'the identity provider could not be reached'
      return reply.redirect(`${mountedAt}callback?${new URLSearchParams({ error: 'server_error', error_description: description })}`)
    }
  })
  const answerPage = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!page) throw new ServiceUnavailableError('the console is not built: run npm run build')
    return guarded(reply, policyOf(request)).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(page)
  }
  app.get('/console/', hidden, answerPage)
  app.get('/console/*', hidden, answerPage)
}
