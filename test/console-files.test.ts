import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { waitFor } from './helpers/wait.js'
import { bearer, buildTestApp, type TestApp } from './helpers/app.js'
import { accessibilityProblems, browserFixture, noBrowser as skip, pageProblems, screenshot, signInWithKey, fromRowMenu } from './helpers/browser.js'

// The console with folders: dropped in, previewed, copied, zipped, deleted several at once; by
// keyboard and on a phone's width. In Debian's Chromium, on fs and on S3.
const fixture = await browserFixture()

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
/** The console served by `app`, in a fresh browser context signed in with `key`; the page's script
 *  errors and policy violations gathered as they come. */
async function signedIn (t: Test, app: TestApp['app'], key: string) {
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const context = await fixture.browser!.newContext()
  t.teardown(() => context.close())
  const page = await context.newPage()
  const problems = pageProblems(page)
  await signInWithKey(page, url, key)
  return { context, page, problems }
}

// A 1×1 PNG.
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

for (const driver of ['fs', 's3'] as const) {
  t.test(`${driver}: a person drops a folder in (its structure kept), previews text, a picture and audio, copies, downloads a folder as a zip, deletes several at once and undoes it, by keyboard and 360 px wide`, { skip }, async (t) => {
    const { app, close } = await buildTestApp({ driver, s3: fixture.s3 })
    t.teardown(close)
    const { key } = await app.stowageKeys.create({ userId: 'dana', orgId: null })
    const fixtures: Record<string, Buffer> = { 'notes.md': Buffer.from('# Plans\n\n- ship the console\n'), 'pixel.png': PIXEL, 'tone.wav': silence(1), 'docs/a.txt': Buffer.from('a'), 'docs/b/c.txt': Buffer.from('c') }
    for (const [path, body] of Object.entries(fixtures)) {
      t.equal((await app.inject({ method: 'PUT', url: `/api/raw/${path}`, headers: bearer(key), payload: body })).statusCode, 200)
    }
    const read = async (path: string) => (await app.inject({ url: `/api/raw/${path}`, headers: bearer(key) })).rawPayload
    const { context, page, problems } = await signedIn(t, app, key)
    const table = page.getByRole('table')
    await table.getByRole('row', { name: 'notes.md' }).waitFor()

    // A folder dropped on the page, as the system's file manager drops one (DevTools' drag events).
    const dropped = await mkdtemp(join(fixture.folder, 'trip-'))
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
    await fromRowMenu(table, 'Copy', 'notes.md')
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
    // The folder's row is back with its first file; the rest of its files follow.
    await waitFor(async () => String(await read('docs/b/c.txt')) === 'c', { what: 'docs/b/c.txt restored' })
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
    await page.getByText(/^This folder is empty\./).waitFor()
    t.equal(new URL(page.url()).pathname, '/console/files/typed/')
    await page.goBack()
    await table.getByRole('row', { name: 'notes.md' }).waitFor()
    await table.getByRole('link', { name: 'typed/' }).waitFor()
    t.same((await app.inject({ url: '/api/files?delimiter=/&prefix=typed/', headers: bearer(key) })).json(), { files: [], folders: [], isTruncated: false },
      'the new folder persists, empty')

    // Versions: the file replaced twice, its earlier versions listed with their dates and sizes, one
    // downloaded and one made the file again by keyboard; the usage line counts them.
    for (const text of ['# Plans v2\n', '# Plans v3\n']) {
      t.equal((await app.inject({ method: 'PUT', url: '/api/raw/notes.md', headers: bearer(key), payload: text })).statusCode, 200)
    }
    await page.reload()
    await page.getByText(/of it earlier versions/).waitFor()
    await fromRowMenu(table, 'Versions', 'notes.md')
    const versions = page.getByRole('dialog', { name: 'Versions of notes.md' })
    await versions.getByRole('button', { name: /^Restore the version/ }).nth(1).waitFor()
    t.equal(await versions.getByRole('row').count(), 3, 'a header and two earlier versions, newest first')
    if (driver === 'fs') await screenshot(page, 'versions')
    const versionProblems = await accessibilityProblems(page)
    const [saved] = await Promise.all([page.waitForEvent('download'), versions.getByRole('button', { name: /^Download the version/ }).first().click()])
    t.equal(await readFile(await saved.path(), 'utf8'), '# Plans v2\n', 'the newest earlier version, downloaded')
    await versions.getByRole('button', { name: /^Restore the version/ }).nth(1).focus()
    await page.keyboard.press('Enter')
    await versions.getByRole('status').waitFor()
    t.equal(String(await read('notes.md')), fixtures['notes.md'].toString(), 'the first version is the file again')
    await versions.getByRole('button', { name: /^Restore the version/ }).nth(2).waitFor()
    t.equal(await versions.getByRole('row').count(), 4, 'and the file it replaced is a version too')
    await page.keyboard.press('Escape')
    await versions.waitFor({ state: 'detached' })

    // The folder follows changes made elsewhere: a file written through the API (as the CLI would)
    // appears without a reload, woken by the change journal.
    t.equal((await app.inject({ method: 'PUT', url: '/api/raw/from-elsewhere.txt', headers: bearer(key), payload: 'hello' })).statusCode, 200)
    await table.getByRole('row', { name: 'from-elsewhere.txt' }).waitFor({ timeout: 10_000 })

    // A phone's width: nothing wider than the screen, and a row's actions still there.
    await page.setViewportSize({ width: 360, height: 740 })
    if (driver === 'fs') await screenshot(page, 'phone')
    t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), 'no sideways scrolling at 360 px')
    await table.getByRole('button', { name: 'More actions for notes.md', exact: true }).click()
    t.ok(await table.getByRole('menuitem', { name: 'Delete notes.md', exact: true }).isVisible(), 'row actions stay reachable, in the row\'s menu')
    await page.keyboard.press('Escape')
    const nav = page.getByRole('navigation', { name: 'Console' })
    for (const view of ['Trash', 'API keys']) {
      await nav.getByRole('link', { name: view }).click()
      await page.getByRole('heading', { name: view, level: 1 }).waitFor()
      t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), `${view}: no sideways scrolling at 360 px`)
    }
    t.same({ preview: previewProblems, versions: versionProblems, narrow: await accessibilityProblems(page) }, { preview: [], versions: [], narrow: [] }, 'axe-core finds no serious or critical violation')
    t.same(problems, [], 'no script error and no Content-Security-Policy violation')
  })
}

t.test('a folder sorted by size is sorted whole, not the page shown; a search finds files by name under the folder', { skip }, async (t) => {
  const { app, close } = await buildTestApp()
  t.teardown(close)
  const { key } = await app.stowageKeys.create({ userId: 'sorter', orgId: null })
  // 120 files, the smallest last by name: past the first page of 100.
  const names = Array.from({ length: 120 }, (_, i) => `f${String(i).padStart(3, '0')}.txt`)
  for (let i = 0; i < names.length; i += 10) {
    await Promise.all(names.slice(i, i + 10).map((name, j) => app.inject({ method: 'PUT', url: `/api/raw/${name}`, headers: bearer(key), payload: 'x'.repeat(i + j === 119 ? 1 : 200 + i + j) })))
  }
  const { page, problems } = await signedIn(t, app, key)
  const table = page.getByRole('table', { name: 'My files' })
  await table.getByRole('row', { name: 'f000.txt' }).waitFor()
  t.equal(await table.getByRole('row', { name: 'f119.txt' }).count(), 0, 'the first page holds the first 100 names')

  await table.getByRole('button', { name: 'Size' }).click()
  await waitFor(async () => (await table.getByRole('row').nth(1).getAttribute('aria-label')) === 'f119.txt')
  t.pass('the smallest file of the whole folder comes first')
  await table.getByRole('button', { name: 'Size' }).click()
  await waitFor(async () => (await table.getByRole('row').nth(1).getAttribute('aria-label')) === 'f118.txt')
  t.pass('and the largest, sorted the other way')

  await page.getByRole('searchbox', { name: 'Search My files' }).fill('F11')
  await page.keyboard.press('Enter')
  const found = page.getByRole('table', { name: 'Found by “F11”' })
  await found.getByRole('row', { name: 'f119.txt' }).waitFor()
  t.equal(await found.getByRole('row').count(), 11, 'a heading row and the ten files whose name holds the text, in any case')
  await page.getByRole('button', { name: 'Back to the folder' }).click()
  await table.getByRole('row', { name: 'f118.txt' }).waitFor()
  t.same(await accessibilityProblems(page), [], 'axe-core finds no serious or critical violation')
  t.same(problems, [], 'no script error and no Content-Security-Policy violation')
})
