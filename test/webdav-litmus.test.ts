import t from 'tap'
import { run } from './helpers/s3-clients.js'
import { startS3Server } from './helpers/s3.js'
import { startService } from './helpers/service.js'

// litmus, the WebDAV conformance suite (Debian's package), run whole against a service process on
// each driver, with HTTP Basic and an API key as the password, as a file manager connects.
const SUITES = ['basic', 'copymove', 'props', 'locks', 'http']

t.setTimeout(360_000)
const s3 = await startS3Server()
t.teardown(() => s3.close())

for (const driver of ['fs', 's3'] as const) {
  t.test(`litmus passes whole on the ${driver} driver`, async (t) => {
    const service = await startService(t, { driver, s3 })
    const result = await run('litmus', [`${service.url}/dav/`, 'alice', service.key], { PATH: process.env.PATH, TESTS: SUITES.join(' ') })
    const summaries = result.stdout.split('\n').filter((line) => /^<- summary for `/.test(line))
    t.comment(summaries.join('\n'))
    t.equal(summaries.length, SUITES.length, `every suite ran:\n${result.stdout.slice(-3000)}`)
    for (const line of summaries) t.match(line, / 0 failed\. 100\.0%/, line)
    t.notMatch(result.stdout, /WARNING/, 'no warning')
    t.equal(result.status, 0, result.stdout.slice(-3000))
  })
}
