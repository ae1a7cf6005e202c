import fp from 'fastify-plugin'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { STATUS_CODES, type IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { resourceMetadataOf } from './identity.js'
import { isFileMediaType } from '../schemas/files.js'
import { isRetriedSoon, RangeNotSatisfiableError, RETRY_AFTER_SECONDS, TooManyAttemptsError } from '../errors.js'

/** The one body of every 401 (whatever method failed): what the request lacks, not why it failed. */
export const UNAUTHORIZED = 'Unauthorized: send Authorization: Bearer with an API key or a token of the identity provider'

function sendUnauthorized (request: FastifyRequest, reply: FastifyReply) {
  // RFC 9728 §5.1: where a client that has no token learns how to get one.
  const metadata = resourceMetadataOf(request)
  const challenge = metadata ? `Bearer resource_metadata="${metadata.metadataUrl}"` : 'Bearer'
  return reply.code(401).header('www-authenticate', challenge).send({ error: UNAUTHORIZED })
}

const LOCATIONS: Record<string, string> = { body: 'in the body', querystring: 'in the query', params: 'in the path', headers: 'in the headers' }
const TYPES: Record<string, string> = { string: 'a string', number: 'a number', integer: 'a whole number', boolean: 'true or false', object: 'an object', array: 'a list', null: 'null' }

interface SchemaError { keyword: string, instancePath: string, params: Record<string, unknown>, message?: string, parentSchema?: { description?: string } }

/**
 * Fastify's `schemaErrorFormatter`: a refused input said in words (which field, where, and what it
 * takes), never a schema path and pattern such as `params/id must match pattern "^[0-9a-f]{32}$"`.
 */
export function schemaErrorFormatter (errors: SchemaError[], dataVar: string): Error {
  const [error] = errors
  const where = LOCATIONS[dataVar] ?? `in ${dataVar}`
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.')
  const field = error.keyword === 'required' ? [path, String(error.params.missingProperty)].filter(Boolean).join('.') : path
  const named = field ? `${field} (${where})` : `the ${dataVar === 'querystring' ? 'query' : dataVar}`
  const takes = error.parentSchema?.description ? `: ${error.parentSchema.description}` : ''
  const { params } = error
  const said: Record<string, () => string> = {
    required: () => `${named} is required`,
    type: () => `${named} must be ${TYPES[String(params.type)] ?? params.type}`,
    additionalProperties: () => `${String(params.additionalProperty)} (${where}) is not a field this takes`,
    minimum: () => `${named} must be at least ${params.limit}`,
    maximum: () => `${named} must be at most ${params.limit}`,
    exclusiveMinimum: () => `${named} must be more than ${params.limit}`,
    minLength: () => `${named} must be at least ${params.limit} characters long`,
    maxLength: () => `${named} must be at most ${params.limit} characters long`,
    minItems: () => `${named} must hold at least ${params.limit} items`,
    maxItems: () => `${named} must hold at most ${params.limit} items`,
    enum: () => `${named} must be one of ${(params.allowedValues as unknown[]).join(', ')}`,
    const: () => `${named} must be ${String(params.allowedValue)}`,
    format: () => `${named} must be ${params.format === 'date-time' ? 'a date and time such as 2026-12-31T23:59:59Z' : `a ${params.format}`}`,
    pattern: () => `${named} is not in the form it takes${takes}`
  }
  return new Error(said[error.keyword]?.() ?? `${named} is not valid${takes}`)
}

/** Fastify's own refusals, in words: a Content-Type no parser takes is either not a media type at
 *  all, or a media type sent to a route that takes JSON. */
function clearerOf (error: FastifyError, request: FastifyRequest): string | undefined {
  if (error.code !== 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return undefined
  const given = request.headers['content-type']
  return typeof given === 'string' && isFileMediaType(given)
    ? 'this route takes a JSON body (Content-Type: application/json): a file\'s own type goes in its contentType field, or send the file itself to /api/raw/{path}'
    : 'Content-Type must be a media type such as text/markdown'
}

/** One place maps every thrown error to `{error}` and a status; 5xx internals stay in the log. */
export function errorHandler (error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode ?? 500
  const message = clearerOf(error, request) ?? error.message
  // Nobody reads this answer; an operator (and a test) learns here that the request is over.
  if (request.raw.socket?.destroyed) request.log.info({ statusCode: status, reason: message }, 'request ended after the client left')
  // A refusal before the body was read whole (413, 412, 401, 507, 503): the rest is not worth reading.
  if (!request.raw.complete) {
    reply.removeHeader('connection')
    lingerBeforeClose(request.raw)
  }
  if (status === 401) return sendUnauthorized(request, reply)
  // 507 is the caller's quota, said as it is.
  if (status >= 500 && status !== 502 && status !== 503 && status !== 507) {
    request.log.error({ err: error }, 'request failed')
    return reply.code(500).send({ error: 'Internal Server Error' })
  }
  if (status === 502 || status === 503) request.log.warn({ err: error }, 'upstream failed')
  if (isRetriedSoon(error)) reply.header('retry-after', String(RETRY_AFTER_SECONDS))
  if (error instanceof TooManyAttemptsError) reply.header('retry-after', String(error.retryAfterSeconds))
  if (error instanceof RangeNotSatisfiableError) reply.header('content-range', `bytes */${error.size}`)
  const { publicCode } = error as { publicCode?: string }
  return reply.code(status).send(publicCode ? { error: message, code: publicCode } : { error: message })
}

const LINGER_MS = 2000

/**
 * The rest of a refused upload is not worth reading, but closing at once (Fastify's answer to a
 * failed body parser), with the client still sending, resets the connection, and a reset can
 * destroy the answer before the client has read it: the CLI saw EPIPE instead of its 413. So, like
 * nginx's lingering close, the rest is read and dropped for LINGER_MS after the answer, and a
 * client still sending then is cut off. One that stops in time keeps its connection.
 */
export function lingerBeforeClose (request: IncomingMessage) {
  // A client that sent `Connection: close` (node:http without an agent, curl -H) has its answer
  // ended by Node with destroySoon(): the socket is destroyed as soon as the answer is written,
  // with the rest of the body unread, and the kernel resets the connection under the client's
  // writes (EPIPE before it reads its 413). Half-closed instead, it reads on until the linger ends.
  const socket = request.socket
  if (socket) socket.destroySoon = () => { socket.end() }
  request.resume()
  // Destroying a request that has not ended destroys its connection.
  const timer = setTimeout(() => request.destroy(), LINGER_MS).unref()
  request.once('end', () => clearTimeout(timer))
}

const METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS']

/** 405 with `Allow` when the path has routes for other methods; else 404. */
export function notFoundHandler (request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split('?')[0]
  const allowed = METHODS.filter((method) => method !== request.method && request.server.findRoute({ method: method as 'GET', url: path }) !== null)
  if (allowed.length > 0) {
    return reply.code(405).header('allow', allowed.join(', ')).send({ error: `${request.method} is not served at ${path}: it takes ${allowed.join(', ')}` })
  }
  return reply.code(404).send({ error: `Route ${request.method} ${path} not found` })
}

/** Both handlers, for an app (or a scope of one) composed of the concern plugins by hand. */
export const errorsPlugin = fp(async (app) => {
  app.setErrorHandler(errorHandler)
  app.setNotFoundHandler(notFoundHandler)
}, { name: 'stowage-errors', fastify: '5.x' })

/** Fastify's `frameworkErrors`: errors raised before routing (an undecodable URL) get the `{error}` shape. */
export function frameworkErrors (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  reply.code(error.statusCode ?? 400).send({ error: error.message })
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'the request took too long to arrive'],
  HPE_HEADER_OVERFLOW: [431, 'the request headers are too large'],
  // A method Node's parser does not know at all (WebDAV clients probe with some): not served here.
  HPE_INVALID_METHOD: [501, 'the request\'s method is not one this server serves']
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses (header overflow, a bad
 * Content-Length, a request that timed out) gets the `{error}` shape too.
 */
export function clientErrorHandler (error: NodeJS.ErrnoException, socket: Duplex) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'the request is not valid HTTP']
  const body = JSON.stringify({ error: message })
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy(error)
}
