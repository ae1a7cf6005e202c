import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import Fastify from 'fastify'
import t from 'tap'
import { stowage } from '../plugins/stowage.js'
import { bearer, buildTestApp } from './helpers/app.js'
import { waitFor } from './helpers/wait.js'
import { accessibilityProblems, browserFixture, noBrowser as skip, pageProblems, screenshot, fromRowMenu } from './helpers/browser.js'

// The console's main flows, as a person goes through them, in Debian's Chromium, on fs and on S3;
// how a host app mounts it; what its first load weighs.
const fixture = await browserFixture()
const { s3 } = fixture

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: a person signs in with an API key, walks folders by link, back and forward, uploads (64 MiB paused and resumed; asked when a name is taken), downloads, shares, deletes and undoes, renames, moves, opens a new folder, restores and purges from the trash, makes and revokes a key, reloads a deep link, and signs out`, { skip }, async (t) => {
    const { app, close } = await buildTestApp({ driver, s3 })
    t.teardown(close)
    const { key } = await app.stowageKeys.create({ userId: 'alice', orgId: null })
    for (const path of ['notes.txt', 'docs/report.pdf', 'docs/deep/old.txt']) {
      const put = await app.inject({ method: 'PUT', url: `/api/raw/${path}`, headers: bearer(key), payload: `contents of ${path}` })
      t.equal(put.statusCode, 200)
    }
    const url = await app.listen({ port: 0, host: '127.0.0.1' })

    const context = await fixture.browser!.newContext()
    t.teardown(() => context.close())
    const page = await context.newPage()
    const problems = pageProblems(page)

    const answer = await page.goto(`${url}/console/`)
    t.match(answer!.headers()['content-security-policy'], new RegExp(`script-src ${url}/console/assets/;.*frame-ancestors 'none'`))
    t.notMatch(answer!.headers()['content-security-policy'], /unsafe-inline|unsafe-eval/)

    const a11y: Record<string, string[]> = { 'sign-in': await accessibilityProblems(page) }
    if (driver === 'fs') await screenshot(page, 'sign-in')
    await page.getByLabel('API key').fill('stw_not-a-key')
    await page.getByRole('button', { name: 'Sign in with an API key' }).click()
    await page.getByRole('alert').filter({ hasText: 'not accepted' }).waitFor()

    await page.getByLabel('API key').fill(key)
    await page.getByRole('button', { name: 'Sign in with an API key' }).click()
    const table = page.getByRole('table')
    await table.getByRole('row', { name: 'notes.txt' }).waitFor()
    await table.getByRole('link', { name: 'docs/' }).click()
    await table.getByRole('row', { name: 'report.pdf' }).waitFor()
    t.equal(new URL(page.url()).pathname, '/console/files/docs/', 'a folder is a deep link')
    a11y.files = await accessibilityProblems(page)
    await table.getByRole('link', { name: 'deep/' }).click()
    await table.getByRole('row', { name: 'old.txt' }).waitFor()

    await page.goBack()
    await table.getByRole('row', { name: 'report.pdf' }).waitFor()
    await page.goBack()
    await table.getByRole('row', { name: 'notes.txt' }).waitFor()
    await page.goForward()
    await table.getByRole('row', { name: 'report.pdf' }).waitFor()
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: 'My files' }).click()
    await table.getByRole('row', { name: 'notes.txt' }).waitFor()

    // Upload two files by the chooser, into docs/: each shows its progress, then its row.
    const photo = randomBytes(3 * 1024 * 1024 + 17)
    const chooser = page.waitForEvent('filechooser')
    await page.getByRole('button', { name: 'Upload', exact: true }).click()
    await (await chooser).setFiles([
      { name: 'photo.jpg', mimeType: 'image/jpeg', buffer: photo },
      { name: 'résumé.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') }
    ])
    await table.getByRole('row', { name: 'photo.jpg' }).waitFor()
    await table.getByRole('row', { name: 'résumé.txt' }).waitFor()
    t.equal(await page.getByRole('progressbar', { name: 'Uploading photo.jpg' }).getAttribute('value'), String(photo.length))
    const uploaded = await app.inject({ url: '/api/raw/photo.jpg', headers: bearer(key) })
    t.ok(uploaded.rawPayload.equals(photo), 'the upload is stored byte for byte')
    t.equal(uploaded.headers['content-type'], 'image/jpeg')

    await page.getByText(/^3\.0 MiB used$/).waitFor()
    await table.getByRole('button', { name: /^Size/ }).click()
    await table.getByRole('button', { name: /^Size/ }).click()
    t.equal(await table.getByRole('columnheader', { name: 'Size' }).getAttribute('aria-sort'), 'descending')
    // Sorted by the service, the whole folder: folders first, then the files, largest first.
    await waitFor(async () => (await table.getByRole('row').nth(2).getAttribute('aria-label')) === 'photo.jpg', { what: 'the folder sorted by size, largest first' })
    t.equal(await table.getByRole('row').nth(1).getAttribute('aria-label'), 'docs', 'folders first')
    await table.getByRole('button', { name: /^Name/ }).click()

    // Download through a signed link: Stowage's own downloads, a store's opens in a tab.
    const download = () => table.getByRole('button', { name: 'Download photo.jpg' }).click()
    if (driver === 'fs') {
      const [saved] = await Promise.all([page.waitForEvent('download'), download()])
      t.ok((await readFile((await saved.path())!)).equals(photo), 'the downloaded bytes are the file\'s')
    } else {
      const [tab] = await Promise.all([page.waitForEvent('popup'), download()])
      t.ok(Buffer.from(await (await fetch(tab.url())).arrayBuffer()).equals(photo), 'the linked bytes are the file\'s')
      // Closed, as a person would: a console left in a background tab is throttled by the browser.
      await tab.close()
    }

    // Share: a download link, copied, opened in a fresh browser context with no credentials.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    await table.getByRole('button', { name: 'Share photo.jpg' }).click()
    const share = page.getByRole('dialog', { name: 'Share photo.jpg' })
    // An upload link takes a file each time it is used until it expires, and the dialog says so.
    await share.getByRole('radio', { name: 'upload a new version of it (as often as wanted, until it expires)' }).waitFor()
    await share.getByLabel('For').selectOption({ label: 'An hour' })
    await share.getByRole('button', { name: 'Create link' }).click()
    await share.getByRole('button', { name: 'Copy link' }).click()
    await share.getByRole('button', { name: 'Copied' }).waitFor()
    const shared = await page.evaluate(() => navigator.clipboard.readText())
    t.equal(shared, await share.getByLabel('Link', { exact: true }).textContent())
    a11y.share = await accessibilityProblems(page)
    if (driver === 'fs') await screenshot(page, 'share')
    await share.getByRole('button', { name: 'Close' }).click()
    const stranger = await fixture.browser!.newContext()
    const opened = await (await stranger.newPage()).goto(shared)
    t.ok((await opened!.body()).equals(photo), 'the shared link serves the file to someone signed in nowhere')
    await stranger.close()

    // Delete into the trash, then Undo.
    await fromRowMenu(table, 'Delete', 'résumé.txt')
    await page.getByRole('status').filter({ hasText: 'résumé.txt is in the trash' }).waitFor()
    await table.getByRole('row', { name: 'résumé.txt' }).waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Undo' }).click()
    await table.getByRole('row', { name: 'résumé.txt' }).waitFor()
    t.equal((await app.inject({ url: '/api/raw/r%C3%A9sum%C3%A9.txt', headers: bearer(key) })).body, 'hello', 'restored')

    // 64 MiB, paused part way, resumed, read back byte for byte.
    const large = randomBytes(64 * 1024 * 1024)
    const largePath = join(fixture.folder, `large-${driver}.bin`)
    await writeFile(largePath, large)
    // The browser's network slowed (DevTools' throttling), so that the pause comes part way on any machine.
    const devtools = await context.newCDPSession(page)
    const throttle = (bytesPerSecond: number) => devtools.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond })
    await devtools.send('Network.enable')
    await throttle(4 * 1024 * 1024)
    const chosenLarge = page.waitForEvent('filechooser')
    await page.getByRole('button', { name: 'Upload', exact: true }).click()
    await (await chosenLarge).setFiles(largePath)
    const progress = page.getByRole('progressbar', { name: `Uploading large-${driver}.bin` })
    await page.waitForFunction(() => Number(document.querySelector('progress[aria-label^="Uploading large"]')?.getAttribute('value')) > 0)
    // Progress redraws its row many times a second; the click need not wait for a still frame.
    await page.getByRole('button', { name: 'Pause' }).click({ force: true })
    const pausedAt = Number(await progress.getAttribute('value'))
    t.ok(pausedAt > 0 && pausedAt < large.length, `paused part way (${pausedAt} bytes)`)
    await throttle(-1)
    await page.getByRole('button', { name: 'Resume' }).click({ force: true })
    await table.getByRole('row', { name: `large-${driver}.bin` }).waitFor({ timeout: 120_000 })
    const readBack = await app.inject({ url: `/api/raw/large-${driver}.bin`, headers: bearer(key) })
    t.ok(readBack.rawPayload.equals(large), 'resumed to the end, byte for byte')

    // A name already taken asks: keep both, replace (that version only), or skip.
    const finished = page.getByRole('region', { name: 'Uploads' }).getByText('Uploaded', { exact: true })
    const uploadAgain = async (name: string, contents: string, choice: string) => {
      const before = await finished.count()
      const chosen = page.waitForEvent('filechooser')
      await page.getByRole('button', { name: 'Upload', exact: true }).click()
      await (await chosen).setFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(contents) })
      const question = page.getByRole('dialog', { name: `${name} is already here` })
      if (choice === 'Keep both') a11y.taken = await accessibilityProblems(page)
      await question.getByRole('button', { name: choice }).click()
      if (choice !== 'Skip') await finished.nth(before).waitFor()
    }
    await uploadAgain('résumé.txt', 'second', 'Keep both')
    await table.getByRole('row', { name: 'résumé (1).txt' }).waitFor()
    await uploadAgain('résumé.txt', 'third', 'Replace')
    const read = (path: string) => app.inject({ url: `/api/raw/${encodeURIComponent(path)}`, headers: bearer(key) }).then((answer) => answer.body)
    t.same([await read('résumé.txt'), await read('résumé (1).txt')], ['third', 'second'], 'kept beside, then replaced')
    await uploadAgain('notes.txt', 'never sent', 'Skip')
    t.equal(await read('notes.txt'), 'contents of notes.txt', 'skipped')

    // Rename a file, move a folder (by its path from My files), open a new folder.
    await table.getByRole('link', { name: 'docs/' }).click()
    await fromRowMenu(table, 'Rename', 'report.pdf')
    a11y.dialog = await accessibilityProblems(page)
    await page.getByRole('dialog', { name: 'Rename report.pdf' }).getByLabel('New name').fill('summary.pdf')
    await page.getByRole('dialog').getByRole('button', { name: 'Rename' }).click()
    await table.getByRole('row', { name: 'summary.pdf' }).waitFor()
    t.equal((await app.inject({ url: '/api/raw/docs/summary.pdf', headers: bearer(key) })).body, 'contents of docs/report.pdf', 'renamed on the server')
    await fromRowMenu(table, 'Move', 'deep')
    await page.getByRole('dialog', { name: 'Move deep' }).getByLabel('Move to').fill('archive/deep')
    await page.getByRole('dialog').getByRole('button', { name: 'Move' }).click()
    await table.getByRole('row', { name: 'deep' }).waitFor({ state: 'detached' })
    t.equal((await app.inject({ url: '/api/raw/archive/deep/old.txt', headers: bearer(key) })).body, 'contents of docs/deep/old.txt', 'the folder moved')
    await page.getByRole('button', { name: 'New folder' }).click()
    await page.getByRole('dialog', { name: 'New folder' }).getByLabel('Folder name').fill('empty')
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click()
    await page.getByText(/^This folder is empty\./).waitFor()
    t.equal(new URL(page.url()).pathname, '/console/files/docs/empty/')
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: 'My files' }).click()

    // The trash: restore one, purge one.
    const consoleNav = page.getByRole('navigation', { name: 'Console' })
    await fromRowMenu(table, 'Delete', 'notes.txt')
    await table.getByRole('row', { name: 'notes.txt' }).waitFor({ state: 'detached' })
    await consoleNav.getByRole('link', { name: 'Trash' }).click()
    t.equal(new URL(page.url()).pathname, '/console/trash')
    a11y.trash = await accessibilityProblems(page)
    if (driver === 'fs') await screenshot(page, 'trash')
    await table.getByRole('button', { name: 'Restore notes.txt' }).click()
    await page.getByText('The trash is empty.').waitFor()
    t.equal((await app.inject({ url: '/api/raw/notes.txt', headers: bearer(key) })).body, 'contents of notes.txt', 'restored where it was')
    await app.inject({ method: 'DELETE', url: '/api/raw/notes.txt', headers: bearer(key) })
    await page.reload()
    await table.getByRole('button', { name: 'Purge notes.txt' }).click()
    await page.getByText('The trash is empty.').waitFor()
    t.same((await app.inject({ url: '/api/trash', headers: bearer(key) })).json().items, [], 'purged')

    // API keys: the new secret is shown once, copied, works, and is revoked.
    await consoleNav.getByRole('link', { name: 'API keys' }).click()
    await page.getByLabel('Name').fill('laptop')
    await page.getByLabel('Expires').selectOption({ label: 'in 30 days' })
    await page.getByRole('button', { name: 'Create key' }).click()
    const secret = (await page.getByRole('status').locator('output').textContent())!
    const laptop = ((await app.inject({ url: '/api/keys', headers: bearer(key) })).json() as { keys: Array<{ name: string, expiresAt: string | null }> }).keys.find((made) => made.name === 'laptop')
    const days = (new Date(laptop!.expiresAt!).getTime() - Date.now()) / 86_400_000
    t.ok(days > 29.9 && days <= 30, `the key expires in 30 days (${days.toFixed(2)})`)
    await page.getByRole('button', { name: 'Copy' }).click()
    await page.getByRole('button', { name: 'Copied' }).waitFor()
    t.equal(await page.evaluate(() => navigator.clipboard.readText()), secret, 'the copy button copies the secret')
    a11y.keys = await accessibilityProblems(page)
    if (driver === 'fs') await screenshot(page, 'keys')
    t.equal((await app.inject({ url: '/api/usage', headers: bearer(secret) })).statusCode, 200, 'the new key works')
    const davAddress = (await page.getByLabel('WebDAV address').textContent())!
    t.equal(davAddress, `${url}/dav/`, 'where a file manager connects, said beside the new key')
    const mounted = await app.inject({ method: 'PROPFIND' as 'GET', url: '/dav/', headers: { depth: '0', authorization: `Basic ${Buffer.from(`me:${secret}`).toString('base64')}` } })
    t.equal(mounted.statusCode, 207, 'with the key as the password')
    await table.getByRole('button', { name: 'Revoke laptop' }).click()
    await table.getByRole('row', { name: 'laptop' }).waitFor({ state: 'detached' })
    t.equal((await app.inject({ url: '/api/usage', headers: bearer(secret) })).statusCode, 401, 'revoked')
    await consoleNav.getByRole('link', { name: 'My files' }).click()
    await table.getByRole('row', { name: 'docs' }).waitFor()

    await page.goto(`${url}/console/files/archive/deep/`)
    await table.getByRole('row', { name: 'old.txt' }).waitFor()
    t.pass('a reloaded deep link keeps the tab\'s session and opens its folder')
    const stored = await page.evaluate(() => ({ local: localStorage.length, session: Object.keys(sessionStorage) }))
    t.same(stored, { local: 0, session: ['stowage.session'] }, 'the token is kept in this tab only')

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('button', { name: 'Sign in with an API key' }).waitFor()
    t.same(await page.evaluate(() => sessionStorage.length), 0, 'signing out forgets it')
    t.same(a11y, { 'sign-in': [], files: [], share: [], taken: [], dialog: [], trash: [], keys: [] }, 'axe-core finds no serious or critical violation on any view')
    // The browser reports the refused key's 401 itself; nothing else may appear.
    t.same(problems.filter((text) => !/status of 401/.test(text)), [], 'no script error, no missing file and no Content-Security-Policy violation')

    const asset = /assets\/[^"]+\.js/.exec(await (await fetch(`${url}/console/`)).text())![0]
    const cached = await fetch(`${url}/console/${asset}`)
    t.equal(cached.status, 200)
    t.match(cached.headers.get('cache-control'), /max-age=31536000.*immutable/, 'hashed assets are cached for a year')
    t.equal((await fetch(`${url}/console`, { redirect: 'manual' })).headers.get('location'), '/console/')
  })
}

t.test('a host app can leave the console out, and a mount under a prefix or PUBLIC_URL\'s path has its page say where it is', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'stowage-console-'))
  const host = Fastify()
  await host.register(stowage, { prefix: '/files', database: { url: 'sqlite::memory:' }, storage: { driver: 'fs', dir }, console: { publicUrl: 'https://example.com/tools/' } })
  const bare = Fastify()
  await bare.register(stowage, { database: { url: 'sqlite::memory:' }, storage: { driver: 'fs', dir }, routes: { console: false } })
  t.teardown(async () => {
    await Promise.all([host.close(), bare.close()])
    await rm(dir, { recursive: true, force: true })
  })
  const page = await host.inject({ url: '/files/console/files/a/' })
  t.equal(page.statusCode, 200)
  t.match(page.body, '<base href="/tools/files/console/">')
  t.equal(page.headers['cache-control'], 'no-cache')
  t.equal((await bare.inject({ url: '/console/' })).statusCode, 404, 'routes.console: false')
})

t.test('the first load carries at most 150 KiB of compressed JavaScript', async (t) => {
  const built = new URL('../dist/console/', import.meta.url)
  const page = await readFile(new URL('index.html', built), 'utf8')
  const scripts = [...page.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.js)"/g)].map((match) => match[1])
  t.ok(scripts.length > 0, 'the page loads its script')
  let compressed = 0
  for (const script of scripts) compressed += gzipSync(await readFile(new URL(script, built)), { level: 9 }).length
  t.ok(compressed <= 150 * 1024, `${(compressed / 1024).toFixed(1)} KiB of gzip-compressed JavaScript`)
})
