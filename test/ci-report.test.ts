import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const folder = await mkdtemp(join(tmpdir(), 'stowage-ci-'))
t.teardown(() => rm(folder, { recursive: true, force: true }))

/** `.ci/failures STAGE LOG`, as .ci/run calls it for each stage. */
async function failures (log: string) {
  const path = join(folder, 'stage.log')
  await writeFile(path, log)
  const run = spawnSync('bash', ['.ci/failures', 'the suite again on PostgreSQL', path], { encoding: 'utf8' })
  t.equal(run.status, 0, run.stderr)
  return run.stdout
}

t.test('a failed tap run is reported by its stage, test file, subtest and first failing assertion: where, and what was wanted and found', async (t) => {
  // A real tap run, as CI's stages run it: the reporter a pipe gets.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('TAP')))
  const tap = spawnSync(process.execPath, ['node_modules/.bin/tap', '--disable-coverage', 'test/fixtures/failing-suite.ts'], { encoding: 'utf8', env })
  t.not(tap.status, 0, 'the fixture fails')
  const report = await failures(tap.stdout + tap.stderr)
  t.match(report, /^\[the suite again on PostgreSQL\]\n/, 'the stage first')
  t.match(report, /not ok \d+ - test\/fixtures\/failing-suite\.ts/, 'the test file')
  t.match(report, /not ok \d+ - uploads keep their bytes/, 'the subtest')
  t.match(report, /not ok \d+ - the bytes read back are the bytes sent\n\s+fileName: test\/fixtures\/failing-suite\.ts\n\s+lineNumber: 6\n\s+-sent\n\s+\+received\n/, 'the assertion: where, and what was wanted and found')
  t.notMatch(report, /a passing subtest/, 'nothing that passed')
  t.ok(report.split('\n').length <= 42, 'a few lines, not the whole log')
})

t.test('a stage that stopped before tap summed up is reported with its last lines', async (t) => {
  const report = await failures('> stowage@0.1.0 prepare\nsrc/app.ts(3,1): error TS2304: Cannot find name \'x\'.\nnpm error code 2\n')
  t.match(report, /^\[the suite again on PostgreSQL\] ended without tap's summary; its last lines:\n[^]*error TS2304/)
})

t.test('a stage whose tests passed reports nothing', async (t) => {
  t.equal(await failures('TAP version 14\nok 1 - test/a.test.ts\n1..1\n# { total: 3, pass: 3 }\n'), '')
})

t.test('what a run cost: each stage\'s time, their sum, and the ten slowest test files with their stages', async (t) => {
  const files = Array.from({ length: 12 }, (_, index) => `ok ${index + 1} - test/f${index}.test.ts # time=${(index + 1) * 1000}.5ms`)
  await writeFile(join(folder, 'one.log'), ['TAP version 14', ...files.slice(0, 6), '    ok 1 - a subtest # time=999999ms', 'not ok 7 - test/failed.test.ts # time=30000ms'].join('\n'))
  await writeFile(join(folder, 'two.log'), files.slice(6).join('\n'))
  await writeFile(join(folder, 'times'), `1200\tnpm ci && npm test (SQLite, fs and s3 drivers)\t${join(folder, 'one.log')}\n600\tthe suite again on PostgreSQL, but for .ci/sqlite-only\t${join(folder, 'two.log')}\n30\ta stage with no log\t${join(folder, 'none.log')}\n`)
  const run = spawnSync('bash', ['.ci/costs', join(folder, 'times')], { encoding: 'utf8' })
  t.equal(run.status, 0, run.stderr)
  const lines = run.stdout.trimEnd().split('\n')
  t.equal(lines[0], '== what it cost')
  t.match(lines[1], /^ {2}npm ci && npm test \(SQLite, fs and s3 drivers\) +1200 s$/)
  t.match(lines[2], /^ {2}the suite again on PostgreSQL, but for \.ci\/sqlite-only +600 s$/)
  t.match(lines[4], /^ {2}all stages +1830 s$/)
  t.equal(lines[5], '  the ten slowest test files:')
  const slowest = lines.slice(6)
  t.equal(slowest.length, 10)
  t.match(slowest[0], /^ +30 s {2}test\/failed\.test\.ts {2}\[npm ci && npm test \(SQLite, fs and s3 drivers\)\]$/, 'a failed file counts too')
  t.match(slowest[1], /^ +12 s {2}test\/f11\.test\.ts {2}\[the suite again on PostgreSQL, but for \.ci\/sqlite-only\]$/)
  t.notMatch(run.stdout, /a subtest/, 'files, not subtests')
})
