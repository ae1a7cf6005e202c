import * as oauth from 'oauth4webapi'
import { BadGatewayError, BadRequestError, dependencyUnavailable, ServiceUnavailableError, UnauthorizedError } from '../errors.js'
import { DEFAULT_UPSTREAM_TIMEOUT_MS, unobserved, type FailureLog, type ObserveCall } from './http.js'

export interface OAuthClientOptions {
  /** JWT_ISSUER: its discovery document names the endpoints. */
  issuer?: string
  /** OIDC_TOKEN_URL, when the token endpoint is not the discovered one. */
  tokenUrl?: string
  clientId?: string
  clientSecret?: string
  timeoutMs?: number
  onUpstreamFailure?: FailureLog
  observeCall?: ObserveCall
}

/** What the provider's token endpoint answered, as the service passes it on. */
export interface ProviderTokens {
  accessToken: string
  idToken: string
  /** Present when the provider issued or rotated one: keep this one. */
  refreshToken?: string
  expiresIn?: number
}

/** A grant the provider refused, with its RFC 6749 / RFC 8628 error code. */
export class GrantRefusedError extends Error {
  constructor (readonly error: string) {
    super(`the identity provider refused the grant: ${error}`)
  }
}

const PROVIDER = 'the identity provider'

const isLoopback = (url: string) => ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname)

/**
 * The service as the one OAuth client of the identity provider (RFC 6749, 7636, 7009, 8628 through
 * oauth4webapi): every request has the upstream deadline, and every failure one meaning: the
 * provider out of reach is 503, an answer that is not OAuth is 502, a refusal a GrantRefusedError.
 */
export function createOAuthClient (options: OAuthClientOptions) {
  const timeoutMs = options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS
  const observe = options.observeCall ?? unobserved
  const failed = (error: unknown) => options.onUpstreamFailure?.(PROVIDER, error)
  const client: oauth.Client = { client_id: options.clientId ?? '' }
  const authentication = options.clientSecret ? oauth.ClientSecretBasic(options.clientSecret) : oauth.None()
  // Plain http only for a provider on this machine (a test's, a developer's); anything else is https.
  const insecure = [options.issuer, options.tokenUrl].every((url) => url === undefined || isLoopback(url))
  const requestOptions = () => ({ signal: AbortSignal.timeout(timeoutMs), [oauth.allowInsecureRequests]: insecure })

  let metadata: Promise<oauth.AuthorizationServer> | undefined
  function server (): Promise<oauth.AuthorizationServer> {
    if (!options.clientId || (!options.issuer && !options.tokenUrl)) throw new ServiceUnavailableError('sign-in through the identity provider is not configured')
    const fixed = { token_endpoint: options.tokenUrl }
    if (!options.issuer) return Promise.resolve({ issuer: new URL(options.tokenUrl!).origin, ...fixed })
    const issuer = new URL(options.issuer)
    metadata ??= call('discovery', () => oauth.discoveryRequest(issuer, { ...requestOptions(), algorithm: 'oidc' }),
      (response) => oauth.processDiscoveryResponse(issuer, response))
      .then((found) => ({ ...found, ...(options.tokenUrl ? fixed : {}) }))
    metadata.catch(() => { metadata = undefined })
    return metadata
  }

  async function call<T> (operation: string, send: () => Promise<Response>, read: (response: Response) => Promise<T>): Promise<T> {
    let response: Response
    try {
      response = await observe('idp', operation, send)
    } catch (error) {
      failed(error)
      throw dependencyUnavailable(PROVIDER, error)
    }
    try {
      return await read(response)
    } catch (error) {
      if (error instanceof oauth.ResponseBodyError && error.status < 500) throw new GrantRefusedError(error.error)
      // The client's own authentication refused (a wrong OIDC_CLIENT_SECRET): the operator's to fix.
      if (error instanceof oauth.WWWAuthenticateChallengeError) throw new GrantRefusedError('invalid_client')
      failed(error)
      throw new BadGatewayError(`${PROVIDER} answered the ${operation} request with an error`)
    }
  }

  const tokensOf = (answer: oauth.TokenEndpointResponse): ProviderTokens => {
    if (typeof answer.id_token !== 'string') throw new BadGatewayError(`${PROVIDER} returned no ID token`)
    return { accessToken: answer.access_token, idToken: answer.id_token, refreshToken: answer.refresh_token, expiresIn: answer.expires_in }
  }

  return {
    /** Where to send a person to sign in (RFC 6749 §4.1.1, with PKCE's S256 challenge); undefined when the provider has no such endpoint. */
    async authorizationUrl ({ redirectUri, codeChallenge, state, scope }: { redirectUri: string, codeChallenge: string, state: string, scope: string }) {
      const as = await server()
      if (!as.authorization_endpoint) return undefined
      const url = new URL(as.authorization_endpoint)
      for (const [name, value] of Object.entries({
        client_id: client.client_id, response_type: 'code', redirect_uri: redirectUri, scope, state, code_challenge: codeChallenge, code_challenge_method: 'S256'
      })) url.searchParams.set(name, value)
      return url
    },

    async refresh (refreshToken: string) {
      const as = await server()
      return tokensOf(await call('token', () => oauth.refreshTokenGrantRequest(as, client, authentication, refreshToken, requestOptions()),
        (response) => oauth.processRefreshTokenResponse(as, client, response)))
    },

    /** An authorization code with its PKCE verifier, for the redirect URI it was issued to. */
    async exchangeCode ({ code, codeVerifier, redirectUri }: { code: string, codeVerifier: string, redirectUri: string }) {
      const as = await server()
      // The client checked `state` and `iss` on its own redirect; the service sees only the code.
      const callback = oauth.validateAuthResponse(as, client, new URLSearchParams({ code, iss: as.issuer }), oauth.skipStateCheck)
      return tokensOf(await call('token', () => oauth.authorizationCodeGrantRequest(as, client, authentication, callback, redirectUri, codeVerifier, requestOptions()),
        (response) => oauth.processAuthorizationCodeResponse(as, client, response)))
    },

    async startDevice (scope: string) {
      const as = await server()
      if (!as.device_authorization_endpoint) return undefined
      return await call('device_authorization', () => oauth.deviceAuthorizationRequest(as, client, authentication, { scope }, requestOptions()),
        (response) => oauth.processDeviceAuthorizationResponse(as, client, response))
    },

    async pollDevice (deviceCode: string) {
      const as = await server()
      return tokensOf(await call('token', () => oauth.deviceCodeGrantRequest(as, client, authentication, deviceCode, requestOptions()),
        (response) => oauth.processDeviceCodeResponse(as, client, response)))
    },

    /** Revokes a refresh token where the provider can (RFC 7009); false where it has no endpoint. */
    async revoke (refreshToken: string) {
      const as = await server()
      if (!as.revocation_endpoint) return false
      await call('revocation', () => oauth.revocationRequest(as, client, authentication, refreshToken, { ...requestOptions(), additionalParameters: { token_type_hint: 'refresh_token' } }),
        (response) => oauth.processRevocationResponse(response))
      return true
    }
  }
}

export type OAuthClient = ReturnType<typeof createOAuthClient>

/** A refusal as the service answers it: a grant refused is 401, a malformed request 400. */
export function refusal (error: unknown): unknown {
  if (!(error instanceof GrantRefusedError)) return error
  if (error.error === 'invalid_request') return new BadRequestError('the identity provider found the request malformed')
  return new UnauthorizedError()
}
