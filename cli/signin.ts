import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { postJson, RequestFailed, type CliIo } from './io.js'
import type { TokenAnswer } from './session.js'
import { DEFAULT_OIDC_SCOPE } from '../defaults.js'

const DEFAULT_TIMEOUT_SECONDS = 300

function refused (status: number, answer: Record<string, unknown>): never {
  throw new RequestFailed(status === 401 ? 'the identity provider refused the sign-in' : `${status}: ${String(answer.error ?? 'the sign-in failed')}`)
}

/** Where to send the person: the service's RFC 9728 metadata, then the provider's discovery. */
async function authorizationServer (base: string) {
  const metadata = await fetch(`${base}/.well-known/oauth-protected-resource`).catch((error: Error) => {
    throw new RequestFailed(`cannot reach ${base} (${error.message})`)
  })
  if (metadata.status === 404) throw new RequestFailed(`${base} has no identity provider: log in with --api-key KEY`)
  const resource = await metadata.json() as { authorization_servers?: string[], client_id?: string, scopes_supported?: string[] }
  const issuer = resource.authorization_servers?.[0]
  if (!issuer || !resource.client_id) throw new RequestFailed(`${base} names no identity provider and client to sign in with`)
  const discovery = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`).then((r) => r.json() as Promise<{ authorization_endpoint?: string }>)
    .catch((error: Error) => { throw new RequestFailed(`cannot reach the identity provider ${issuer} (${error.message})`) })
  if (!discovery.authorization_endpoint) throw new RequestFailed(`the identity provider ${issuer} has no authorization endpoint`)
  return { issuer, clientId: resource.client_id, scope: resource.scopes_supported?.join(' ') ?? DEFAULT_OIDC_SCOPE, authorizationEndpoint: discovery.authorization_endpoint }
}

/** The system's browser, when there is one to open: $BROWSER, else the platform's opener on a desktop. */
function openBrowser (url: string, env: Record<string, string | undefined>) {
  const command = env.BROWSER
    ? [env.BROWSER]
    : process.platform === 'darwin' ? ['open'] : process.platform === 'win32' ? ['cmd', '/c', 'start', '""'] : env.DISPLAY || env.WAYLAND_DISPLAY ? ['xdg-open'] : undefined
  if (!command) return
  const child = spawn(command[0], [...command.slice(1), url], { stdio: 'ignore', detached: true })
  child.on('error', () => {})
  child.unref()
}

const PAGE = (message: string) => `<!doctype html><meta charset="utf-8"><title>Stowage</title><p style="font:1.2em system-ui;margin:3em auto;max-width:30em">${message}</p>`

/**
 * The authorization code grant with PKCE (RFC 7636, S256) on a one-time loopback listener (RFC 8252):
 * the URL always on stderr, the browser opened unless told not to; the code, checked against `state`
 * and the issuer, exchanged by the service.
 */
export async function signInWithBrowser (base: string, io: CliIo, { browser }: { browser: boolean }): Promise<TokenAnswer> {
  const provider = await authorizationServer(base)
  const verifier = randomBytes(32).toString('base64url')
  const state = randomBytes(16).toString('base64url')
  const timeoutMs = Number(io.env.STOWAGE_LOGIN_TIMEOUT_SECONDS || DEFAULT_TIMEOUT_SECONDS) * 1000
  let finish!: (outcome: { code: string } | { error: string }) => void
  const outcome = new Promise<{ code: string } | { error: string }>((resolve) => { finish = resolve })
  const listener = createServer((request, response) => {
    const callback = new URL(request.url ?? '/', 'http://127.0.0.1')
    if (callback.pathname !== '/callback' || callback.searchParams.get('state') !== state) {
      response.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE('This is not the sign-in Stowage is waiting for.'))
      return
    }
    const error = callback.searchParams.get('error')
    const code = callback.searchParams.get('code')
    const issuer = callback.searchParams.get('iss')
    const failed = error ?? (!code ? 'no code' : issuer !== null && issuer !== provider.issuer ? 'an answer from another identity provider' : undefined)
    response.writeHead(failed ? 400 : 200, { 'content-type': 'text/html; charset=utf-8', connection: 'close' })
      .end(PAGE(failed ? 'The sign-in did not succeed. Go back to the terminal to see why.' : 'You are signed in to Stowage. You can close this tab and go back to the terminal.'))
    finish(failed ? { error: failed } : { code: code! })
  })
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  const redirectUri = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`
  const url = new URL(provider.authorizationEndpoint)
  for (const [name, value] of Object.entries({
    response_type: 'code', client_id: provider.clientId, redirect_uri: redirectUri, scope: provider.scope, state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
    // Consent is what makes providers issue a refresh token for offline_access.
    prompt: 'consent'
  })) url.searchParams.set(name, value)
  io.stderr.write(`Sign in at this address${browser ? ' (opening your browser)' : ''}:\n${url}\n`)
  if (browser) openBrowser(url.toString(), io.env)
  const timer = setTimeout(() => finish({ error: 'timeout' }), timeoutMs)
  const result = await outcome.finally(() => {
    clearTimeout(timer)
    listener.close()
    listener.closeAllConnections()
  })
  if ('error' in result) {
    if (result.error === 'timeout') throw new RequestFailed(`the sign-in was not completed within ${timeoutMs / 1000} s; run "stowage login" again`)
    throw new RequestFailed(result.error === 'access_denied' ? 'the sign-in was denied' : `the sign-in failed: ${result.error}`)
  }
  const { status, answer } = await postJson(base, '/api/auth/token', { code: result.code, codeVerifier: verifier, redirectUri })
  if (status !== 200) refused(status, answer)
  return answer as unknown as TokenAnswer
}

/** The device grant (RFC 8628) through the service: a code to type on any device, then polling. */
export async function signInWithDevice (base: string, io: CliIo): Promise<TokenAnswer> {
  const started = await postJson(base, '/api/auth/device')
  if (started.status === 404) throw new RequestFailed(`${base} has no device sign-in (its identity provider has no device endpoint): use the browser sign-in`)
  if (started.status !== 200) refused(started.status, started.answer)
  const device = started.answer as { deviceCode: string, userCode: string, verificationUri: string, verificationUriComplete?: string, expiresIn: number, interval: number }
  io.stderr.write(`On any device, open ${device.verificationUri}\nand enter the code ${device.userCode}\n${device.verificationUriComplete ? `(or open ${device.verificationUriComplete})\n` : ''}`)
  let interval = device.interval
  const deadline = Date.now() + device.expiresIn * 1000
  for (;;) {
    await sleep(interval * 1000)
    const { status, answer } = await postJson(base, '/api/auth/token', { deviceCode: device.deviceCode })
    if (status === 200) return answer as unknown as TokenAnswer
    if (status === 400 && answer.code === 'authorization_pending' && Date.now() < deadline) continue
    if (status === 400 && answer.code === 'slow_down') { interval += 5; continue }
    // Providers that drop an expired code say they do not know it (invalid_grant, 401 here), not that it expired.
    if ((status === 400 && answer.code === 'authorization_pending') || answer.code === 'expired_token' || (status === 401 && Date.now() >= deadline)) {
      throw new RequestFailed('the code expired before the sign-in was approved; run "stowage login --device" again')
    }
    if (status === 401) throw new RequestFailed('the sign-in was denied')
    refused(status, answer)
  }
}
