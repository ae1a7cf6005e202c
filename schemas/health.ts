import { Type, type Static } from '@sinclair/typebox'

const Check = Type.Union([Type.Literal('ok'), Type.Literal('failing')])

export const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  error: Type.Optional(Type.String({ description: 'Present when a check fails' })),
  checks: Type.Object({
    database: Type.Optional(Check),
    storage: Type.Optional(Check)
  }, { description: 'Each readiness check; empty for the liveness probe' })
}, { $id: 'StowageHealth' })
export type HealthReport = Static<typeof Health>

export const HealthQuery = Type.Object({
  probe: Type.Optional(Type.Union([Type.Literal('ready'), Type.Literal('live')], {
    description: 'ready (default): the database and the file store; live: the process only'
  }))
})

export const healthSchemas = [Health]
