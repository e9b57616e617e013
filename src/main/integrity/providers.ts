// Detector 4 — provider distribution shift between the older and the newer half of the rows
// (reference §5.3.4). Percentages are computed exactly as Python does (`count / half * 100`, in that
// order) so the rounded values agree to the last bit. Python's key order is its set iteration order
// (hash-randomised); here providers are sorted by code point, so the output is reproducible.
import type { ProviderShift, ProviderShiftEntry } from '../../shared/integrity-types'
import { compareCodePoints, pyRound } from '../python/pyformat'

export class ProviderSplitDetector {
  /** Rows before this index are the baseline half. */
  readonly mid: number
  private readonly base = new Map<string, number>()
  private readonly curr = new Map<string, number>()

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

  /** `index` = 0-based position of the row in the analysed rows. */
  push(index: number, provider: string): void {
    if (!this.active) return
    const m = index < this.mid ? this.base : this.curr
    m.set(provider, (m.get(provider) ?? 0) + 1)
  }

  /** Rows counted by the caller: `base` of them in the baseline half, `curr` in the current one. */
  add(provider: string, base: number, curr: number): void {
    if (!this.active) return
    if (base > 0) this.base.set(provider, (this.base.get(provider) ?? 0) + base)
    if (curr > 0) this.curr.set(provider, (this.curr.get(provider) ?? 0) + curr)
  }

  result(): ProviderShift | null {
    if (!this.active) return null
    const names = [...new Set([...this.base.keys(), ...this.curr.keys()])].sort(compareCodePoints)
    const shifts: Record<string, ProviderShiftEntry> = {}
    let any = false
    for (const p of names) {
      const basePct = ((this.base.get(p) ?? 0) / this.mid) * 100
      const currPct = ((this.curr.get(p) ?? 0) / (this.n - this.mid)) * 100
      if (Math.abs(currPct - basePct) > this.shiftPct) {
        // defineProperty: a provider called `__proto__` must stay an ordinary key.
        Object.defineProperty(shifts, p, {
          value: {
            baseline_pct: pyRound(basePct, 1),
            current_pct: pyRound(currPct, 1),
            delta_pct: pyRound(currPct - basePct, 1),
          },
          enumerable: true,
          writable: true,
          configurable: true,
        })
        any = true
      }
    }
    return any ? { shifts } : null
  }
}
