import type { STSClient } from '@aws-sdk/client-sts'
import { BadGatewayError, dependencyUnavailable } from '../errors.js'
import { isSafeSegment } from '../storage/paths.js'
import { DEFAULT_UPSTREAM_TIMEOUT_MS, unobserved, type FailureLog, type ObserveCall } from './http.js'
import { refusal, type OAuthClient, type ProviderTokens } from './oauth.js'

export interface RefreshOptions {
  /** The service's client of the identity provider. */
  provider: OAuthClient
  userClaim: string
  orgClaim: string
  /** Unset: tokens come without AWS credentials. */
  roleArn?: string
  durationSeconds: number
  stsEndpoint: string
  stsRegion: string
  /** The bucket and `users/{userId}/<root>/` prefix of a user. */
  locate: (userId: string, orgId: string | null) => Promise<{ bucket: string, prefix: string }>
  timeoutMs?: number
  onUpstreamFailure?: FailureLog
  observeCall?: ObserveCall
}

export interface AwsCredentials { accessKeyId: string, secretAccessKey: string, sessionToken: string, expiration: string }

/** The provider's tokens, with AWS credentials for the user's prefix when CREDENTIALS_ROLE_ARN is set. */
export interface RefreshedTokens extends ProviderTokens {
  credentials?: AwsCredentials
}

/**
 * Allows S3 only under the user's own prefix of the bucket, and only to read: its objects, and
 * listing of it. A write straight into the bucket would skip everything Stowage keeps of a write (the
 * index of names, versions, the trash, the journal, quotas) and an overwrite would destroy the old
 * bytes; writers use Stowage's S3 endpoint, which keeps all of it.
 */
export function sessionPolicy (bucket: string, prefix: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['s3:GetObject'],
        Resource: `arn:aws:s3:::${bucket}/${prefix}*`
      },
      {
        Effect: 'Allow',
        Action: 's3:ListBucket',
        Resource: `arn:aws:s3:::${bucket}`,
        Condition: { StringLike: { 's3:prefix': [`${prefix}*`] } }
      }
    ]
  })
}

function claimsOf (jwt: string): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>
  } catch {
    throw new BadGatewayError('the identity provider returned an unreadable ID token')
  }
}

export function createTokenRefresher (options: RefreshOptions) {
  const timeoutMs = options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS
  // The STS client is loaded with the first refresh: an app that never refreshes never loads it.
  let sts: Promise<{ client: STSClient, AssumeRoleWithWebIdentityCommand: typeof import('@aws-sdk/client-sts').AssumeRoleWithWebIdentityCommand }> | undefined
  const stsClient = () => (sts ??= Promise.all([import('@aws-sdk/client-sts'), import('@smithy/node-http-handler')]).then(([{ STSClient, AssumeRoleWithWebIdentityCommand }, { NodeHttpHandler }]) => ({
    client: new STSClient({
      endpoint: options.stsEndpoint,
      region: options.stsRegion,
      maxAttempts: 2,
      // Without throwOnRequestTimeout, requestTimeout only logs a warning.
      requestHandler: new NodeHttpHandler({ connectionTimeout: timeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true })
    }),
    AssumeRoleWithWebIdentityCommand
  })))
  const failed = (endpoint: string, error: unknown) => options.onUpstreamFailure?.(endpoint, error)
  const observe = options.observeCall ?? unobserved

  async function credentialsFor (idToken: string): Promise<AwsCredentials> {
    // The ID token comes straight from the provider over TLS (OIDC Core §3.1.3.7); STS verifies it.
    const claims = claimsOf(idToken)
    const userId = claims[options.userClaim]
    if (!isSafeSegment(userId)) throw new BadGatewayError('the ID token names no usable user')
    const orgId = claims[options.orgClaim]
    const { bucket, prefix } = await options.locate(userId, typeof orgId === 'string' ? orgId : null)
    const { client, AssumeRoleWithWebIdentityCommand } = await stsClient()
    let answer
    try {
      answer = await observe('sts', 'assume_role_with_web_identity', () => client.send(new AssumeRoleWithWebIdentityCommand({
        RoleArn: options.roleArn,
        RoleSessionName: `stowage-${userId}`.replace(/[^\w+=,.@-]/g, '-').slice(0, 64),
        WebIdentityToken: idToken,
        DurationSeconds: options.durationSeconds,
        Policy: sessionPolicy(bucket, prefix)
      }), { abortSignal: AbortSignal.timeout(timeoutMs) }))
    } catch (error) {
      failed('the AWS security token service', error)
      // An answer with an error status is STS refusing; anything else is STS out of reach.
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode) {
        throw new BadGatewayError('the AWS security token service refused or failed')
      }
      throw dependencyUnavailable('the AWS security token service', error)
    }
    const credentials = answer.Credentials
    if (!credentials?.AccessKeyId || !credentials.SecretAccessKey || !credentials.SessionToken || !credentials.Expiration) {
      throw new BadGatewayError('the AWS security token service returned no credentials')
    }
    return {
      accessKeyId: credentials.AccessKeyId,
      secretAccessKey: credentials.SecretAccessKey,
      sessionToken: credentials.SessionToken,
      expiration: credentials.Expiration.toISOString()
    }
  }

  /** What every grant answers: the provider's tokens, and credentials when the deployment hands them out. */
  async function withCredentials (tokens: ProviderTokens): Promise<RefreshedTokens> {
    return options.roleArn ? { ...tokens, credentials: await credentialsFor(tokens.idToken) } : tokens
  }

  return {
    withCredentials,

    async refresh (refreshToken: string): Promise<RefreshedTokens> {
      const tokens = await options.provider.refresh(refreshToken).catch((error: unknown) => { throw refusal(error) })
      // A provider that keeps the same refresh token says nothing new.
      return withCredentials(tokens.refreshToken === refreshToken ? { ...tokens, refreshToken: undefined } : tokens)
    },

    close () {
      sts?.then(({ client }) => client.destroy(), () => {})
    }
  }
}

export type TokenRefresher = ReturnType<typeof createTokenRefresher>
