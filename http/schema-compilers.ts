import { AjvCompiler } from '@fastify/ajv-compiler'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>
type BuildValidator = NonNullable<CompilersFactory['buildValidator']>
type BuildSerializer = NonNullable<CompilersFactory['buildSerializer']>

// Fastify compiles every route's schemas again for each instance it builds, into compilers of that
// instance. A process runs one service, but a host mounting it twice, or a test file building an
// app per case, paid about half a second of CPU each time, most of it fast-json-stringify's code
// generation and Ajv's. These are the same compilers, shared by every instance of the process,
// keeping what they compiled by the schema's text: many routes build their schemas when they are
// registered (`answer(…, Type.Ref(Usage))`), so the objects are new in each instance while the text
// is the same. What a validator or serializer does depends on nothing else (its route's method and
// URL only name it in errors at compile time), given the same shared schemas and options.
type AnyBuild = (externalSchemas: never, options?: never) => (route: never) => unknown
type Compile = (route: { schema: unknown }) => unknown

function compiledByText<Build extends AnyBuild> (build: Build): Build {
  const buildCompile = build as unknown as (externalSchemas: unknown, options?: unknown) => Compile
  const byOptions = new Map<string, Map<string, unknown>>()
  const shared = (externalSchemas: unknown, options?: unknown) => {
    const key = JSON.stringify([externalSchemas, options ?? null])
    const compiled = byOptions.get(key) ?? new Map<string, unknown>()
    byOptions.set(key, compiled)
    const compile = buildCompile(externalSchemas, options)
    return (route: { schema: unknown }) => {
      const text = JSON.stringify(route.schema)
      let done = compiled.get(text)
      if (done === undefined) compiled.set(text, done = compile(route))
      return done
    }
  }
  return shared as unknown as Build
}

export const sharedCompilers: CompilersFactory = {
  buildValidator: compiledByText<BuildValidator>(AjvCompiler()),
  buildSerializer: compiledByText<BuildSerializer>(SerializerSelector())
}
