import type { CliIo } from './io.js'

const REDRAW_MS = 100

function bytes (n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let unit = 0
  for (; n >= 1024 && unit < units.length - 1; unit++) n /= 1024
  return `${n.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`
}

function duration (seconds: number): string {
  if (!Number.isFinite(seconds)) return '--:--'
  const s = Math.round(seconds)
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`
}

/**
 * One line on stderr, redrawn in place: bytes so far, rate, time left. Only on a terminal: a pipe or
 * a log file gets nothing, and neither does --json.
 */
export function createProgress (io: CliIo, label: string, total: number, { quiet = false, already = 0 } = {}) {
  const shown = !quiet && io.stderr.isTTY === true
  const started = performance.now()
  let done = already
  let drawn = 0
  const draw = () => {
    const seconds = (performance.now() - started) / 1000
    const rate = (done - already) / Math.max(seconds, 0.001)
    const left = rate > 0 ? (total - done) / rate : Infinity
    io.stderr.write(`\r${label}  ${bytes(done)} / ${bytes(total)}  ${bytes(rate)}/s  ${duration(left)} left\x1b[K`)
    drawn = performance.now()
  }
  return {
    advance (n: number) {
      done += n
      if (shown && performance.now() - drawn >= REDRAW_MS) draw()
    },
    finish () {
      if (!shown) return
      draw()
      io.stderr.write('\n')
    }
  }
}
