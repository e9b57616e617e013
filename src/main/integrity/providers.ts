// Detector 4 — provider distribution shift between the older and the newer half of the rows
// (reference §5.3.4). Percentages are computed exactly as Python does (`count / half * 100`, in that
// order) so the rounded values agree to the last bit. Python's key order is its set iteration order
// (hash-randomised); here providers are sorted by code point, so the output is reproducible.
// Providers are counted as Python's dicts count them: by equality class (../chain/provider-key.ts:
// 1, 1.0 and true are one key, the string "1" another), under the first of them seen — the first
// row's in the baseline half (`set(base) | set(curr)` keeps the left set's object), else in the
// current half.
import type { ProviderShift, ProviderShiftEntry, SameSpellingShift } from '../../shared/integrity-types'
import { compareCodePoints, pyRound } from '../python/pyformat'
import { providerClass, providerLabel, providerStr } from '../chain/provider-key'

/** Python's str() of the provider of a shift entry, where it differs from its JSON key (`True`, `inf`). */
export const PY_STR = Symbol('python str of the provider')

interface Counted {
  base: number
  curr: number
  /** The provider key seen first (lowest row index) in the class, and that index. */
  key: string
  first: number
}

export class ProviderSplitDetector {
  /** Rows before this index are the baseline half. */
  readonly mid: number
  private readonly classes = new Map<string, Counted>()

  /** `n` = rows that will be pushed (the split point is n // 2). */
  constructor(
    private readonly n: number,
    private readonly shiftPct: number,
    private readonly minSplit: number,
  ) {
    this.mid = Math.floor(n / 2)
  }

  get active(): boolean {
    return this.n >= 2 * this.minSplit
  }

  private counted(key: string, first: number): Counted {
    const cls = providerClass(key)
    let c = this.classes.get(cls)
    if (c === undefined) {
      c = { base: 0, curr: 0, key, first }
      this.classes.set(cls, c)
    } else if (first < c.first) {
      c.key = key
      c.first = first
    }
    return c
  }

  /** `index` = 0-based position of the row in the analysed rows; `provider` its provider key. */
  push(index: number, provider: string): void {
    if (!this.active) return
    const c = this.counted(provider, index)
    if (index < this.mid) c.base++
    else c.curr++
  }

  /**
   * Rows counted by the caller: `base` of them in the baseline half, `curr` in the current one, the
   * first of them at row index `first`.
   */
  add(provider: string, base: number, curr: number, first: number): void {
    if (!this.active || base + curr === 0) return
    const c = this.counted(provider, first)
    c.base += base
    c.curr += curr
  }

  result(): ProviderShift | null {
    if (!this.active) return null
    // By spelling; two classes of one spelling (the string "1" and the number 1) by first row seen.
    const counted = [...this.classes.values()].sort(
      (a, b) => compareCodePoints(providerLabel(a.key), providerLabel(b.key)) || a.first - b.first,
    )
    const shifts: Record<string, ProviderShiftEntry> = {}
    const sameSpelling: SameSpellingShift[] = []
    for (const c of counted) {
      const basePct = (c.base / this.mid) * 100
      const currPct = (c.curr / (this.n - this.mid)) * 100
      if (Math.abs(currPct - basePct) > this.shiftPct) {
        const label = providerLabel(c.key)
        const values: ProviderShiftEntry = {
          baseline_pct: pyRound(basePct, 1),
          current_pct: pyRound(currPct, 1),
          delta_pct: pyRound(currPct - basePct, 1),
        }
        // `shifts` holds one entry a spelling (the first class seen); the others go to same_spelling
        // (../../shared/provider-shifts.ts reads both, for every place that shows them).
        const held = Object.prototype.hasOwnProperty.call(shifts, label)
        const entry: ProviderShiftEntry | SameSpellingShift = held ? { provider: label, ...values } : values
        const str = providerStr(c.key)
        if (str !== label) Object.defineProperty(entry, PY_STR, { value: str })
        if (held) sameSpelling.push(entry as SameSpellingShift)
        // defineProperty: a provider called `__proto__` must stay an ordinary key.
        else
          Object.defineProperty(shifts, label, {
            value: entry,
            enumerable: true,
            writable: true,
            configurable: true,
          })
      }
    }
    if (Object.keys(shifts).length === 0) return null
    return sameSpelling.length > 0 ? { shifts, same_spelling: sameSpelling } : { shifts }
  }
}
