import t from 'tap'
import { randomBytes } from 'node:crypto'
import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3'
import { buildTestApp } from './helpers/app.js'
import { accessibilityProblems, browserFixture, noBrowser as skip, signInWithKey } from './helpers/browser.js'

// The console's S3 credentials, beside the API keys, in Debian's Chromium.
const fixture = await browserFixture()

t.test('a person makes an S3 credential, copies its secret once, sees it used, and revokes it; without an S3 endpoint the section is not shown', { skip }, async (t) => {
  const { app, close } = await buildTestApp({ env: { S3_API_PORT: '0', S3_CREDENTIALS_KEY: randomBytes(32).toString('base64') } })
  t.teardown(close)
  const { key } = await app.stowageKeys.create({ userId: 'sam', orgId: null })
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const endpoint = await app.s3Endpoint!.listen({ port: 0, host: '127.0.0.1' })
  const page = await (await fixture.browser!.newContext()).newPage()
  t.teardown(() => page.context().close())
  await signInWithKey(page, url, key)
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'API keys' }).click()
  const section = page.getByRole('region', { name: 'S3 credentials' })
  await section.getByLabel('Name').fill('laptop')
  await section.getByRole('button', { name: 'Create S3 credential' }).click()
  const accessKeyId = await section.getByLabel('Access key id').textContent()
  const secretAccessKey = await section.getByLabel('Secret access key').textContent()
  t.match(accessKeyId, /^SKIA[A-Z2-7]{16}$/)
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey! }, maxAttempts: 1 })
  t.teardown(() => client.destroy())
  await client.send(new ListBucketsCommand({}))
  t.same(await accessibilityProblems(page), [])
  await page.reload()
  await section.getByRole('row', { name: 'laptop' }).waitFor()
  t.notOk((await section.textContent())?.includes(secretAccessKey!), 'the secret is not shown again')
  await section.getByRole('button', { name: `Revoke laptop (${accessKeyId})` }).click()
  await section.getByRole('row', { name: 'laptop' }).waitFor({ state: 'detached' })
  await t.rejects(client.send(new ListBucketsCommand({})), { name: 'InvalidAccessKeyId' })

  const { app: plain, close: closePlain } = await buildTestApp()
  t.teardown(closePlain)
  const { key: other } = await plain.stowageKeys.create({ userId: 'pat', orgId: null })
  const plainPage = await (await fixture.browser!.newContext()).newPage()
  t.teardown(() => plainPage.context().close())
  await signInWithKey(plainPage, await plain.listen({ port: 0, host: '127.0.0.1' }), other)
  await plainPage.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'API keys' }).click()
  await plainPage.getByRole('heading', { name: 'API keys' }).waitFor()
  await plainPage.waitForLoadState('networkidle')
  t.equal(await plainPage.getByRole('region', { name: 'S3 credentials' }).count(), 0)
})
