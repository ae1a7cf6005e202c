import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import Fastify from 'fastify'
import t from 'tap'
import type { Browser } from 'playwright-core'
import { stowage } from '../plugins/stowage.js'
import { bearer, buildTestApp } from './helpers/app.js'
import { accessibilityProblems, launchBrowser, noBrowser as skip, pageProblems, screenshot } from './helpers/browser.js'
import { startS3Server } from './helpers/s3.js'

const s3 = skip ? undefined : await startS3Server()
let browser: Browser | undefined
let profiles = ''
t.before(async () => {
  if (skip) return
  const launched = await launchBrowser()
  t.teardown(launched.close)
  ;({ browser, folder: profiles } = launched)
})
t.teardown(async () => { await s3?.close() })

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

    const context = await browser!.newContext()
    t.teardown(() => context.close())
    const page = await context.newPage()
    const problems = pageProblems(page)

    const answer = await page.goto(`${url}/console/`)
    t.match(answer!.headers()['content-security-policy'], /script-src 'self';.*frame-ancestors 'none'/)
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
    t.equal(await table.getByRole('row').nth(1).getAttribute('aria-label'), 'photo.jpg', 'sorted by size, largest first')
    await table.getByRole('button', { name: /^Name/ }).click()

    // Download through a signed link: Stowage's own downloads, a store's opens in a tab.
    const downloaded = driver === 'fs'
      ? await readFile(await (await Promise.all([page.waitForEvent('download'), table.getByRole('button', { name: 'Download photo.jpg' }).click()]))[0].path())
      : Buffer.from(await (await fetch((await Promise.all([page.waitForEvent('popup'), table.getByRole('button', { name: 'Download photo.jpg' }).click()]))[0].url())).arrayBuffer())
    t.ok(downloaded.equals(photo), 'the downloaded bytes are the file\'s')

    // Share: a download link, copied, opened in a fresh browser context with no credentials.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    await table.getByRole('button', { name: 'Share photo.jpg' }).click()
    const share = page.getByRole('dialog', { name: 'Share photo.jpg' })
    await share.getByLabel('For').selectOption({ label: 'An hour' })
    await share.getByRole('button', { name: 'Create link' }).click()
    await share.getByRole('button', { name: 'Copy link' }).click()
    await share.getByRole('button', { name: 'Copied' }).waitFor()
    const shared = await page.evaluate(() => navigator.clipboard.readText())
    t.equal(shared, await share.getByLabel('Link').textContent())
    a11y.share = await accessibilityProblems(page)
    if (driver === 'fs') await screenshot(page, 'share')
    await share.getByRole('button', { name: 'Close' }).click()
    const stranger = await browser!.newContext()
    const opened = await (await stranger.newPage()).goto(shared)
    t.ok((await opened!.body()).equals(photo), 'the shared link serves the file to someone signed in nowhere')
    await stranger.close()

    // Delete into the trash, then Undo.
    await table.getByRole('button', { name: 'Delete résumé.txt' }).click()
    await page.getByRole('status').filter({ hasText: 'résumé.txt is in the trash' }).waitFor()
    await table.getByRole('row', { name: 'résumé.txt' }).waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Undo' }).click()
    await table.getByRole('row', { name: 'résumé.txt' }).waitFor()
    t.equal((await app.inject({ url: '/api/raw/r%C3%A9sum%C3%A9.txt', headers: bearer(key) })).body, 'hello', 'restored')

    // 64 MiB, paused part way, resumed, read back byte for byte.
    const large = randomBytes(64 * 1024 * 1024)
    const largePath = join(profiles, `large-${driver}.bin`)
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
    await table.getByRole('button', { name: 'Rename report.pdf' }).click()
    a11y.dialog = await accessibilityProblems(page)
    await page.getByRole('dialog', { name: 'Rename report.pdf' }).getByLabel('New name').fill('summary.pdf')
    await page.getByRole('dialog').getByRole('button', { name: 'Rename' }).click()
    await table.getByRole('row', { name: 'summary.pdf' }).waitFor()
    t.equal((await app.inject({ url: '/api/raw/docs/summary.pdf', headers: bearer(key) })).body, 'contents of docs/report.pdf', 'renamed on the server')
    await table.getByRole('button', { name: 'Move deep' }).click()
    await page.getByRole('dialog', { name: 'Move deep' }).getByLabel('Move to').fill('archive/deep')
    await page.getByRole('dialog').getByRole('button', { name: 'Move' }).click()
    await table.getByRole('row', { name: 'deep' }).waitFor({ state: 'detached' })
    t.equal((await app.inject({ url: '/api/raw/archive/deep/old.txt', headers: bearer(key) })).body, 'contents of docs/deep/old.txt', 'the folder moved')
    await page.getByRole('button', { name: 'New folder' }).click()
    await page.getByRole('dialog', { name: 'New folder' }).getByLabel('Folder name').fill('empty')
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click()
    await page.getByText('This folder is empty.').waitFor()
    t.equal(new URL(page.url()).pathname, '/console/files/docs/empty/')
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: 'My files' }).click()

    // The trash: restore one, purge one.
    const consoleNav = page.getByRole('navigation', { name: 'Console' })
    await table.getByRole('button', { name: 'Delete notes.txt' }).click()
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
    await page.getByRole('button', { name: 'Create key' }).click()
    const secret = (await page.getByRole('status').locator('output').textContent())!
    await page.getByRole('button', { name: 'Copy' }).click()
    await page.getByRole('button', { name: 'Copied' }).waitFor()
    t.equal(await page.evaluate(() => navigator.clipboard.readText()), secret, 'the copy button copies the secret')
    a11y.keys = await accessibilityProblems(page)
    if (driver === 'fs') await screenshot(page, 'keys')
    t.equal((await app.inject({ url: '/api/usage', headers: bearer(secret) })).statusCode, 200, 'the new key works')
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

/** A WAV of `seconds` of silence (8 kHz, 8-bit, mono): a file a media element can play. */
function silence (seconds: number) {
  const samples = 8000 * seconds
  const header = Buffer.alloc(44)
  header.write('RIFF', 0); header.writeUInt32LE(36 + samples, 4); header.write('WAVEfmt ', 8)
  header.writeUInt32LE(16, 16); header.writeUInt16LE(1, 20); header.writeUInt16LE(1, 22)
  header.writeUInt32LE(8000, 24); header.writeUInt32LE(8000, 28); header.writeUInt16LE(1, 32); header.writeUInt16LE(8, 34)
  header.write('data', 36); header.writeUInt32LE(samples, 40)
  return Buffer.concat([header, Buffer.alloc(samples, 128)])
}
// A 1×1 PNG.
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: a person drops a folder in (its structure kept), previews text, a picture and audio, copies, downloads a folder as a zip, deletes several at once and undoes it, by keyboard and 360 px wide`, { skip }, async (t) => {
    const { app, close } = await buildTestApp({ driver, s3 })
    t.teardown(close)
    const { key } = await app.stowageKeys.create({ userId: 'dana', orgId: null })
    const fixtures: Record<string, Buffer> = { 'notes.md': Buffer.from('# Plans\n\n- ship the console\n'), 'pixel.png': PIXEL, 'tone.wav': silence(1), 'docs/a.txt': Buffer.from('a'), 'docs/b/c.txt': Buffer.from('c') }
    for (const [path, body] of Object.entries(fixtures)) {
      t.equal((await app.inject({ method: 'PUT', url: `/api/raw/${path}`, headers: bearer(key), payload: body })).statusCode, 200)
    }
    const read = async (path: string) => (await app.inject({ url: `/api/raw/${path}`, headers: bearer(key) })).rawPayload
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    const context = await browser!.newContext()
    t.teardown(() => context.close())
    const page = await context.newPage()
    const problems = pageProblems(page)
    await page.goto(`${url}/console/`)
    await page.getByLabel('API key').fill(key)
    await page.getByLabel('API key').press('Enter')
    const table = page.getByRole('table')
    await table.getByRole('row', { name: 'notes.md' }).waitFor()

    // A folder dropped on the page, as the system's file manager drops one (DevTools' drag events).
    const dropped = await mkdtemp(join(profiles, 'trip-'))
    await mkdir(join(dropped, 'trip', 'day 1'), { recursive: true })
    await writeFile(join(dropped, 'trip', 'plan.txt'), 'leave at nine')
    await writeFile(join(dropped, 'trip', 'day 1', 'photo.jpg'), PIXEL)
    // More files than the console sends at once: the rest wait their turn.
    for (const day of [2, 3, 4]) await writeFile(join(dropped, 'trip', `day ${day}.txt`), `day ${day}`)
    const devtools = await context.newCDPSession(page)
    const box = (await table.boundingBox())!
    for (const type of ['dragEnter', 'dragOver', 'drop'] as const) {
      await devtools.send('Input.dispatchDragEvent', { type, x: box.x + box.width / 2, y: box.y + box.height / 2, data: { items: [], files: [join(dropped, 'trip')], dragOperationsMask: 1 } })
    }
    await table.getByRole('link', { name: 'trip/' }).waitFor()
    await page.getByRole('region', { name: 'Uploads' }).getByText('Uploaded', { exact: true }).nth(4).waitFor()
    t.same([String(await read('trip/plan.txt')), (await read('trip/day%201/photo.jpg')).equals(PIXEL), String(await read('trip/day%204.txt'))], ['leave at nine', true, 'day 4'],
      'the folder and the folder inside it, each file where it was')
    if (driver === 'fs') await screenshot(page, 'files')
    await page.getByRole('button', { name: 'Clear finished' }).click()
    await page.getByRole('region', { name: 'Uploads' }).waitFor({ state: 'detached' })

    // Previews: text as text, the picture drawn, the audio played from a signed link with ranges.
    await table.getByRole('button', { name: 'notes.md', exact: true }).click()
    const preview = page.getByRole('dialog', { name: 'notes.md' })
    t.equal(await preview.getByLabel('Contents of notes.md').textContent(), '# Plans\n\n- ship the console\n')
    const previewProblems = await accessibilityProblems(page)
    if (driver === 'fs') await screenshot(page, 'preview')
    await preview.getByRole('button', { name: 'Close' }).click()
    await table.getByRole('button', { name: 'pixel.png', exact: true }).click()
    await page.waitForFunction(() => (document.querySelector('dialog img') as HTMLImageElement | null)?.naturalWidth === 1)
    await page.getByRole('dialog', { name: 'pixel.png' }).getByRole('button', { name: 'Close' }).click()
    const ranged = page.waitForResponse((response) => response.request().headers().range !== undefined && response.status() === 206)
    await table.getByRole('button', { name: 'tone.wav', exact: true }).click()
    await page.waitForFunction(() => Math.round((document.querySelector('dialog audio') as HTMLAudioElement | null)?.duration ?? 0) === 1)
    await ranged
    t.pass('the audio plays from its link, read by ranges')
    await page.getByRole('dialog', { name: 'tone.wav' }).getByRole('button', { name: 'Close' }).click()

    // Copy a file; download a folder as one zip.
    await table.getByRole('button', { name: 'Copy notes.md' }).click()
    await page.getByRole('dialog', { name: 'Copy notes.md' }).getByLabel('Copy to').fill('backup/notes.md')
    await page.getByRole('dialog').getByRole('button', { name: 'Copy' }).click()
    await table.getByRole('link', { name: 'backup/' }).waitFor()
    t.equal(String(await read('backup/notes.md')), String(fixtures['notes.md']), 'copied')
    t.equal(String(await read('notes.md')), String(fixtures['notes.md']), 'and still there')
    const [zip] = await Promise.all([page.waitForEvent('download'), table.getByRole('button', { name: 'Download docs' }).click()])
    t.equal(zip.suggestedFilename(), 'docs.zip')
    const zipped = await readFile((await zip.path())!)
    t.ok(zipped.subarray(0, 4).equals(Buffer.from('PK\x03\x04')) && zipped.includes('b/c.txt') && zipped.includes('a.txt'), 'a zip of the folder and the folder inside it')

    // Several at once: a file and a folder ticked, deleted into the trash, brought back by Undo.
    await table.getByRole('checkbox', { name: 'Select notes.md' }).check()
    await table.getByRole('checkbox', { name: 'Select docs' }).check()
    await page.getByRole('button', { name: 'Delete', exact: true }).click()
    await page.getByRole('status').filter({ hasText: '2 items are in the trash' }).waitFor()
    await table.getByRole('row', { name: 'docs' }).waitFor({ state: 'detached' })
    t.equal((await app.inject({ url: '/api/trash', headers: bearer(key) })).json().items.length, 3, 'the file, and the folder file by file')
    await page.getByRole('button', { name: 'Undo' }).click()
    await table.getByRole('row', { name: 'docs' }).waitFor()
    t.equal(String(await read('docs/b/c.txt')), 'c', 'restored where they were')

    // By keyboard: Tab moves along the toolbar, what has the focus shows it, Enter opens a dialog
    // with the focus inside it, and Enter there answers it.
    await page.getByRole('button', { name: 'Upload folder' }).focus()
    await page.keyboard.press('Tab')
    t.equal(await page.evaluate(() => document.activeElement?.textContent), 'New folder')
    t.not(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle), 'none', 'the focused control is outlined')
    await page.keyboard.press('Enter')
    await page.getByRole('dialog', { name: 'New folder' }).waitFor()
    t.equal(await page.evaluate(() => document.activeElement?.id), 'ask-value', 'the dialog has the focus')
    await page.keyboard.type('typed')
    await page.keyboard.press('Enter')
    await page.getByText('This folder is empty.').waitFor()
    t.equal(new URL(page.url()).pathname, '/console/files/typed/')
    await page.goBack()
    await table.getByRole('row', { name: 'notes.md' }).waitFor()

    // A phone's width: nothing wider than the screen, and a row's actions still there.
    await page.setViewportSize({ width: 360, height: 740 })
    if (driver === 'fs') await screenshot(page, 'phone')
    t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), 'no sideways scrolling at 360 px')
    t.ok(await table.getByRole('button', { name: 'Delete notes.md' }).isVisible(), 'row actions stay reachable')
    const nav = page.getByRole('navigation', { name: 'Console' })
    for (const view of ['Trash', 'API keys']) {
      await nav.getByRole('link', { name: view }).click()
      await page.getByRole('heading', { name: view, level: 1 }).waitFor()
      t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), `${view}: no sideways scrolling at 360 px`)
    }
    t.same({ preview: previewProblems, narrow: await accessibilityProblems(page) }, { preview: [], narrow: [] }, 'axe-core finds no serious or critical violation')
    t.same(problems, [], 'no script error and no Content-Security-Policy violation')
  })
}

t.test('each refusal says what the person can do: 507 over quota, 412 changed meanwhile, 503 storage down, 401 sign in again', { skip }, async (t) => {
  const { app, close } = await buildTestApp({ driver: 's3', s3, env: { QUOTA_BYTES: '4096', S3_TIMEOUT_MS: '1000', S3_CONNECT_TIMEOUT_MS: '500' } })
  t.teardown(close)
  const { id, key } = await app.stowageKeys.create({ userId: 'erin', orgId: null })
  t.equal((await app.inject({ method: 'PUT', url: '/api/raw/draft.txt', headers: bearer(key), payload: 'first draft' })).statusCode, 200)
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const page = await (await browser!.newContext()).newPage()
  t.teardown(() => page.context().close())
  await page.goto(`${url}/console/`)
  await page.getByLabel('API key').fill(key)
  await page.getByLabel('API key').press('Enter')
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

  // Changed by someone else after the page listed it: Replace sends If-Match, and is refused.
  t.equal((await app.inject({ method: 'PUT', url: '/api/raw/draft.txt', headers: bearer(key), payload: 'their draft' })).statusCode, 200)
  await upload('draft.txt', Buffer.from('my draft'))
  await page.getByRole('dialog', { name: 'draft.txt is already here' }).getByRole('button', { name: 'Replace' }).click()
  await uploads.getByRole('alert').filter({ hasText: 'Someone changed this file since you opened it: reload and try again.' }).waitFor()
  t.equal((await app.inject({ url: '/api/raw/draft.txt', headers: bearer(key) })).body, 'their draft', 'their change stands')

  s3!.pause()
  try {
    await table.getByRole('button', { name: 'draft.txt', exact: true }).click()
    await page.getByRole('dialog', { name: 'draft.txt' }).getByRole('alert').filter({ hasText: 'The service is busy or its storage is down: try again in a moment.' }).waitFor()
  } finally {
    s3!.resume()
  }
  await page.getByRole('dialog', { name: 'draft.txt' }).getByRole('button', { name: 'Close' }).click()

  await app.stowageKeys.revoke('erin', id)
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Trash' }).click()
  await page.getByRole('alert').filter({ hasText: 'Your session has ended: sign in again.' }).waitFor()
  await page.getByRole('button', { name: 'Sign in with an API key' }).waitFor()
  t.equal(await page.evaluate(() => sessionStorage.length), 0, 'the refused session is forgotten')
})

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
