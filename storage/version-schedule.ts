// Which versions of one path are kept: Nextcloud's schedule, within VERSION_RETENTION_DAYS.

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** Up to an age (since a version was kept), one version per step of it. */
const BANDS: Array<{ until: number, step: number }> = [
  { until: 10 * SECOND, step: 2 * SECOND },
  { until: MINUTE, step: 10 * SECOND },
  { until: HOUR, step: MINUTE },
  { until: DAY, step: HOUR },
  { until: Infinity, step: DAY }
]

export interface Kept { id: string, keptAt: Date }

/**
 * Of one path's versions, those the schedule drops at `now`: older than `retentionMs`, or not the
 * newest of the versions that share a step of their age's band (one per 2 s for the first 10 s, per
 * 10 s for the first minute, per minute for the first hour, per hour for the first day, then per day).
 */
export function thinned<T extends Kept> (versions: T[], now: Date, retentionMs: number): T[] {
  const taken = new Set<string>()
  const dropped: T[] = []
  for (const version of [...versions].sort((a, b) => b.keptAt.getTime() - a.keptAt.getTime())) {
    const age = Math.max(0, now.getTime() - version.keptAt.getTime())
    if (age > retentionMs) {
      dropped.push(version)
      continue
    }
    const band = BANDS.findIndex(({ until }) => age < until)
    const slot = `${band}/${Math.floor(age / BANDS[band].step)}`
    if (taken.has(slot)) dropped.push(version)
    else taken.add(slot)
  }
  return dropped
}
