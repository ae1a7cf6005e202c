import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'

// Debian's chromium, which .ci/run installs as it installs nginx; playwright-core downloads nothing.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Why Chromium cannot run here, or false. */
export const noBrowser: string | false = existsSync(CHROMIUM) ? false : `needs Chromium at ${CHROMIUM} (apt-get install chromium)`

/** Chromium, with its profile and downloads in a temporary folder that close() removes (for the
 *  browser tests and the console's bench). */
export async function launchBrowser (): Promise<{ browser: Browser, folder: string, close: () => Promise<void> }> {
  if (noBrowser) throw new Error(noBrowser)
  const folder = await mkdtemp(join(tmpdir(), 'stowage-chromium-'))
  // As root the sandbox cannot start.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], downloadsPath: folder })
  return { browser, folder, close: async () => { await browser.close(); await rm(folder, { recursive: true, force: true }) } }
}
