import t from 'tap'
import { existsSync, readdirSync, readFileSync } from 'node:fs'

// CI's PostgreSQL stage runs every test file but those .ci/sqlite-only names: a file may be left
// out only when nothing it tests depends on the database.

const listed = readFileSync('.ci/sqlite-only', 'utf8').split('\n').map((line) => line.replace(/#.*/, '').trim()).filter(Boolean)
// What makes a file's outcome depend on the database: two instances on one database, a database
// shared between processes, sweeps, migrations, the database handle, or a skip on PostgreSQL.
const DATABASE_DEPENDENT = /instances: *[2-9]|createTestDatabase\(\{ *shared: *true|\.sweep\(|stowageDb|TEST_DATABASE_URL|migrat|\.start\(\)/

t.test('every file .ci/sqlite-only names exists, with the reason it may be left out', async (t) => {
  for (const file of listed) t.ok(existsSync(file), file)
  const lines = readFileSync('.ci/sqlite-only', 'utf8').split('\n').filter((line) => line.startsWith('test/'))
  for (const line of lines) t.match(line, /\.test\.ts +# \S/, `${line.split(' ')[0]} says why`)
})

t.test('no file that depends on the database is left out of the PostgreSQL stage', async (t) => {
  const dependent = listed.filter((file) => DATABASE_DEPENDENT.test(readFileSync(file, 'utf8')))
  t.same(dependent, [], 'these start two instances or reach a database-dependent path: run them on PostgreSQL')
  const all = readdirSync('test').filter((name) => name.endsWith('.test.ts')).map((name) => `test/${name}`)
  t.ok(all.length - listed.length >= all.length / 2, `${all.length - listed.length} of ${all.length} files run on PostgreSQL`)
})
