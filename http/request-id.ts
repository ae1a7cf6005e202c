import { compile } from '@fastify/proxy-addr'
import type { IncomingMessage } from 'node:http'
import { randomUUID } from 'node:crypto'

// What a proxy's id may look like: nginx's $request_id is 32 hex digits; nothing that could forge a
// log line (spaces, quotes, controls) and nothing long.
const SAFE_ID = /^[A-Za-z0-9._:@=+/-]{1,128}$/

/**
 * Fastify's `genReqId`: the `X-Request-Id` of a trusted proxy (TRUST_PROXY), so that one id follows a
 * request from the proxy's log into Stowage's; anyone else's is ignored, and a new UUID is made.
 */
export function requestIdGenerator (trustedProxies: string[] | undefined) {
  const trusted = trustedProxies ? compile(trustedProxies) : () => false
  return (request: IncomingMessage): string => {
    const given = request.headers['x-request-id']
    if (typeof given === 'string' && SAFE_ID.test(given) && trusted(request.socket.remoteAddress ?? '', 0)) return given
    return randomUUID()
  }
}
