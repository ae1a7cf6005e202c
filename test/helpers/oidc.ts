import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider, { type Configuration } from 'oidc-provider'

export const OIDC_CLIENT = { id: 'stowage', secret: 'stowage-client-secret' }
/** Stowage as a resource server: resource indicators are absolute URIs. */
export const OIDC_AUDIENCE = 'urn:stowage:test'

export interface OidcProviderOptions {
  /** Seconds an access token lives. */
  accessTokenTtl?: number
  /** Seconds a device code waits for the person. */
  deviceCodeTtl?: number
  /** 'dropped' at once, as a database's TTL does (an expired device code is then unknown:
   *  invalid_grant), or 'kept' a while by oidc-provider's own memory adapter (expired_token). */
  expiredRecords?: 'dropped' | 'kept'
}

/**
 * panva's oidc-provider, a certified OpenID Provider, as Stowage's identity provider in tests: the
 * authorization-code grant with PKCE (S256 only), the device grant, refresh tokens that rotate and
 * revoke the grant when one is reused, revocation, and JWT access tokens for Stowage's audience.
 * Its development login and consent pages accept any login; `signIn` drives them over HTTP.
 */
export async function startOidcProvider ({ accessTokenTtl = 60, deviceCodeTtl = 600, expiredRecords = 'dropped' }: OidcProviderOptions = {}) {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const seen = { tokenRequests: [] as string[], revocations: 0 }
  const configuration: Configuration = {
    clients: [{
      client_id: OIDC_CLIENT.id,
      client_secret: OIDC_CLIENT.secret,
      // Native: a loopback redirect URI matches on any port (RFC 8252 §7.3).
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/callback', 'http://127.0.0.1/console/callback'],
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic'
    }],
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => accountClaims(sub) }),
    claims: { openid: ['sub', 'org_id'], email: ['email'], profile: ['name'] },
    scopes: ['openid', 'email', 'profile', 'offline_access'],
    // Stowage reads a person from the access token: their organization (always), and their email and
    // name when the email and profile scopes grant them (as Keycloak's mappers, Auth0's actions and
    // Entra ID's optional claims put them there).
    extraTokenClaims: async (_ctx, token) => {
      if (token.kind !== 'AccessToken' || !token.accountId) return undefined
      const scopes = new Set(String(token.scope ?? '').split(' '))
      const { email, name, org_id: orgId } = accountClaims(token.accountId)
      return { ...(orgId ? { org_id: orgId } : {}), ...(scopes.has('email') ? { email } : {}), ...(scopes.has('profile') ? { name } : {}) }
    },
    features: {
      devInteractions: { enabled: true },
      deviceFlow: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => OIDC_AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({ scope: 'openid email profile offline_access', audience: OIDC_AUDIENCE, accessTokenFormat: 'jwt', accessTokenTTL: accessTokenTtl, jwt: { sign: { alg: 'RS256' } } })
      }
    },
    pkce: { required: () => true },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    ttl: { AccessToken: accessTokenTtl, DeviceCode: deviceCodeTtl, RefreshToken: 86_400, Grant: 86_400, Session: 86_400, Interaction: 600, AuthorizationCode: 60, IdToken: 3600 },
    jwks: { keys: [await signingKey()] },
    ...(expiredRecords === 'dropped' ? { adapter: expiringMemoryAdapter() } : {})
  }
  const provider = new Provider(issuer, configuration)
  provider.on('grant.success', (ctx) => { seen.tokenRequests.push(String((ctx.oidc.params as { grant_type?: string })?.grant_type)) })
  provider.on('grant.revoked', () => { seen.revocations++ })
  const callback = provider.callback()
  server.on('request', (req: IncomingMessage, res: ServerResponse) => { callback(req, res) })

  return {
    issuer,
    provider,
    seen,
    /** The variables that make a Stowage service use this provider, as the service's one OAuth client. */
    serviceEnv: { JWT_ISSUER: issuer, JWT_AUDIENCE: OIDC_AUDIENCE, OIDC_CLIENT_ID: OIDC_CLIENT.id, OIDC_CLIENT_SECRET: OIDC_CLIENT.secret },
    /** Plays the person: opens `authorizationUrl`, logs in as `login`, consents; resolves with where the provider redirected. */
    signIn: (authorizationUrl: string, login: string) => drive(authorizationUrl, login),
    /** Plays the person at the device page: enters `userCode`, logs in, and approves or denies. */
    approveDevice: (verificationUri: string, userCode: string, login: string, approve = true) => driveDevice(verificationUri, userCode, login, approve),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  }
}

/** A test account's claims: `acme-…` logins are of the organization acme; each has an email and a
 *  name made from its login (`acme-ada`: acme-ada@example.test, "Acme Ada"). */
function accountClaims (sub: string) {
  const name = sub.split('-').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(' ')
  return { sub, email: `${sub}@example.test`, name, ...(sub.startsWith('acme-') ? { org_id: 'acme' } : {}) }
}

/** The provider's records in memory, each gone once it expires, as a database adapter's TTL drops them. */
function expiringMemoryAdapter () {
  const records = new Map<string, { payload: Record<string, unknown>, expiresAt: number }>()
  return class ExpiringMemoryAdapter {
    constructor (private readonly model: string) {}
    private key (id: string) { return `${this.model}:${id}` }
    private live (key: string) {
      const record = records.get(key)
      if (!record) return undefined
      if (record.expiresAt > Date.now()) return record.payload
      records.delete(key)
      return undefined
    }

    async upsert (id: string, payload: Record<string, unknown>, expiresIn?: number) {
      records.set(this.key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity })
    }

    async find (id: string) { return this.live(this.key(id)) }
    async findByUid (uid: string) { return this.findWhere((payload) => payload.uid === uid) }
    async findByUserCode (userCode: string) { return this.findWhere((payload) => payload.userCode === userCode) }
    async consume (id: string) {
      const payload = this.live(this.key(id))
      if (payload) payload.consumed = Math.floor(Date.now() / 1000)
    }

    async destroy (id: string) { records.delete(this.key(id)) }
    async revokeByGrantId (grantId: string) {
      for (const [key, { payload }] of records) if (payload.grantId === grantId) records.delete(key)
    }

    private findWhere (matches: (payload: Record<string, unknown>) => boolean) {
      for (const key of records.keys()) {
        if (!key.startsWith(`${this.model}:`)) continue
        const payload = this.live(key)
        if (payload && matches(payload)) return payload
      }
      return undefined
    }
  }
}

async function signingKey () {
  const { generateKeyPairSync } = await import('node:crypto')
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  return { ...privateKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig', kid: 'test-key' }
}

/** A browser's cookie jar, enough for one provider. */
function browser () {
  const cookies = new Map<string, string>()
  return async function go (url: string, init: RequestInit = {}) {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...init.headers as Record<string, string>, cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') }
    })
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const at = pair.indexOf('=')
      const [name, value] = [pair.slice(0, at), pair.slice(at + 1)]
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(name)
      else cookies.set(name, value)
    }
    return response
  }
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString()
})

/** The action and hidden fields of the page's first form. */
function formOf (html: string, base: string) {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
  if (!action) throw new Error(`no form on the page: ${html.slice(0, 300)}`)
  const fields = Object.fromEntries([...html.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1], m[2]]))
  return { action: new URL(action.replace(/&amp;/g, '&'), base).toString(), fields }
}

/** Follows redirects within the provider, logging in and consenting where asked, until it sends the browser elsewhere. */
async function follow (go: ReturnType<typeof browser>, start: Response, base: string, login: string): Promise<string> {
  let response = start
  for (let hops = 0; hops < 20; hops++) {
    const location = response.headers.get('location')
    if (location) {
      const next = new URL(location, base)
      if (next.origin !== new URL(base).origin) return next.toString()
      response = await go(next.toString())
      continue
    }
    const html = await response.text()
    if (/name="login"/.test(html)) {
      const { action, fields } = formOf(html, base)
      response = await go(action, form({ ...fields, prompt: 'login', login, password: 'any' }))
    } else if (/name="prompt" value="consent"/.test(html) || /Authorize/.test(html)) {
      const { action, fields } = formOf(html, base)
      response = await go(action, form({ ...fields, prompt: 'consent' }))
    } else {
      return `page:${html}`
    }
  }
  throw new Error('the provider kept redirecting')
}

async function drive (authorizationUrl: string, login: string) {
  const go = browser()
  return follow(go, await go(authorizationUrl), authorizationUrl, login)
}

async function driveDevice (verificationUri: string, userCode: string, login: string, approve: boolean) {
  const go = browser()
  const page = await (await go(verificationUri)).text()
  const { action, fields } = formOf(page, verificationUri)
  const ended = await follow(go, await go(action, form({ ...fields, user_code: userCode })), verificationUri, login)
  if (!ended.startsWith('page:')) throw new Error(`the device page went to ${ended}`)
  const confirm = ended.slice('page:'.length)
  if (!/name="confirm"/.test(confirm) && !/confirm/i.test(confirm)) return confirm
  const { action: confirmAction, fields: confirmFields } = formOf(confirm, verificationUri)
  const done = await go(confirmAction, form({ ...confirmFields, user_code: userCode, ...(approve ? { confirm: 'yes' } : { abort: 'yes' }) }))
  return follow(go, done, verificationUri, login)
}
