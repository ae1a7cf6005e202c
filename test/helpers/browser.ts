import { join } from 'node:path'
import { AxeBuilder } from '@axe-core/playwright'
import type { Browser, Locator, Page } from 'playwright-core'
import t from 'tap'
import { launchBrowser, noBrowser } from './chromium.js'
import { startS3Server, type S3Server } from './s3.js'

export { noBrowser }

/** axe-core's serious and critical violations on the page as it is (injected through the browser's
 *  debugging protocol, which the page's Content-Security-Policy does not govern). */
export async function accessibilityProblems (page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze()
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.nodes.length})`)
}

/** Collects what the page reports as going wrong while it shows `origin` (the service's, not the
 *  identity provider's pages): script errors, failed loads, Content-Security-Policy violations. */
export function pageProblems (page: Page, origin?: string): string[] {
  const problems: string[] = []
  page.on('console', (message) => {
    // A thumbnail of a file named as a picture that is not one: 415, and its row keeps its icon.
    if (/status of 415/.test(message.text()) && message.location().url.includes('/api/images/')) return
    if (message.type() === 'error' && (!origin || page.url().startsWith(origin))) problems.push(message.text())
  })
  page.on('pageerror', (error) => problems.push(error.message))
  return problems
}

/** With STOWAGE_SCREENSHOTS=<folder> (README's pictures: `STOWAGE_SCREENSHOTS=docs npx tap test/console.test.ts`),
 *  the page as it is, light and dark, as <folder>/console-<name>-light.png and -dark.png. */
export async function screenshot (page: Page, name: string) {
  const folder = process.env.STOWAGE_SCREENSHOTS
  if (!folder) return
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    await page.screenshot({ path: join(folder, `console-${name}-${colorScheme}.png`) })
  }
  await page.emulateMedia({ colorScheme: null })
}

/** Chromium for a test file, and s3rver for its S3 runs: started before its tests, stopped after them. */
export interface BrowserFixture { s3?: S3Server, browser?: Browser, folder: string }

export async function browserFixture (): Promise<BrowserFixture> {
  const fixture: BrowserFixture = { folder: '' }
  if (noBrowser) return fixture
  fixture.s3 = await startS3Server()
  t.before(async () => {
    const launched = await launchBrowser()
    t.teardown(launched.close)
    Object.assign(fixture, { browser: launched.browser, folder: launched.folder })
  })
  t.teardown(() => fixture.s3?.close())
  return fixture
}

/** Opens the console at `url` and signs in with `key`, as a person types it. */
export async function signInWithKey (page: Page, url: string, key: string) {
  await page.goto(`${url}/console/`)
  await page.getByLabel('API key').fill(key)
  await page.getByLabel('API key').press('Enter')
  await page.locator('table.files, ul.grid').first().waitFor()
}

/** Every word shown in `selector` that the page breaks across two lines (a Range over a word has one
 *  box per line it is drawn on): "Rest/ore", "12/28/20/26". */
export async function splitWords (page: Page, selector = 'main, dialog[open]'): Promise<string[]> {
  return await page.evaluate((selector) => {
    const split: string[] = []
    for (const root of document.querySelectorAll(selector)) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT)
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const element = node.parentElement
        if (!element || element.getClientRects().length === 0 || getComputedStyle(element).textOverflow === 'ellipsis') continue
        for (const match of (node.textContent ?? '').matchAll(/\S+/g)) {
          const range = document.createRange()
          range.setStart(node, match.index)
          range.setEnd(node, match.index + match[0].length)
          const lines = new Set([...range.getClientRects()].filter((box) => box.width > 0).map((box) => Math.round(box.top)))
          if (lines.size > 1) split.push(match[0])
        }
      }
    }
    return split
  }, selector)
}

/** A row's action from its menu ("More actions for <name>"), opened as a person opens it. */
export async function fromRowMenu (table: Locator, action: string, name: string) {
  await table.getByRole('button', { name: `More actions for ${name}`, exact: true }).click()
  await table.getByRole('menuitem', { name: `${action} ${name}`, exact: true }).click()
}
