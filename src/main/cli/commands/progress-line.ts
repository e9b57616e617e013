// The progress line `integrity` and `report` draw while they work.
import type { CliIO } from '../io'

/** A throttled progress line for the integrity phases. */
export function progressLine(io: CliIO): (done: number, total: number, phase?: string) => void {
  let last = 0
  return (d, t, phase) => {
    const now = Date.now()
    if (now - last < 250 && d < t) return
    last = now
    const what = phase === 'rotation' ? 'verifying keys' : phase === 'verify' ? 'verifying' : 'analysing'
    io.progress(`${what} ${Math.floor((100 * d) / Math.max(t, 1))}% (${d}/${t} rows)`)
  }
}
