// Detector 5 — rate change between the halves (reference §5.3.5), in entries per hour. Each half's
// rate is its row count over the time between its own first and last row (k rows over k−1
// intervals; the time between the halves is ignored), exactly as Python computes it.
import type { RateAnomaly } from '../../shared/integrity-types'
import { pyRound } from '../python/pyformat'

export class RateSplitDetector {
  private readonly mid: number
  private first = 0n
  private midLast = 0n
  private midFirst = 0n
  private last = 0n

  constructor(
    private readonly n: number,
    private readonly tol: number,
    private readonly minSplit: number,
  ) {
    this.mid = Math.floor(n / 2)
  }

  get active(): boolean {
    return this.n >= 2 * this.minSplit
  }

  push(index: number, ts: bigint): void {
    if (!this.active) return
    if (index === 0) this.first = ts
    if (index === this.mid - 1) this.midLast = ts
    if (index === this.mid) this.midFirst = ts
    if (index === this.n - 1) this.last = ts
  }

  /** Whether `push` keeps the timestamp of row `index` (the first and last row of each half). */
  reads(index: number): boolean {
    return (
      this.active && (index === 0 || index === this.mid - 1 || index === this.mid || index === this.n - 1)
    )
  }

  result(): RateAnomaly[] {
    if (!this.active) return []
    const firstSecs = Number(this.midLast - this.first) / 1e9
    const secondSecs = Number(this.last - this.midFirst) / 1e9
    if (firstSecs <= 0 || secondSecs <= 0) return []
    const firstRate = this.mid / (firstSecs / 3600)
    const secondRate = (this.n - this.mid) / (secondSecs / 3600)
    const ratio = secondRate / firstRate
    if (!(Math.abs(ratio - 1) > this.tol)) return []
    return [
      {
        baseline_rate: pyRound(firstRate, 2),
        current_rate: pyRound(secondRate, 2),
        change_pct: pyRound((ratio - 1) * 100, 1),
      },
    ]
  }
}
