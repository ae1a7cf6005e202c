import t from 'tap'
import type { Page } from 'playwright-core'
import { bearer, buildTestApp } from './helpers/app.js'
import { browserFixture, noBrowser as skip, pageProblems } from './helpers/browser.js'

// The two pages of the service's origin that run script, the console and Swagger UI at /docs, run
// only their own files: a script injected from a user's file under /links/ (same origin, no
// authentication) would read the console's session. In Debian's Chromium.
const fixture = await browserFixture()

/** Injects `<script src>` into the page as an HTML injection would; what happened to it. */
function injectScript (page: Page, src: string) {
  return page.evaluate((src) => new Promise<string>((resolve) => {
    document.addEventListener('securitypolicyviolation', (event) => resolve(`blocked by ${event.effectiveDirective}`))
    const script = document.createElement('script')
    script.src = src
    script.onload = () => resolve((window as unknown as { stowageInjected?: boolean }).stowageInjected ? 'ran' : 'loaded')
    script.onerror = () => resolve('failed to load')
    document.head.append(script)
  }), src)
}

t.test('a script from a user\'s link injected into the console or /docs is blocked; both still work; neither may be framed', { skip }, async (t) => {
  const { app, close } = await buildTestApp({ env: { LINKS_VIA: 'stowage' } })
  t.teardown(close)
  const { key } = await app.stowageKeys.create({ userId: 'mallory', orgId: null })
  const put = await app.inject({ method: 'PUT', url: '/api/raw/steal.js', headers: { ...bearer(key), 'content-type': 'text/javascript' }, payload: 'window.stowageInjected = true' })
  t.equal(put.statusCode, 200)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const link = await (await fetch(`${base}/api/links`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify({ path: 'steal.js', method: 'download' }) })).json() as { url: string }
  t.ok(link.url.startsWith(`${base}/links/`), 'a link of the same origin')
  const context = await fixture.browser!.newContext()
  t.teardown(() => context.close())

  const consolePage = await context.newPage()
  const consoleProblems = pageProblems(consolePage)
  const consoleAnswer = await consolePage.goto(`${base}/console/`)
  const consolePolicy = consoleAnswer!.headers()['content-security-policy']
  t.match(consolePolicy, `script-src ${base}/console/assets/;`, 'scripts from the console\'s own files only')
  t.match(consolePolicy, "frame-ancestors 'none'")
  await consolePage.getByLabel('API key').fill(key)
  await consolePage.getByRole('button', { name: 'Sign in with an API key' }).click()
  await consolePage.getByRole('table').getByRole('row', { name: 'steal.js' }).waitFor()
  t.same(consoleProblems, [], 'the console runs under its policy')
  t.equal(await injectScript(consolePage, link.url), 'blocked by script-src-elem')
  t.equal(await consolePage.evaluate(() => (window as unknown as { stowageInjected?: boolean }).stowageInjected), undefined)

  const docsPage = await context.newPage()
  const docsProblems = pageProblems(docsPage)
  const docsAnswer = await docsPage.goto(`${base}/docs/`)
  const docsPolicy = docsAnswer!.headers()['content-security-policy']
  t.match(docsPolicy, `script-src ${base}/docs/static/;`)
  t.match(docsPolicy, "frame-ancestors 'none'")
  await docsPage.getByText('createLink').first().waitFor()
  t.same(docsProblems, [], 'Swagger UI runs under its policy')
  t.equal(await injectScript(docsPage, link.url), 'blocked by script-src-elem')
})
