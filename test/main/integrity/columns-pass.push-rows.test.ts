// pushRows decides most rows on doubles (32-bit halves of the timestamps, seqs below 2^53) and hands
// only the others to the BigInt detectors. Held here to the plain loop — every row through
// pushColumns — on columns built for the edges: steps exactly at the large-gap threshold, steps
// beyond 2^53 ns, timestamps at the ends of int64, seqs around ±2^53, gaps and repeats, loose
// timestamps, rows split across parts at every kind of row, and the rate detector's edge rows.
import { describe, expect, it } from 'vitest'
import type { IntegrityThresholds } from '../../../src/shared/integrity-types'
import { finish, OrderedPass } from '../../../src/main/integrity/ordered-pass'
import { pushRows, type OrderedColumns } from '../../../src/main/integrity/columns-pass'
import { DEFAULT_THRESHOLDS } from '../../../src/main/integrity/thresholds'

const T: IntegrityThresholds = { ...DEFAULT_THRESHOLDS, large_gap_sec: 300, min_split_size: 3 }
const GAP_NS = BigInt(T.large_gap_sec) * 1_000_000_000n
const I64_MAX = (1n << 63n) - 1n
const I64_MIN = -(1n << 63n)

interface Row {
  seq: bigint
  ts: bigint
  provider: string
  /**
   * A timestamp that is not stored as an integer: p.ts holds the previous row's value for it, which
   * would look like a quiet step to a path that read it.
   */
  loose?: boolean
}

function part(rows: Row[]): OrderedColumns {
  const names: string[] = []
  const provider = new Uint32Array(rows.length)
  const looseTs: [number, bigint][] = []
  const ts = new BigInt64Array(rows.length)
  rows.forEach((r, i) => {
    if (!names.includes(r.provider)) names.push(r.provider)
    provider[i] = names.indexOf(r.provider)
    if (r.loose) {
      looseTs.push([i, r.ts])
      ts[i] = i > 0 ? ts[i - 1]! : 0n
    } else ts[i] = r.ts
  })
  return {
    rows: rows.length,
    seq: Float64Array.from(rows, (r) => Number(r.seq)),
    seqBig: BigInt64Array.from(rows.map((r) => r.seq)),
    ts,
    provider,
    providerKeys: names,
    looseTs,
  }
}

function plain(parts: OrderedColumns[], n: number): OrderedPass {
  const pass = new OrderedPass(n, T)
  for (const p of parts) {
    const loose = new Map(p.looseTs)
    for (let i = 0; i < p.rows; i++)
      pass.pushColumns(p.seqBig[i]!, loose.get(i) ?? p.ts[i]!, p.providerKeys[p.provider[i]!]!)
  }
  return pass
}

/** The detectors' results, or the error they end in (a seq beyond ±2^53 in a report is one). */
function outcome(run: () => OrderedPass) {
  try {
    const pass = run()
    return { ...finish(pass, [], []), first: pass.firstSeq, last: pass.lastSeq }
  } catch (e) {
    return { error: (e as Error).message }
  }
}

function both(rows: Row[], cuts: number[]) {
  const bounds = [0, ...cuts.filter((c) => c > 0 && c < rows.length).sort((a, b) => a - b), rows.length]
  const parts = bounds.slice(1).map((end, k) => part(rows.slice(bounds[k], end)))
  const fast = outcome(() => {
    const pass = new OrderedPass(rows.length, T)
    pushRows(pass, parts, T.large_gap_sec)
    return pass
  })
  return { fast, slow: outcome(() => plain(parts, rows.length)) }
}

/** The results of a run expected not to fail. */
function ok(o: ReturnType<typeof outcome>) {
  if ('error' in o) throw new Error(`unexpected: ${o.error}`)
  return o
}

/** Deterministic xorshift, so a failure names its seed. */
function rng(seed: number): () => number {
  // Small seeds would start with tiny numbers: spread them, and let the first outputs go.
  let x = (Math.imul(seed, 0x9e3779b1) ^ 0x85ebca6b) >>> 0 || 1
  const next = () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) / 2 ** 32
  }
  for (let k = 0; k < 8; k++) next()
  return next
}

function clamp(v: bigint): bigint {
  return v > I64_MAX ? I64_MAX : v < I64_MIN ? I64_MIN : v
}

function randomRows(seed: number): Row[] {
  const r = rng(seed)
  const pick = <V>(xs: readonly V[]): V => xs[Math.floor(r() * xs.length)]!
  const n = pick([1, 2, 3, 5, 6, 7, 40, 41, 300])
  let seq = pick([
    1n,
    0n,
    -5n,
    1_000_000n,
    2n ** 53n - 400n,
    -(2n ** 53n) + 5n,
    2n ** 53n - 20n,
    -(2n ** 53n) - 3n,
    2n ** 62n,
  ])
  let ts = pick([0n, -1n, 1_764_000_000_000_000_000n, I64_MAX - 10_000n, I64_MIN + 10_000n, 2n ** 53n])
  const rows: Row[] = []
  for (let i = 0; i < n; i++) {
    rows.push({ seq, ts, provider: pick(['openai', 'anthropic', 'xai', 'openai']), loose: r() < 0.03 })
    const s = r()
    seq += s < 0.9 ? 1n : s < 0.95 ? 2n + BigInt(Math.floor(r() * 5)) : s < 0.98 ? 0n : -1n
    const t = r()
    const step =
      t < 0.7
        ? BigInt(Math.floor(r() * 2_000_000_000))
        : t < 0.76
          ? GAP_NS
          : t < 0.8
            ? GAP_NS + 1n
            : t < 0.84
              ? GAP_NS - 1n
              : t < 0.88
                ? -BigInt(Math.floor(r() * 1000) + 1)
                : t < 0.92
                  ? 0n
                  : t < 0.96
                    ? (1n << 53n) + BigInt(Math.floor(r() * 1000))
                    : -((1n << 60n) + 12_345n)
    ts = clamp(ts + step)
  }
  return rows
}

describe('pushRows equals every row through pushColumns', () => {
  it('on 400 seeded columns, whole and cut into parts at random rows', () => {
    let reports = 0
    const kinds = new Set<string>()
    for (let seed = 1; seed <= 400; seed++) {
      const rows = randomRows(seed)
      const r = rng(seed * 7919)
      const cuts = [Math.floor(r() * rows.length), Math.floor(r() * rows.length)]
      for (const c of [[], cuts]) {
        const { fast, slow } = both(rows, c)
        expect(fast, `seed ${seed}, cuts ${c.join(',')}`).toEqual(slow)
        if ('error' in slow) continue
        reports++
        if (slow.sequence_gaps.length > 0) kinds.add('gap')
        for (const t of slow.timestamp_anomalies) kinds.add(t.type)
        if (slow.provider_shift) kinds.add('shift')
        if (slow.rate_anomalies.length > 0) kinds.add('rate')
      }
    }
    // Most runs end in a report, not in the error for seqs beyond ±2^53, and the reports hold every
    // kind of finding the ordered detectors make.
    expect(reports).toBeGreaterThan(500)
    expect(kinds).toEqual(new Set(['gap', 'backward', 'large_gap', 'shift', 'rate']))
  })

  it('steps exactly at, just above and far above the large-gap threshold', () => {
    const base = 1_764_000_000_000_000_000n
    // Ends with quiet steps: the last row of each half is the rate detector's, never a quiet one.
    const steps = [GAP_NS, GAP_NS + 1n, GAP_NS - 1n, 1n << 53n, (1n << 53n) + 1n, 1n << 62n, 0n, -1n, 5n, 5n]
    const rows: Row[] = []
    let ts = base
    steps.forEach((s, i) => {
      rows.push({ seq: BigInt(i + 1), ts, provider: 'openai' })
      ts = clamp(ts + s)
    })
    rows.push({ seq: BigInt(steps.length + 1), ts, provider: 'openai' })
    const { fast, slow } = both(rows, [])
    expect(fast).toEqual(slow)
    expect(ok(fast).timestamp_anomalies.map((a) => a.type)).toEqual([
      'large_gap',
      'large_gap',
      'large_gap',
      'large_gap',
      'backward',
    ])
  })

  it('seqs around ±2^53, where doubles stop telling neighbours apart', () => {
    const safe = 2n ** 53n - 1n
    for (const start of [safe - 6n, -safe]) {
      const rows: Row[] = [0n, 1n, 2n, 3n, 5n, 6n].map((d, i) => ({
        seq: start + d,
        ts: BigInt(i) * 1_000_000_000n,
        provider: 'xai',
      }))
      const { fast, slow } = both(rows, [])
      expect(fast).toEqual(slow)
      expect(ok(fast).sequence_gaps).toHaveLength(1)
    }
    // Beyond them a report cannot hold the seq; both paths must fail alike, however the doubles
    // round: -2^53 - 1 reads as -2^53, so -2^53 + 1 after it looks like a step of one to a double.
    for (const seqs of [
      [-(2n ** 53n) - 1n, -(2n ** 53n) + 1n, -(2n ** 53n) + 2n],
      [2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 53n + 2n],
      [2n ** 53n + 1n, 2n ** 53n + 2n, 2n ** 53n + 4n],
      // 2^53 + 1 reads as 2^53, one after 2^53 - 1; the gap names it, the last row another seq.
      [2n ** 53n - 1n, 2n ** 53n + 1n, 2n ** 53n + 2n, 2n ** 53n + 3n],
    ]) {
      const rows: Row[] = seqs.map((seq, i) => ({ seq, ts: BigInt(i), provider: 'xai' }))
      for (const cuts of [[], [1], [2]]) {
        const { fast, slow } = both(rows, cuts)
        expect('error' in slow).toBe(true)
        expect(fast).toEqual(slow)
      }
    }
  })

  it('a loose timestamp is compared with its value, not with what p.ts holds for it', () => {
    const rows: Row[] = [
      { seq: 1n, ts: 1_000_000_000_000n, provider: 'openai' },
      { seq: 2n, ts: 1n, provider: 'openai', loose: true },
      { seq: 3n, ts: 1_000_000_000_001n, provider: 'openai' },
      { seq: 4n, ts: 1_000_000_000_002n, provider: 'openai' },
    ]
    const { fast, slow } = both(rows, [])
    expect(fast).toEqual(slow)
    expect(ok(fast).timestamp_anomalies.map((a) => [a.type, a.seq])).toEqual([
      ['backward', 2],
      ['large_gap', 3],
    ])
  })

  it('the provider split and rates count quiet rows in the right half', () => {
    const rows: Row[] = Array.from({ length: 40 }, (_, i) => ({
      seq: BigInt(i + 1),
      ts: BigInt(i) * (i < 20 ? 10_000_000_000n : 40_000_000_000n),
      provider: i < 20 ? 'openai' : i % 2 ? 'anthropic' : 'openai',
    }))
    for (const cuts of [[], [19], [20], [21], [1, 39]]) {
      const { fast, slow } = both(rows, cuts)
      expect(fast).toEqual(slow)
      expect(ok(fast).provider_shift).not.toBeNull()
      expect(ok(fast).rate_anomalies).toHaveLength(1)
    }
  })
})
