// The provider shifts of an integrity report (reference §5.3.4), the one reading of them for every
// place that shows them: the CLI's text and `--json`, the report's file and HTML page, the app's
// panel and chart. Python's dict holds the string "1" and the number 1 as two keys and prints both;
// a JSON object holds one member a name, so `shifts` keeps the first class of a spelling (by its
// first row) and `same_spelling` the others, each with its provider's key.
import { compareCodePoints } from './code-point-order'
import type { ProviderShift, ProviderShiftEntry } from './integrity-types'

/** A shifted provider: its JSON key and its entry. */
export type ShiftItem = [string, ProviderShiftEntry]

/**
 * Every shifted provider in the report's order: keys sorted by code point (Python's is its random
 * set order), a spelling's classes by their first rows (`shifts`' entry, then `same_spelling`'s).
 */
export function shiftItems(shift: ProviderShift): ShiftItem[] {
  const extra = shift.same_spelling ?? []
  const out: ShiftItem[] = []
  for (const key of Object.keys(shift.shifts).sort(compareCodePoints)) {
    out.push([key, shift.shifts[key]!])
    for (const e of extra) if (e.provider === key) out.push([key, e])
  }
  return out
}

/** By descending |delta| (a stable sort: ties in shiftItems' order), as the CLI prints them. */
export function shiftsByDelta(shift: ProviderShift): ShiftItem[] {
  return shiftItems(shift).sort((a, b) => Math.abs(b[1].delta_pct) - Math.abs(a[1].delta_pct))
}
