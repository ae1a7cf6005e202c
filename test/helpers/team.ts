import type { Test } from 'tap'
import { bearer, buildTestApp } from './app.js'
import type { startIdp } from './idp.js'
import type { S3Server } from './s3.js'

// Five people of one organization (ada, bea, cai, dan, eve) known to a service of their own, with
// what tests of shares ask of it: files put and read, shares made, and everything one owns.

export type Headers = Record<string, string>
export const base64 = (text: string) => Buffer.from(text).toString('base64')

export async function team (t: Test, { idp, s3, driver, env = {} }: { idp: Awaited<ReturnType<typeof startIdp>>, s3: S3Server, driver: 'fs' | 's3', env?: Record<string, string> }) {
  const { app, close } = await buildTestApp({ idp, driver, s3, env })
  t.teardown(close)
  const person = async (sub: string, org = 'acme') => {
    const headers = bearer(idp.token({ sub, org_id: org, email: `${sub}@${org}.example`, name: sub.toUpperCase() }))
    t.equal((await app.inject({ url: '/api/me', headers })).statusCode, 200)
    return headers
  }
  const [ada, bea, cai, dan, eve] = [await person('ada'), await person('bea'), await person('cai'), await person('dan'), await person('eve')]
  const put = async (headers: Headers, path: string, text = path) => {
    const written = await app.inject({ method: 'PUT', url: `/api/files/${path}`, headers, payload: { content: base64(text) } })
    t.equal(written.statusCode, 200, `put ${path}: ${written.payload}`)
  }
  const share = async (headers: Headers, body: object) => {
    const made = await app.inject({ method: 'POST', url: '/api/shares', headers, payload: body })
    t.equal(made.statusCode, 201, made.payload)
    return made.json() as { id: string }
  }
  /** Every file of the person's own, with its ETag: what a refused request must leave as it was. */
  const everything = async (headers: Headers) => {
    const files: string[] = []
    let continuationToken: string | undefined
    do {
      const page = (await app.inject({ url: `/api/files${continuationToken ? `?continuationToken=${continuationToken}` : ''}`, headers })).json()
      files.push(...page.files.map((file: { key: string, etag: string }) => `${file.key} ${file.etag}`), ...(page.folders ?? []))
      continuationToken = page.continuationToken
    } while (continuationToken)
    return files
  }
  const read = async (headers: Headers, path: string) => {
    const got = await app.inject({ url: `/api/raw/${path}`, headers })
    return got.statusCode === 200 ? got.payload : got.statusCode
  }
  return { app, ada, bea, cai, dan, eve, put, share, everything, read }
}
