// The web console (issue 25): from navigation to the first row of a folder, in Debian's Chromium.
import { launchBrowser } from '../test/helpers/chromium.js'

/** `count` small files under `prefix`, 32 at a time. */
export async function fillFolder (base: string, headers: Record<string, string>, prefix: string, count: number) {
  let next = 0
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const answer = await fetch(`${base}/api/raw/${prefix}${String(i).padStart(5, '0')}.txt`, { method: 'PUT', headers, body: `file ${i}` })
      if (!answer.ok) throw new Error(`PUT: ${answer.status}`)
    }
  }
  await Promise.all(Array.from({ length: 32 }, worker))
}

/**
 * Milliseconds from navigating to each folder (a deep link, the page not cached) to its first row
 * drawn, to its first page (100 rows, or all it has) drawn, and to its second page of rows after
 * "Show more": the median of `rounds`, per folder.
 */
export async function timeToFirstRow (base: string, apiKey: string, prefixes: string[], rounds = 7) {
  const { browser, close } = await launchBrowser()
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]
  try {
    const results: Record<string, { firstRow: number, firstPage: number, nextPage: number }> = {}
    for (const prefix of prefixes) {
      const firstRow: number[] = []
      const firstPage: number[] = []
      const nextPage: number[] = []
      for (let round = 0; round < rounds; round++) {
        const context = await browser.newContext()
        // Signed in as the tab would be after entering the key.
        await context.addInitScript((token) => sessionStorage.setItem('stowage.session', JSON.stringify({ method: 'key', token })), apiKey)
        const page = await context.newPage()
        const started = performance.now()
        await page.goto(`${base}/console/files/${prefix}`)
        await page.getByRole('row').nth(1).waitFor()
        firstRow.push(performance.now() - started)
        // The first page whole: "Show more" under it, or the folder's last row.
        await page.locator('tbody tr').nth(99).or(page.getByRole('button', { name: 'Show more' })).first().waitFor()
        firstPage.push(performance.now() - started)
        const more = page.getByRole('button', { name: 'Show more' })
        if (await more.count()) {
          const rows = await page.getByRole('row').count()
          const asked = performance.now()
          await more.click()
          await page.getByRole('row').nth(rows).waitFor()
          nextPage.push(performance.now() - asked)
        }
        await context.close()
      }
      results[prefix] = { firstRow: median(firstRow), firstPage: median(firstPage), nextPage: nextPage.length ? median(nextPage) : NaN }
    }
    return results
  } finally {
    await close()
  }
}
