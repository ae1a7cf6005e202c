import type { FastifyRequest } from 'fastify'

/** Where clients reach this service: PUBLIC_URL when set (a proxy's address, with its path), else the origin the request came to. */
export const baseUrlOf = (request: FastifyRequest, publicUrl?: string) => publicUrl?.replace(/\/$/, '') ?? `${request.protocol}://${request.host}`
