import t from 'tap'
import { thinned, type Kept } from '../storage/version-schedule.js'

const DAY = 86_400_000
const now = new Date('2026-11-24T12:00:00Z')
const keptSecondsAgo = (seconds: number): Kept => ({ id: String(seconds), keptAt: new Date(now.getTime() - seconds * 1000) })
const keptOf = (versions: Kept[], retentionMs = 30 * DAY) => {
  const dropped = new Set(thinned(versions, now, retentionMs).map((version) => version.id))
  return versions.filter((version) => !dropped.has(version.id))
}

t.test('an editor saving every second for an hour keeps about 70 versions, not 3,600', async (t) => {
  const saves = Array.from({ length: 3600 }, (_, second) => keptSecondsAgo(second))
  const kept = keptOf(saves)
  const ages = kept.map((version) => Number(version.id))
  t.equal(ages.filter((age) => age < 10).length, 5, 'one per 2 s in the last 10 s')
  t.equal(ages.filter((age) => age >= 10 && age < 60).length, 5, 'one per 10 s in the rest of the last minute')
  t.equal(ages.filter((age) => age >= 60).length, 59, 'one a minute before that')
  t.ok(kept.length >= 65 && kept.length <= 75, `${kept.length} kept`)
  t.equal(ages[0], 0, 'the newest is kept')
})

t.test('per hour for the first day, then per day, and nothing past the retention', async (t) => {
  const hourly = Array.from({ length: 4 * 24 }, (_, quarter) => keptSecondsAgo(3600 + quarter * 900))
  t.equal(keptOf(hourly).length, 24, 'a save every 15 min during the first day: one an hour')
  const daily = Array.from({ length: 40 * 4 }, (_, i) => keptSecondsAgo(DAY / 1000 + i * 6 * 3600))
  t.equal(keptOf(daily, 30 * DAY).length, 30, 'four a day for 40 days, kept 30 days: one for each of the 30 days')
  t.same(keptOf([keptSecondsAgo(31 * 86_400)], 30 * DAY), [], 'older than the retention: gone')
  t.same(keptOf([keptSecondsAgo(5)], 30 * DAY).length, 1, 'a lone version is kept')
})
