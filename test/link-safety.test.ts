import t from 'tap'
import { bearer, buildTestApp } from './helpers/app.js'
import { browserFixture, noBrowser as skip } from './helpers/browser.js'

// What a browser does with a link to a file that would run: downloads it, and runs nothing, in
// Debian's Chromium, on both drivers and both LINKS_VIA modes (S3 presigned URLs, links served by Stowage).
const fixture = await browserFixture()

const ACTIVE = [
  { name: 'page.html', type: 'text/html', body: '<!doctype html><h1>Hello</h1><script>console.log("stowage-ran page.html")</script>' },
  { name: 'image.svg', type: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg"><script>console.log("stowage-ran image.svg")</script></svg>' },
  { name: 'data.xml', type: 'application/xml', body: '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><script>console.log("stowage-ran data.xml")</script></html>' }
]

for (const driver of ['fs', 's3'] as const) {
  for (const via of ['store', 'stowage'] as const) {
    t.test(`${driver}, LINKS_VIA=${via}: a download link to HTML, SVG or XML downloads the file and runs nothing`, { skip }, async (t) => {
      const { app, close } = await buildTestApp({ driver, s3: fixture.s3, env: { LINKS_VIA: via } })
      t.teardown(close)
      const { key } = await app.stowageKeys.create({ userId: 'mallory', orgId: null })
      const base = await app.listen({ port: 0, host: '127.0.0.1' })
      const context = await fixture.browser!.newContext({ acceptDownloads: true })
      t.teardown(() => context.close())
      const page = await context.newPage()
      const ran: string[] = []
      page.on('console', (message) => { if (message.text().startsWith('stowage-ran')) ran.push(message.text()) })
      for (const file of ACTIVE) {
        const put = await app.inject({ method: 'PUT', url: `/api/raw/${file.name}`, headers: { ...bearer(key), 'content-type': file.type }, payload: file.body })
        t.equal(put.statusCode, 200)
        const link = await fetch(`${base}/api/links`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify({ path: file.name, method: 'download' }) })
        t.equal(link.status, 201)
        const { url } = await link.json() as { url: string }
        if (driver === 's3' && via === 'store') t.ok(url.startsWith(fixture.s3!.endpoint), `${file.name}: presigned, straight to the store`)
        const downloaded = page.waitForEvent('download')
        await page.goto(url).catch(() => { /* a navigation that turns into a download is reported as failed */ })
        const download = await downloaded
        t.equal(download.suggestedFilename(), file.name, `${file.name}: downloaded under its name`)
        t.equal(await (await download.createReadStream()).toArray().then((chunks) => Buffer.concat(chunks).toString()), file.body, `${file.name}: its bytes`)
      }
      t.same(ran, [], 'no file ran a script')
    })
  }
}
