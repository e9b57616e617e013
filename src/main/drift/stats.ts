// The reference's baseline statistics and scoring (§8), as Python computes them, so the values the
// CLI prints equal Python's to the last digit: `statistics.fmean` (an exactly rounded sum, Python's
// `math.fsum`, then one division), `statistics.stdev` (Python 3.11+: the exact rational sample
// variance, then its correctly rounded square root), percentiles by linear interpolation at rank
// (n − 1)·p/100, and each value scored by z-score and IQR (Tukey's fences at 1.5 × IQR).
import type { DriftBaseline } from '../../shared/drift-types'

/** Fewer baseline values than this: no baseline, no anomaly (the reference's MIN_SAMPLES). */
export const MIN_SAMPLES = 5
export const IQR_MULTIPLIER = 1.5

/** `math.fsum`: the correctly rounded sum (Shewchuk's partials, CPython's half-way correction). */
export function fsum(xs: Iterable<number>): number {
  const partials: number[] = []
  let special = 0
  for (let x of xs) {
    if (!Number.isFinite(x)) {
      special += x
      continue
    }
    let i = 0
    for (let y of partials) {
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x]
      const hi = x + y
      const lo = y - (hi - x)
      if (lo !== 0) partials[i++] = lo
      x = hi
    }
    partials.length = i
    partials.push(x)
  }
  if (special !== 0 || Number.isNaN(special)) return special
  let n = partials.length
  let hi = 0
  if (n > 0) {
    hi = partials[--n]!
    let lo = 0
    while (n > 0) {
      const x = hi
      const y = partials[--n]!
      hi = x + y
      const yr = hi - x
      lo = y - yr
      if (lo !== 0) break
    }
    if (n > 0 && ((lo < 0 && partials[n - 1]! < 0) || (lo > 0 && partials[n - 1]! > 0))) {
      const y = lo * 2
      const x = hi + y
      const yr = x - hi
      if (y === yr) hi = x
    }
  }
  return hi
}

const f64 = new Float64Array(1)
const u64 = new BigUint64Array(f64.buffer)
/** Every finite double is an integer times 2^-1074: that integer. */
function scaled(x: number): bigint {
  f64[0] = x
  const bits = u64[0]!
  const exp = Number((bits >> 52n) & 0x7ffn)
  const frac = bits & 0xfffffffffffffn
  const mant = exp === 0 ? frac : frac | (1n << 52n)
  const v = mant << BigInt(exp === 0 ? 0 : exp - 1)
  return bits >> 63n ? -v : v
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n
  let x = BigInt(Math.floor(Math.sqrt(Number(n))))
  // Newton from a close start; then nudge to the exact floor.
  for (;;) {
    const y = (x + n / x) >> 1n
    if (y >= x) break
    x = y
  }
  while (x * x > n) x--
  while ((x + 1n) * (x + 1n) <= n) x++
  return x
}

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length
}

/** CPython's `_float_sqrt_of_frac(n, m)`: √(n/m) correctly rounded (round-to-odd, 109 bits). */
function sqrtOfFrac(n: bigint, m: bigint): number {
  const rto = (a: bigint, b: bigint): bigint => {
    const r = isqrt(a / b)
    return r * r * b !== a ? r | 1n : r
  }
  const q = Math.floor((bitLength(n) - bitLength(m) - 109) / 2)
  if (q >= 0) return Number(rto(n, m << BigInt(2 * q)) << BigInt(q))
  return Number(rto(n << BigInt(-2 * q), m)) / 2 ** -q
}

/** `statistics.stdev` of finite values (n ≥ 2). */
export function stdev(xs: readonly number[]): number {
  const n = BigInt(xs.length)
  let sx = 0n
  let sxx = 0n
  for (const x of xs) {
    // A value of inf or nan (a token count given as the string "inf"): no finite spread.
    if (!Number.isFinite(x)) return NaN
    const v = scaled(x)
    sx += v
    sxx += v * v
  }
  // ss = (n·Σx² − (Σx)²) / n in units of 2^-2148; the variance is ss / (n − 1), so its root is
  // √(num / (n·(n − 1)·2^2148)), correctly rounded in one step (the scale is in the denominator: the
  // root in units of 2^-1074 would overflow a double).
  const num = n * sxx - sx * sx
  if (num <= 0n) return 0
  return sqrtOfFrac(num, (n * (n - 1n)) << 2148n)
}

/** Linear interpolation at rank (n − 1)·p/100 of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  const n = sorted.length
  if (n === 0) return 0
  if (n === 1) return sorted[0]!
  const rank = (n - 1) * (p / 100)
  const lower = Math.trunc(rank)
  const upper = Math.min(lower + 1, n - 1)
  const weight = rank - lower
  return sorted[lower]! * (1 - weight) + sorted[upper]! * weight
}

/** The reference's `compute_baseline` statistics, or null below MIN_SAMPLES values. */
export function baselineOf(values: readonly number[]): DriftBaseline | null {
  if (values.length < MIN_SAMPLES) return null
  const sorted = [...values].sort((a, b) => a - b)
  const p25 = percentile(sorted, 25)
  const p50 = percentile(sorted, 50)
  const p75 = percentile(sorted, 75)
  return {
    samples: values.length,
    mean: fsum(values) / values.length,
    stdev: values.length > 1 ? stdev(values) : 0,
    p25,
    p50,
    p75,
    iqr: p75 - p25,
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
  }
}

export interface Score {
  z: number | null
  zTriggered: boolean
  iqrDistance: number | null
  iqrTriggered: boolean
}

/** The reference's `_score`: the z-score when stdev > 0, the IQR fences when iqr > 0. */
export function score(value: number, b: DriftBaseline, zThreshold: number): Score {
  let z: number | null = null
  let zTriggered = false
  if (b.stdev > 0) {
    z = (value - b.mean) / b.stdev
    zTriggered = Math.abs(z) >= zThreshold
  }
  let iqrDistance: number | null = null
  let iqrTriggered = false
  if (b.iqr > 0) {
    const lower = b.p25 - IQR_MULTIPLIER * b.iqr
    const upper = b.p75 + IQR_MULTIPLIER * b.iqr
    if (value < lower || value > upper) {
      iqrDistance = (value - b.p50) / b.iqr
      iqrTriggered = true
    }
  }
  return { z, zTriggered, iqrDistance, iqrTriggered }
}
