import { createHash } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import type { OrganizationRepository } from '../db/organizations.js'
import { dependencyUnavailable } from '../errors.js'
import { CALLER_IDENTITY_BODY, CALLER_IDENTITY_CONTENT_TYPE, SERVER_ID_HEADER } from './aws-signing.js'
import { createMemory, createSemaphore } from '../limits.js'
import { DEFAULT_UPSTREAM_TIMEOUT_MS, fetchWithTimeout, unobserved, type FailureLog, type ObserveCall } from './http.js'

export const MAX_CLOCK_SKEW_MS = 15 * 60_000
const STS = 'the AWS security token service'

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=[A-Za-z0-9]{16,128}\/\d{8}\/[a-z0-9-]{1,32}\/sts\/aws4_request, ?SignedHeaders=([a-z0-9;-]{1,200}), ?Signature=[0-9a-f]{64}$/
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/
// Only these may be signed: Stowage rebuilds the request and copies nothing else.
const FORWARDABLE = new Set(['content-length', 'content-type', 'host', 'x-amz-date', 'x-amz-security-token', SERVER_ID_HEADER])
const REQUIRED_SIGNED = ['host', 'x-amz-date', SERVER_ID_HEADER]
const ACCOUNT = /^\d{12}$/
const ARN = /^arn:aws[a-z-]*:(?:iam|sts)::(\d{12}):[\x21-\x7e]{1,1900}$/

export interface AwsCallerOptions {
  stsEndpoint: string
  serverId: string
  organizations: OrganizationRepository
  timeoutMs?: number
  onUpstreamFailure?: FailureLog
  observeCall?: ObserveCall
  cacheSize?: number
  /** STS calls in flight at once, whatever the number of callers. */
  stsConcurrency?: number
  now?: () => number
}

export interface AwsCaller {
  userId: string
  orgId: string
  arn: string
  account: string
}

/** A refusal of this method: the chain turns it into its one 401. */
export class AwsSignatureRefused extends Error {}

function header (request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name]
  return typeof value === 'string' ? value : undefined
}

function parseAmzDate (value: string): number | undefined {
  const m = AMZ_DATE.exec(value)
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : undefined
}

/** A stable UUID (version 5 layout) derived from the caller's ARN. */
export function userIdFromArn (arn: string): string {
  const bytes = createHash('sha256').update(`stowage:aws:${arn}`).digest().subarray(0, 16)
  bytes[6] = (bytes[6] & 0x0f) | 0x50
  bytes[8] = (bytes[8] & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

function parseCallerIdentity (body: unknown): { account: string, arn: string } {
  const result = (body as { GetCallerIdentityResponse?: { GetCallerIdentityResult?: { Account?: unknown, Arn?: unknown } } })
    ?.GetCallerIdentityResponse?.GetCallerIdentityResult
  const account = result?.Account
  const arn = result?.Arn
  if (typeof account !== 'string' || !ACCOUNT.test(account) || typeof arn !== 'string') throw new AwsSignatureRefused('not a GetCallerIdentity answer')
  if (ARN.exec(arn)?.[1] !== account) throw new AwsSignatureRefused('the ARN does not belong to the account')
  return { account, arn }
}

export function createAwsCallerVerifier ({
  stsEndpoint, serverId, organizations, timeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS, onUpstreamFailure, cacheSize = 10_000,
  stsConcurrency = 8, observeCall = unobserved, now = Date.now
}: AwsCallerOptions) {
  const stsUrl = new URL('/', stsEndpoint).toString()
  // A signature's answer stands until its X-Amz-Date + 15 min, when STS would refuse it anyway: a
  // burst of requests, or a refused signature sent again, costs one STS call.
  const verified = createMemory<AwsCaller>(cacheSize, now)
  const refused = createMemory<string>(cacheSize, now)
  const boundedSts = createSemaphore(stsConcurrency)

  function stsDown (error: unknown) {
    onUpstreamFailure?.(STS, error)
    return dependencyUnavailable(STS, error)
  }

  async function askSts (headers: Record<string, string>) {
    let response: Response
    try {
      response = await observeCall('sts', 'get_caller_identity', () => fetchWithTimeout(stsUrl, { method: 'POST', headers, body: CALLER_IDENTITY_BODY }, timeoutMs))
    } catch (error) {
      throw stsDown(error)
    }
    if (response.status >= 500) throw stsDown(new Error(`STS answered ${response.status}`))
    if (!response.ok) throw new AwsSignatureRefused(`STS refused the signature (${response.status})`)
    let body: unknown
    try {
      body = await response.json()
    } catch {
      throw new AwsSignatureRefused('STS answered something other than JSON')
    }
    return parseCallerIdentity(body)
  }

  return {
    /** True when the request carries this method's trigger; checks nothing else and does no I/O. */
    applies (request: FastifyRequest): boolean {
      return header(request, 'authorization')?.startsWith('AWS4-HMAC-SHA256 ') === true
    },

    /** `admitCostlyCheck` may throw to refuse an STS call (the caller's address keeps failing). */
    async verify (request: FastifyRequest, { admitCostlyCheck }: { admitCostlyCheck?: () => Promise<void> } = {}): Promise<AwsCaller> {
      const authorization = header(request, 'authorization') ?? ''
      const amzDate = header(request, 'x-amz-date') ?? ''
      const token = header(request, 'x-amz-security-token')
      const signedHeaders = AUTHORIZATION.exec(authorization)?.[1]?.split(';')
      if (!signedHeaders || header(request, SERVER_ID_HEADER) !== serverId) throw new AwsSignatureRefused('bad signature headers')
      if (!REQUIRED_SIGNED.every((name) => signedHeaders.includes(name)) || !signedHeaders.every((name) => FORWARDABLE.has(name))) {
        throw new AwsSignatureRefused('the signed headers are not those Stowage forwards')
      }
      if (token !== undefined && !signedHeaders.includes('x-amz-security-token')) throw new AwsSignatureRefused('unsigned session token')
      const signedAt = parseAmzDate(amzDate)
      if (signedAt === undefined || Math.abs(now() - signedAt) > MAX_CLOCK_SKEW_MS) throw new AwsSignatureRefused('X-Amz-Date is too far off')

      const cacheKey = createHash('sha256').update([authorization, amzDate, token ?? ''].join('\n')).digest('base64')
      const cached = verified.get(cacheKey)
      if (cached) return cached
      const refusal = refused.get(cacheKey)
      if (refusal) throw new AwsSignatureRefused(refusal)

      await admitCostlyCheck?.()
      const until = signedAt + MAX_CLOCK_SKEW_MS
      const resolve = async () => {
        const { account, arn } = await boundedSts(() => askSts({
          'content-type': CALLER_IDENTITY_CONTENT_TYPE,
          accept: 'application/json',
          authorization,
          'x-amz-date': amzDate,
          [SERVER_ID_HEADER]: serverId,
          ...(token === undefined ? {} : { 'x-amz-security-token': token })
        }))
        const orgs = (await organizations.findByAwsAccount(account)).filter((org) => org.auth_mode === 'aws-sso')
        if (orgs.length !== 1) throw new AwsSignatureRefused(orgs.length ? 'several aws-sso organizations share the account' : 'no aws-sso organization for the account')
        return { userId: userIdFromArn(arn), orgId: orgs[0].id, arn, account }
      }
      const caller = await resolve().catch((error) => {
        if (error instanceof AwsSignatureRefused) refused.set(cacheKey, error.message, until)
        throw error
      })
      verified.set(cacheKey, caller, until)
      return caller
    }
  }
}

export type AwsCallerVerifier = ReturnType<typeof createAwsCallerVerifier>
