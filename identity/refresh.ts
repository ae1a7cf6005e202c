import type { STSClient } from '@aws-sdk/client-sts'
import { BadGatewayError, dependencyUnavailable, ServiceUnavailableError, UnauthorizedError } from '../errors.js'
import { isSafeSegment } from '../storage/paths.js'
import { DEFAULT_UPSTREAM_TIMEOUT_MS, fetchWithTimeout, unobserved, type FailureLog, type ObserveCall } from './http.js'

const TOKEN_ENDPOINT = 'the token endpoint of the identity provider'

export interface RefreshOptions {
  /** Resolves the token endpoint: OIDC_TOKEN_URL, else discovery. Undefined: refresh is off. */
  tokenEndpoint?: () => Promise<string>
  clientId?: string
  clientSecret?: string
  userClaim: string
  roleArn?: string
  durationSeconds: number
  stsEndpoint: string
  stsRegion: string
  /** The bucket and `users/{userId}/<root>/` prefix of a user. */
  locate: (userId: string) => { bucket: string, prefix: string }
  timeoutMs?: number
  onUpstreamFailure?: FailureLog
  observeCall?: ObserveCall
}

export interface RefreshedTokens {
  accessToken: string
  idToken: string
  refreshToken?: string
  credentials: { accessKeyId: string, secretAccessKey: string, sessionToken: string, expiration: string }
}

/** Allows S3 only under the user's own prefix of the bucket: objects there, and listing of it. */
export function sessionPolicy (bucket: string, prefix: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
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

  async function redeem (refreshToken: string) {
    const tokenEndpoint = options.tokenEndpoint!
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken })
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }
    if (options.clientId && options.clientSecret) {
      headers.authorization = 'Basic ' + Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')
    } else if (options.clientId) {
      form.set('client_id', options.clientId)
    }
    let response: Response
    try {
      const url = await tokenEndpoint()
      response = await observe('idp', 'token', () => fetchWithTimeout(url, { method: 'POST', headers, body: form }, timeoutMs))
    } catch (error) {
      failed(TOKEN_ENDPOINT, error)
      throw dependencyUnavailable('the identity provider', error)
    }
    let body: Record<string, unknown>
    try {
      body = await response.json() as Record<string, unknown>
    } catch (error) {
      failed(TOKEN_ENDPOINT, error)
      throw new BadGatewayError('the identity provider answered something other than JSON')
    }
    // RFC 6749 §5.2: a refused grant is invalid_grant (400) or a client error (401).
    if (response.status === 400 || response.status === 401) throw new UnauthorizedError()
    const { access_token: accessToken, id_token: idToken, refresh_token: rotated } = body ?? {}
    if (!response.ok || typeof accessToken !== 'string' || typeof idToken !== 'string') {
      failed(TOKEN_ENDPOINT, new Error(`answered ${response.status}`))
      throw new BadGatewayError('the identity provider failed to refresh the tokens')
    }
    return { accessToken, idToken, refreshToken: typeof rotated === 'string' && rotated !== refreshToken ? rotated : undefined }
  }

  return {
    async refresh (refreshToken: string): Promise<RefreshedTokens> {
      if (!options.tokenEndpoint || !options.roleArn) throw new ServiceUnavailableError('token refresh is not configured')
      const tokens = await redeem(refreshToken)
      // The ID token comes straight from the provider over TLS (OIDC Core §3.1.3.7); STS verifies it.
      const userId = claimsOf(tokens.idToken)[options.userClaim]
      if (!isSafeSegment(userId)) throw new BadGatewayError('the ID token names no usable user')
      const { bucket, prefix } = options.locate(userId)
      const { client, AssumeRoleWithWebIdentityCommand } = await stsClient()
      let answer
      try {
        answer = await observe('sts', 'assume_role_with_web_identity', () => client.send(new AssumeRoleWithWebIdentityCommand({
          RoleArn: options.roleArn,
          RoleSessionName: `stowage-${userId}`.replace(/[^\w+=,.@-]/g, '-').slice(0, 64),
          WebIdentityToken: tokens.idToken,
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
        accessToken: tokens.accessToken,
        idToken: tokens.idToken,
        ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
        credentials: {
          accessKeyId: credentials.AccessKeyId,
          secretAccessKey: credentials.SecretAccessKey,
          sessionToken: credentials.SessionToken,
          expiration: credentials.Expiration.toISOString()
        }
      }
    },

    close () {
      sts?.then(({ client }) => client.destroy(), () => {})
    }
  }
}

export type TokenRefresher = ReturnType<typeof createTokenRefresher>
