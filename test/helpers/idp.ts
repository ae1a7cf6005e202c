import { createHmac, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createSigner } from 'fast-jwt'

export const TEST_AUDIENCE = 'stowage-test'

interface SigningKey { kid: string, privateKey: KeyObject, publicKey: KeyObject }

export interface TokenOptions {
  kid?: string
  /** Seconds from now; `null` leaves `exp` out. */
  expiresIn?: number | null
  issuer?: string
  audience?: string
}

export interface RefreshGrant { refreshToken: string, userId: string, orgId?: string }

/**
 * A small OpenID provider for tests: discovery, a JWKS of real RSA keys, RS256 tokens and a
 * refresh-token grant. It counts JWKS fetches and can be told to hang or fail.
 */
export async function startIdp () {
  const keys: SigningKey[] = [newKey()]
  const grants = new Map<string, RefreshGrant>()
  const state = { jwksFetches: 0, hangJwks: false, failJwks: false, failTokenEndpoint: false, tokenRequests: [] as Array<Record<string, string>> }
  const pending = new Set<ServerResponse>()

  function newKey (): SigningKey {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    return { kid: randomUUID(), privateKey, publicKey }
  }

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  }

  async function readForm (req: IncomingMessage) {
    let text = ''
    for await (const chunk of req) text += chunk
    return Object.fromEntries(new URLSearchParams(text)) as Record<string, string>
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', issuer)
    if (url.pathname === '/.well-known/openid-configuration') {
      return send(res, 200, { issuer, jwks_uri: `${issuer}/jwks.json`, token_endpoint: `${issuer}/token` })
    }
    if (url.pathname === '/jwks.json') {
      state.jwksFetches++
      if (state.hangJwks) { pending.add(res); return }
      if (state.failJwks) return send(res, 503, { error: 'unavailable' })
      return send(res, 200, {
        keys: keys.map(({ kid, publicKey }) => ({ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }))
      })
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = await readForm(req)
      state.tokenRequests.push(form)
      if (state.failTokenEndpoint) return send(res, 500, { error: 'server_error' })
      const grant = form.grant_type === 'refresh_token' ? grants.get(form.refresh_token ?? '') : undefined
      if (!grant) return send(res, 400, { error: 'invalid_grant' })
      const claims = { sub: grant.userId, ...(grant.orgId ? { org_id: grant.orgId } : {}) }
      // An ID token is for the client that asked (OIDC Core §2), an access token for the API.
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1]
      const clientId = basic ? decodeURIComponent(Buffer.from(basic, 'base64').toString().split(':')[0]) : form.client_id
      return send(res, 200, {
        access_token: token(claims),
        id_token: token(claims, { audience: clientId }),
        refresh_token: grant.refreshToken,
        token_type: 'Bearer',
        expires_in: 3600
      })
    }
    send(res, 404, { error: 'not found' })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  function token (claims: Record<string, unknown>, options: TokenOptions = {}) {
    const key = options.kid ? keys.find((k) => k.kid === options.kid) ?? { ...keys[0], kid: options.kid } : keys[0]
    const sign = createSigner({
      key: key.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      algorithm: 'RS256',
      kid: key.kid,
      iss: options.issuer ?? issuer,
      aud: options.audience ?? TEST_AUDIENCE,
      ...(options.expiresIn === null ? {} : { expiresIn: (options.expiresIn ?? 300) * 1000 })
    })
    return sign(claims) as string
  }

  const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

  return {
    issuer,
    state,
    token,
    /** `alg: none`, no signature. */
    unsignedToken (claims: Record<string, unknown>) {
      const now = Math.floor(Date.now() / 1000)
      return `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ iss: issuer, aud: TEST_AUDIENCE, exp: now + 300, ...claims })}.`
    },
    /** HS256 with the provider's public key as the HMAC secret: the classic algorithm confusion. */
    hmacWithPublicKey (claims: Record<string, unknown>) {
      const now = Math.floor(Date.now() / 1000)
      const input = `${base64url({ alg: 'HS256', typ: 'JWT', kid: keys[0].kid })}.${base64url({ iss: issuer, aud: TEST_AUDIENCE, exp: now + 300, ...claims })}`
      const secret = keys[0].publicKey.export({ type: 'spki', format: 'pem' })
      return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`
    },
    rotateKey () {
      const key = newKey()
      keys.unshift(key)
      return key.kid
    },
    addRefreshGrant (grant: Omit<RefreshGrant, 'refreshToken'>) {
      const refreshToken = `rt-${randomUUID()}`
      grants.set(refreshToken, { ...grant, refreshToken })
      return refreshToken
    },
    async close () {
      for (const res of pending) res.destroy()
      server.closeAllConnections()
      if (server.listening) await new Promise((resolve) => server.close(resolve))
    }
  }
}

export type TestIdp = Awaited<ReturnType<typeof startIdp>>
