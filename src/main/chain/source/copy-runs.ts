// Where the copy's runs for worker threads are cut (./copy-source.ts `split`). A run is found by its
// position in the scan (`LIMIT n OFFSET k`), so the run at position k first steps SQLite's cursor
// past k rows: later runs are given fewer rows, so that each costs about the same.
import type { Place } from './row-source'

/**
 * What stepping past a row costs next to verifying it (measured at 1M rows: ≈0.55 s to step past
 * 500k rows on a fresh map of the copy, ≈8–12 µs to verify a row on a worker thread).
 */
const STEP_COST = 0.1

/**
 * `place` cut into at most `n` runs in scan order, run i holding T − STEP_COST × (rows before it)
 * rows (two runs: 52.6 % and 47.4 %). Only balance depends on the weights: the runs cover every
 * position once, and the last reads to the end of the scan, whatever the count said.
 */
export function splitRuns(place: Place, n: number): Place[] {
  const len = place.to - place.from
  const count = Math.max(1, Math.min(len, n))
  const shares: number[] = []
  let before = 0
  for (let i = 0; i < count; i++) {
    const share = Math.max(0, 1 - STEP_COST * before)
    shares.push(share)
    before += share
  }
  const out: Place[] = []
  let at = 0
  for (let i = 0; i < count; i++) {
    const from = place.from + Math.floor((at * len) / before)
    at += shares[i]!
    const to = i === count - 1 ? Infinity : place.from + Math.floor((at * len) / before)
    if (to > from) out.push({ from, to })
  }
  return out
}
