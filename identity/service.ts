import type { Algorithm } from 'fast-jwt'
import type { OrganizationRepository } from '../db/organizations.js'
import { DEFAULT_OIDC_SCOPE, DEFAULT_REGION } from '../defaults.js'
import { createAwsCallerVerifier, type AwsCallerVerifier } from './aws-caller.js'
import { createDiscovery } from './discovery.js'
import { createFailureLog, type Logger, type ObserveCall } from './http.js'
import { createJwtVerifier, type JwtVerifier } from './jwt.js'
import { createOAuthClient } from './oauth.js'
import { createTokenRefresher, type RefreshOptions, type TokenRefresher } from './refresh.js'
import { createSignIn, type SignIn } from './signin.js'

export interface IdentityOptions {
  /** Unset turns the JWT method off. */
  issuer?: string
  audience?: string
  /** Else discovered from the issuer. */
  jwksUrl?: string
  algorithms?: Algorithm[]
  userClaim?: string
  orgClaim?: string
  upstreamTimeoutMs?: number
  jwksRefetchIntervalMs?: number
  /** Else discovered from the issuer; with neither, refresh is off. */
  tokenUrl?: string
  clientId?: string
  clientSecret?: string
  /** What clients ask the provider for when they sign in. */
  scope?: string
  /** PUBLIC_URL: the resource clients sign in for, and the console's redirect URIs. */
  publicUrl?: string
  stsEndpoint?: string
  stsRegion?: string
  /** Unset: tokens come without AWS credentials. */
  credentialsRoleArn?: string
  credentialsTtlSeconds?: number
  /** Unset turns the AWS-signed caller identity method off. */
  awsAuthServerId?: string
  /** STS calls in flight at once for the AWS method. */
  stsConcurrency?: number
  /** Where failures of the provider and of STS are reported, once a minute per endpoint at most. */
  log?: Logger
  /** Wraps every call to the provider and to STS, for metrics and traces. */
  observeCall?: ObserveCall
}

export interface IdentityService {
  /** Undefined when no issuer is configured. */
  jwt?: JwtVerifier
  refresher: TokenRefresher
  signIn: SignIn
  /** RFC 9728: where clients sign in for this service; undefined when no issuer is configured. */
  protectedResource?: { authorizationServer: string, clientId?: string, scopes: string[], publicUrl?: string }
  /** Undefined when no AWS_AUTH_SERVER_ID is configured. */
  awsCaller?: AwsCallerVerifier
}

export interface IdentityDependencies {
  organizations: OrganizationRepository
  locate: RefreshOptions['locate']
}

export function createIdentityService (options: IdentityOptions, { organizations, locate }: IdentityDependencies): IdentityService {
  const { issuer } = options
  const stsEndpoint = options.stsEndpoint ?? 'https://sts.amazonaws.com'
  const onUpstreamFailure = createFailureLog(options.log)
  const { observeCall } = options
  const discover = issuer ? createDiscovery(issuer, options.upstreamTimeoutMs, observeCall) : undefined
  const discovered = async (field: 'jwks_uri') => {
    const value = discover ? (await discover())[field] : undefined
    if (typeof value !== 'string') throw new Error(`the identity provider publishes no ${field}`)
    return value
  }
  const provider = createOAuthClient({
    issuer,
    tokenUrl: options.tokenUrl,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    timeoutMs: options.upstreamTimeoutMs,
    onUpstreamFailure,
    observeCall
  })
  const refresher = createTokenRefresher({
    provider,
    userClaim: options.userClaim ?? 'sub',
    orgClaim: options.orgClaim ?? 'org_id',
    roleArn: options.credentialsRoleArn,
    durationSeconds: options.credentialsTtlSeconds ?? 3600,
    stsEndpoint,
    stsRegion: options.stsRegion ?? DEFAULT_REGION,
    locate,
    timeoutMs: options.upstreamTimeoutMs,
    onUpstreamFailure,
    observeCall
  })
  const awsCaller = options.awsAuthServerId
    ? createAwsCallerVerifier({ stsEndpoint, serverId: options.awsAuthServerId, organizations, timeoutMs: options.upstreamTimeoutMs, onUpstreamFailure, observeCall, stsConcurrency: options.stsConcurrency })
    : undefined
  const scope = options.scope ?? DEFAULT_OIDC_SCOPE
  const signIn = createSignIn({ provider, refresher, publicUrl: options.publicUrl, scope })
  if (!issuer) return { refresher, signIn, awsCaller }
  const jwksUrl = async () => options.jwksUrl ?? discovered('jwks_uri')
  return {
    refresher,
    signIn,
    protectedResource: { authorizationServer: issuer, clientId: options.clientId, scopes: scope.split(' '), publicUrl: options.publicUrl },
    awsCaller,
    jwt: createJwtVerifier({
      issuer,
      audience: options.audience,
      clientId: options.clientId,
      jwksUrl,
      algorithms: options.algorithms ?? ['RS256'],
      userClaim: options.userClaim ?? 'sub',
      orgClaim: options.orgClaim ?? 'org_id',
      fetchTimeoutMs: options.upstreamTimeoutMs,
      refetchIntervalMs: options.jwksRefetchIntervalMs,
      onUpstreamFailure,
      observeCall
    })
  }
}
