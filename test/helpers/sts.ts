import { Sha256 } from '@aws-crypto/sha256-js'
import { HttpRequest } from '@smithy/protocol-http'
import { SignatureV4 } from '@smithy/signature-v4'
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface StsIdentity {
  accessKeyId: string
  secretAccessKey: string
  sessionToken?: string
  arn: string
  account: string
}

export const TEST_IDENTITIES: StsIdentity[] = [
  { accessKeyId: 'AKIDALICE0000000', secretAccessKey: 'alice-secret', arn: 'arn:aws:iam::111122223333:user/alice', account: '111122223333' },
  {
    accessKeyId: 'ASIABOB000000000', secretAccessKey: 'bob-secret', sessionToken: 'bob-session-token',
    arn: 'arn:aws:sts::444455556666:assumed-role/Developer/bob', account: '444455556666'
  },
  { accessKeyId: 'AKIDNOORG0000000', secretAccessKey: 'noorg-secret', arn: 'arn:aws:iam::777788889999:user/carol', account: '777788889999' }
]

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/sts\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/

export interface StsRecord { action: string, params: Record<string, string>, headers: IncomingMessage['headers'] }

/**
 * A test STS speaking the query protocol. It verifies SigV4 with @smithy/signature-v4 against known
 * credentials, answers GetCallerIdentity (JSON when asked, else XML) and AssumeRoleWithWebIdentity,
 * and records every call.
 */
export async function startSts ({ identities = TEST_IDENTITIES, port = 0 } = {}) {
  const state = {
    calls: [] as StsRecord[],
    /** Replaces the next answers, to test a server that says something else. */
    override: undefined as undefined | { status: number, body: string, contentType?: string },
    failAssumeRole: false,
    hanging: false
  }
  const held = new Set<ServerResponse>()

  async function verifySignature (req: IncomingMessage, body: string): Promise<StsIdentity | undefined> {
    const match = AUTHORIZATION.exec(String(req.headers.authorization ?? ''))
    const identity = identities.find((candidate) => candidate.accessKeyId === match?.[1])
    const amzDate = String(req.headers['x-amz-date'] ?? '')
    if (!match || !identity || !/^\d{8}T\d{6}Z$/.test(amzDate)) return undefined
    if ((identity.sessionToken ?? '') !== (req.headers['x-amz-security-token'] ?? '')) return undefined
    const signedHeaders = match[4].split(';')
    const headers: Record<string, string> = {}
    for (const name of signedHeaders) {
      if (name !== 'x-amz-date' && name !== 'x-amz-security-token') headers[name] = String(req.headers[name] ?? '')
    }
    const signingDate = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`)
    const signer = new SignatureV4({ service: 'sts', region: match[3], credentials: identity, sha256: Sha256, applyChecksum: false })
    const expected = await signer.sign(
      new HttpRequest({ method: req.method, hostname: String(req.headers.host), path: req.url, headers, body }),
      { signingDate, signableHeaders: new Set(signedHeaders) }
    )
    return expected.headers.authorization === req.headers.authorization ? identity : undefined
  }

  function reply (res: ServerResponse, req: IncomingMessage, status: number, action: string, result: Record<string, unknown>) {
    if (String(req.headers.accept ?? '').includes('application/json')) {
      const key = status < 300 ? `${action}Response` : 'ErrorResponse'
      const inner = status < 300 ? { [`${action}Result`]: result, ResponseMetadata: { RequestId: 'test' } } : result
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ [key]: inner }))
      return
    }
    const toXml = (value: unknown): string => typeof value === 'object' && value !== null
      ? Object.entries(value).map(([k, v]) => `<${k}>${toXml(v)}</${k}>`).join('')
      : String(value)
    const xml = status < 300
      ? `<${action}Response xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><${action}Result>${toXml(result)}</${action}Result><ResponseMetadata><RequestId>test</RequestId></ResponseMetadata></${action}Response>`
      : `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">${toXml(result)}<RequestId>test</RequestId></ErrorResponse>`
    res.writeHead(status, { 'content-type': 'text/xml' }).end(xml)
  }

  const server = createServer(async (req, res) => {
    if (state.hanging) { held.add(res); return }
    let body = ''
    for await (const chunk of req) body += chunk
    const params = Object.fromEntries(new URLSearchParams(body)) as Record<string, string>
    const action = params.Action ?? ''
    state.calls.push({ action, params, headers: req.headers })
    if (state.override) {
      res.writeHead(state.override.status, { 'content-type': state.override.contentType ?? 'application/json' }).end(state.override.body)
      return
    }
    if (action === 'GetCallerIdentity') {
      const identity = await verifySignature(req, body)
      if (!identity) {
        return reply(res, req, 403, action, { Error: { Type: 'Sender', Code: 'SignatureDoesNotMatch', Message: 'The request signature we calculated does not match' } })
      }
      return reply(res, req, 200, action, { UserId: identity.accessKeyId, Account: identity.account, Arn: identity.arn })
    }
    if (action === 'AssumeRoleWithWebIdentity') {
      if (state.failAssumeRole || !params.WebIdentityToken) {
        return reply(res, req, 400, action, { Error: { Type: 'Sender', Code: 'InvalidIdentityToken', Message: 'refused' } })
      }
      const expiration = new Date(Date.now() + Number(params.DurationSeconds ?? 3600) * 1000)
      return reply(res, req, 200, action, {
        Credentials: {
          AccessKeyId: `ASIA${randomBytes(8).toString('hex').toUpperCase()}`,
          SecretAccessKey: randomBytes(20).toString('base64'),
          SessionToken: randomBytes(32).toString('base64'),
          Expiration: expiration.toISOString()
        },
        SubjectFromWebIdentityToken: 'subject',
        AssumedRoleUser: { Arn: `${params.RoleArn}/${params.RoleSessionName}`, AssumedRoleId: 'AROA:session' }
      })
    }
    reply(res, req, 400, action, { Error: { Type: 'Sender', Code: 'InvalidAction', Message: `unknown action ${action}` } })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    endpoint,
    state,
    /** Accepts connections and never answers, until resume(). */
    hang () { state.hanging = true },
    resume () {
      state.hanging = false
      for (const res of held) res.destroy()
    },
    async close () {
      for (const res of held) res.destroy()
      server.closeAllConnections()
      if (server.listening) await new Promise((resolve) => server.close(resolve))
    }
  }
}

export type TestSts = Awaited<ReturnType<typeof startSts>>
