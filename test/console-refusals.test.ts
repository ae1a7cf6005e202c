import t from 'tap'
import { bearer, buildTestApp } from './helpers/app.js'
import { browserFixture, noBrowser as skip, signInWithKey } from './helpers/browser.js'

// What the console says when the service refuses, in Debian's Chromium against s3rver.
const fixture = await browserFixture()

t.test('each refusal says what the person can do: 507 over quota, 412 changed meanwhile, 503 storage down, 401 sign in again', { skip }, async (t) => {
  const { app, close } = await buildTestApp({ driver: 's3', s3: fixture.s3, env: { QUOTA_BYTES: '4096', S3_TIMEOUT_MS: '1000', S3_CONNECT_TIMEOUT_MS: '500' } })
  t.teardown(close)
  const { id, key } = await app.stowageKeys.create({ userId: 'erin', orgId: null })
  t.equal((await app.inject({ method: 'PUT', url: '/api/raw/draft.txt', headers: bearer(key), payload: 'first draft' })).statusCode, 200)
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const page = await (await fixture.browser!.newContext()).newPage()
  t.teardown(() => page.context().close())
  await signInWithKey(page, url, key)
  const table = page.getByRole('table')
  await table.getByRole('row', { name: 'draft.txt' }).waitFor()
  const uploads = page.getByRole('region', { name: 'Uploads' })
  const upload = async (name: string, body: Buffer) => {
    const chooser = page.waitForEvent('filechooser')
    await page.getByRole('button', { name: 'Upload', exact: true }).click()
    await (await chooser).setFiles({ name, mimeType: 'text/plain', buffer: body })
  }

  await upload('big.bin', Buffer.alloc(8192))
  await uploads.getByRole('alert').filter({ hasText: 'You are over your storage quota: delete files or empty the trash.' }).waitFor()

  // Changed by someone else while the person decides (the folder follows changes, so before that
  // the page would list the new version): Replace sends If-Match of the one it asked about, and is refused.
  await upload('draft.txt', Buffer.from('my draft'))
  const asked = page.getByRole('dialog', { name: 'draft.txt is already here' })
  await asked.waitFor()
  t.equal((await app.inject({ method: 'PUT', url: '/api/raw/draft.txt', headers: bearer(key), payload: 'their draft' })).statusCode, 200)
  await asked.getByRole('button', { name: 'Replace' }).click()
  await uploads.getByRole('alert').filter({ hasText: 'Someone changed this file since you opened it: reload and try again.' }).waitFor()
  t.equal((await app.inject({ url: '/api/raw/draft.txt', headers: bearer(key) })).body, 'their draft', 'their change stands')

  fixture.s3!.pause()
  try {
    await table.getByRole('button', { name: 'draft.txt', exact: true }).click()
    await page.getByRole('dialog', { name: 'draft.txt' }).getByRole('alert').filter({ hasText: 'The service is busy or its storage is down: try again in a moment.' }).waitFor()
  } finally {
    fixture.s3!.resume()
  }
  await page.getByRole('dialog', { name: 'draft.txt' }).getByRole('button', { name: 'Close' }).click()

  await app.stowageKeys.revoke('erin', id)
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Trash' }).click()
  await page.getByRole('alert').filter({ hasText: 'Your session has ended: sign in again.' }).waitFor()
  await page.getByRole('button', { name: 'Sign in with an API key' }).waitFor()
  t.equal(await page.evaluate(() => sessionStorage.length), 0, 'the refused session is forgotten')
})
