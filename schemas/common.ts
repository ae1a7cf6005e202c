import { Type, type Static } from '@sinclair/typebox'

export const ErrorSchema = Type.Object({
  error: Type.String({ description: 'What went wrong, for a person to read' }),
  code: Type.Optional(Type.String())
}, { $id: 'Error', description: 'Every error answer has this shape' })
export type ErrorBody = Static<typeof ErrorSchema>

export const ErrorRef = Type.Ref(ErrorSchema)

/** Response entries for error statuses, all pointing at the shared Error schema. */
export function errorResponses (...statuses: number[]) {
  return Object.fromEntries(statuses.map((status) => [status, ErrorRef]))
}

/** Every /api route accepts any method of the authentication chain. */
export const CALLER_SECURITY: Array<Record<string, string[]>> = [{ bearerJwt: [] }, { apiKey: [] }, { awsSigV4: [] }]

export const sharedSchemas = [ErrorSchema]
