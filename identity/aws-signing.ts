import { Sha256 } from '@aws-crypto/sha256-js'
import { HttpRequest } from '@smithy/protocol-http'
import { SignatureV4 } from '@smithy/signature-v4'

export const CALLER_IDENTITY_BODY = 'Action=GetCallerIdentity&Version=2011-06-15'
export const CALLER_IDENTITY_CONTENT_TYPE = 'application/x-www-form-urlencoded; charset=utf-8'
export const SERVER_ID_HEADER = 'x-stowage-server-id'

export interface AwsCredentials {
  accessKeyId: string
  secretAccessKey: string
  sessionToken?: string
}

export interface CallerIdentitySigningOptions {
  /** The STS endpoint the server forwards to (its STS_ENDPOINT). */
  stsEndpoint: string
  region: string
  serverId: string
  credentials: AwsCredentials
  signingDate?: Date
}

/**
 * Signs an sts:GetCallerIdentity request for the server to forward (DESIGN.md §5.3) and returns the
 * headers to send to Stowage.
 */
export async function signCallerIdentity (options: CallerIdentitySigningOptions): Promise<Record<string, string>> {
  const url = new URL(options.stsEndpoint)
  const request = new HttpRequest({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: '/',
    headers: {
      host: url.host,
      'content-type': CALLER_IDENTITY_CONTENT_TYPE,
      [SERVER_ID_HEADER]: options.serverId
    },
    body: CALLER_IDENTITY_BODY
  })
  // No x-amz-content-sha256: the server forwards only the headers of DESIGN.md §5.3.
  const signer = new SignatureV4({ service: 'sts', region: options.region, credentials: options.credentials, sha256: Sha256, applyChecksum: false })
  const signed = await signer.sign(request, { signingDate: options.signingDate })
  const headers: Record<string, string> = {
    authorization: signed.headers.authorization,
    'x-amz-date': signed.headers['x-amz-date'],
    [SERVER_ID_HEADER]: options.serverId
  }
  if (options.credentials.sessionToken) headers['x-amz-security-token'] = options.credentials.sessionToken
  return headers
}
