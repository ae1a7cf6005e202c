import { AjvCompiler } from '@fastify/ajv-compiler'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>
type BuildSerializer = NonNullable<CompilersFactory['buildSerializer']>
type Serializer = ReturnType<ReturnType<BuildSerializer>>

// Fastify compiles every route's schemas again for each instance it builds, into compilers of that
// instance. A process runs one service, but a host mounting it twice, or a test file building an
// app per case, paid about half a second of CPU each time, most of it fast-json-stringify's code
// generation. These are the same compilers, shared by every instance of the process: Ajv keeps its
// compiled validators by schema, and serializers are kept here by schema, for the same shared
// schemas and options (TypeBox's schemas are module constants, the same objects in every instance).
const buildFastJson = SerializerSelector()
const serializers = new Map<string, WeakMap<object, Serializer>>()

const buildSerializer: BuildSerializer = (externalSchemas, serializerOpts) => {
  const key = JSON.stringify([externalSchemas, serializerOpts ?? null])
  let compiled = serializers.get(key)
  if (!compiled) serializers.set(key, compiled = new WeakMap())
  const compile = buildFastJson(externalSchemas, serializerOpts)
  const known = compiled
  return (route) => {
    const schema = route.schema as object
    let serialize = known.get(schema)
    if (!serialize) known.set(schema, serialize = compile(route))
    return serialize
  }
}

export const sharedCompilers: CompilersFactory = { buildValidator: AjvCompiler(), buildSerializer }
