import { Type } from '@sinclair/typebox'

export const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  error: Type.Optional(Type.String({ description: 'Present when a check fails' })),
  checks: Type.Object({ database: Type.Union([Type.Literal('ok'), Type.Literal('failing')]) })
}, { $id: 'Health' })

export const healthSchemas = [Health]
