import { Type } from '@sinclair/typebox'

export const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  checks: Type.Object({ database: Type.Union([Type.Literal('ok'), Type.Literal('failing')]) })
}, { $id: 'Health' })

export const healthSchemas = [Health]
