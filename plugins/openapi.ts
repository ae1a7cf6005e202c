import fastifySwagger from '@fastify/swagger'
import fp from 'fastify-plugin'
import { SECURITY_SCHEMES } from '../schemas/openapi.js'

export interface OpenApiPluginOptions {
  version?: string
  /** Where clients reach the service, for `servers`; the document's own origin when absent. */
  publicUrl?: string
}

type Operation = { requestBody?: { required?: boolean }, 'x-optional-body'?: boolean }
type Document = { paths?: Record<string, Record<string, Operation>> }

/** @fastify/swagger marks every body required; a route that takes none says so with `x-optional-body`. */
function markOptionalBodies (document: Document) {
  for (const methods of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(methods)) {
      if (!operation['x-optional-body']) continue
      delete operation['x-optional-body']
      if (operation.requestBody) operation.requestBody.required = false
    }
  }
  return document
}

/** Must be registered before the routes it documents. */
export const openapiPlugin = fp<OpenApiPluginOptions>(async (app, { version = '0.3.0', publicUrl }) => {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Stowage',
        version,
        description: 'Per-user file store over S3-compatible storage. Every /api route but refresh needs one of the security schemes.',
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' }
      },
      servers: [{ url: publicUrl ?? '/', description: publicUrl ? 'This Stowage service' : 'Where this document is served' }],
      tags: [
        { name: 'files', description: 'Your files, under users/{userId}/<root>/' },
        { name: 'trash', description: 'Deleted files, kept TRASH_RETENTION_DAYS' },
        { name: 'versions', description: 'Replaced files, kept VERSION_RETENTION_DAYS and thinned' },
        { name: 'changes', description: 'The change journal, kept CHANGES_RETENTION_DAYS, and webhooks' },
        { name: 's3', description: 'Credentials for the S3 endpoint (S3_API_PORT)' },
        { name: 'auth', description: 'Token refresh and storage location' },
        { name: 'keys', description: 'API keys' },
        { name: 'people', description: 'Who you are, and the people of your organization you can share with' },
        { name: 'shares', description: 'Files and folders you share with people of your organization, as viewers or editors' },
        { name: 'health', description: 'Liveness and readiness' }
      ],
      components: { securitySchemes: { ...SECURITY_SCHEMES } }
    },
    transformObject: (documentObject) => markOptionalBodies((documentObject as { openapiObject: Document }).openapiObject) as never,
    // Components are named by their $id (StowageFileList…), not def-0, def-1…
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => (json.$id as string) ?? `def-${index}` }
  })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}, { name: 'stowage-openapi', fastify: '5.x' })
