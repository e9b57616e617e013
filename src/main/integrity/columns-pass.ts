// The detectors over compact columns (../chain/columns): the ordered detectors over the typed
// arrays without a row object per row, duplicate hashes and bursts found by merging presorted runs
// (no per-row maps, no SQL temp tables). The same for window and --all, for either row source.
import type { IntegrityThresholds } from '../../shared/integrity-types'
import { hashFingerprint, hashKey } from '../chain/columns/fingerprint'
import type { ColumnsPart, IntegrityColumns } from '../chain/columns/types'
import type { RowSource } from '../chain/source/row-source'
import { TsWords } from '../chain/ts-words'
import { AuditError } from '../base/errors'
import { finish, OrderedPass, type IntegrityHooks } from './ordered-pass'
import { duplicateAnomaly } from './hashes'
import type { DetectorResults } from './report'
import { burstAnomaly } from './timestamps'

/**
 * Values occurring more than `min` times across arrays each sorted ascending (NaN last, ignored):
 * one merge walk over the parts the workers sorted. Reads stay inside each array's numbers: a read
 * past a typed array's end makes V8 leave its fast code for this loop.
 */
export function repeated(sorted: Float64Array[], min: number): Map<number, number> {
  const out = new Map<number, number>()
  const parts = sorted.length
  const at = new Int32Array(parts)
  const ends = Int32Array.from(sorted, (a) => {
    let e = a.length
    while (e > 0 && Number.isNaN(a[e - 1]!)) e--
    return e
  })
  for (;;) {
    let v = 0
    let any = false
    for (let k = 0; k < parts; k++) {
      if (at[k]! === ends[k]!) continue
      const x = sorted[k]![at[k]!]!
      if (!any || x < v) {
        v = x
        any = true
      }
    }
    if (!any) return out
    let count = 0
    for (let k = 0; k < parts; k++) {
      const a = sorted[k]!
      const e = ends[k]!
      const from = at[k]!
      let i = from
      while (i < e && a[i] === v) i++
      count += i - from
      at[k] = i
    }
    if (count > min) out.set(v, count)
  }
}

/** Duplicate canonical hashes: fingerprint collisions, then the exact keys of just those rows. */
function duplicates(source: RowSource, parts: IntegrityColumns[]): DetectorResults['hash_anomalies'] {
  const candidates = repeated(
    parts.map((p) => p.hashFpSorted!),
    1,
  )
  if (candidates.size === 0) return []
  const fps = concat(
    parts.map((p) => p.hashFp),
    Float64Array,
  )
  const seqs = concat(
    parts.map((p) => p.seqBig),
    BigInt64Array,
  )
  const ch = source.col('canonical_hash')
  const firstSeen = new Map<string, bigint>()
  const out: DetectorResults['hash_anomalies'] = []
  for (let i = 0; i < fps.length; i++) {
    if (!candidates.has(fps[i]!)) continue
    let key: string | null = null
    let fp = NaN
    source.find(
      seqs[i]!,
      (c) => {
        key = hashKey(c.valueBig(ch))
        fp = hashFingerprint(c, ch)
      },
      ['canonical_hash'],
    )
    if (key === null || fp !== fps[i])
      throw new AuditError('io', 'the chain changed during the integrity pass')
    const first = firstSeen.get(key)
    if (first === undefined) firstSeen.set(key, seqs[i]!)
    else out.push(duplicateAnomaly(seqs[i]!, first))
  }
  return out
}

function concat<T extends Float64Array | BigInt64Array>(arrays: T[], Ctor: new (n: number) => T): T {
  const out = new Ctor(arrays.reduce((n, a) => n + a.length, 0))
  let at = 0
  for (const a of arrays) {
    out.set(a as never, at)
    at += a.length
  }
  return out
}

/** Bursts: rows per epoch second, over sorted seconds; reported in order of first appearance. */
function bursts(parts: IntegrityColumns[], threshold: number): DetectorResults['timestamp_anomalies'] {
  const counts = repeated(
    parts.map((p) => p.secondsSorted!),
    threshold,
  )
  const out: DetectorResults['timestamp_anomalies'] = []
  for (const p of parts) {
    const seconds = p.seconds!
    for (let i = 0; i < seconds.length && counts.size > 0; i++) {
      const c = counts.get(seconds[i]!)
      if (c !== undefined) {
        out.push(burstAnomaly(BigInt(seconds[i]!), c))
        counts.delete(seconds[i]!)
      }
    }
  }
  return out
}

/** What pushRows reads of a part. */
export type OrderedColumns = Pick<
  ColumnsPart,
  'rows' | 'seq' | 'seqBig' | 'ts' | 'provider' | 'providerKeys' | 'looseTs'
>

/** Seqs and timestamp steps below this are exact as doubles. */
const EXACT = 2 ** 53

/**
 * `pass.pushColumns` over every row of the parts, in order, without a BigInt per row. Most rows
 * change no detector but the provider counts — the seq follows the previous row's by one, the
 * timestamp step is neither backward nor a large gap — and that is decided on doubles: seqs below
 * ±2^53, and the step from the timestamps' 32-bit halves, (hi − hi′)·2^32 + (lo − lo′), where both
 * terms are exact, so the one rounding of their sum gives exactly the Number(ts − ts′) the
 * detector computes. Every other row goes through `pushColumns`, after `resume` has handed the
 * detectors the quiet row before it.
 */
export function pushRows(pass: OrderedPass, parts: OrderedColumns[], largeGapSec: number): void {
  // The previous row as doubles; prevSeq NaN when the next row must go through pushColumns.
  let prevSeq = NaN
  let prevHi = 0
  let prevLo = 0
  // The last quiet row, not yet handed to the detectors.
  let heldPart: OrderedColumns | null = null
  let heldRow = 0
  const mid = pass.providers.mid
  for (const p of parts) {
    const names = p.providerKeys
    const loose = new Map(p.looseTs)
    const words = new TsWords(p.ts)
    // Quiet rows' providers, counted by id in each half.
    const base = new Float64Array(names.length)
    const curr = new Float64Array(names.length)
    // The first row of each, in the analysed rows: Python names a class of equal providers by it.
    const first = new Float64Array(names.length).fill(Infinity)
    for (let i = 0; i < p.rows; i++) {
      const seq = p.seq[i]!
      const hi = words.hi(i)
      const lo = words.lo(i)
      const isLoose = loose.size > 0 && loose.has(i)
      if (
        !isLoose &&
        seq === prevSeq + 1 &&
        Math.abs(seq) < EXACT &&
        // (A seq beyond ±2^53 ends the report in an error anyway; this keeps the step exact alone.)
        Math.abs(prevSeq) < EXACT &&
        pass.quietAllowed()
      ) {
        const delta = ((hi - prevHi) * 4294967296 + (lo - prevLo)) / 1e9
        if (!(delta < 0) && !(delta > largeGapSec)) {
          const at = pass.pushQuiet()
          const counts = at < mid ? base : curr
          const id = p.provider[i]!
          counts[id] = counts[id]! + 1
          if (at < first[id]!) first[id] = at
          heldPart = p
          heldRow = i
          prevSeq = seq
          prevHi = hi
          prevLo = lo
          continue
        }
      }
      if (heldPart !== null) {
        pass.resume(heldPart.seqBig[heldRow]!, heldPart.ts[heldRow]!)
        heldPart = null
      }
      pass.pushColumns(p.seqBig[i]!, isLoose ? loose.get(i)! : p.ts[i]!, names[p.provider[i]!]!)
      // After a loose timestamp (not in p.ts) the next step is the detector's to decide.
      prevSeq = isLoose ? NaN : seq
      prevHi = hi
      prevLo = lo
    }
    names.forEach((name, id) => pass.providers.add(name, base[id]!, curr[id]!, first[id]!))
  }
  if (heldPart !== null) pass.resume(heldPart.seqBig[heldRow]!, heldPart.ts[heldRow]!)
}

/**
 * The ordered detectors over the parts' typed arrays (in scan order), then duplicates and bursts by
 * sorting; `source` finds rows by seq again, asked only to confirm fingerprint collisions.
 */
export function detect(
  parts: IntegrityColumns[],
  source: RowSource,
  thresholds: IntegrityThresholds,
  hooks: IntegrityHooks,
): DetectorResults {
  const bad = parts.find((p) => p.badTs !== null)?.badTs
  if (bad)
    throw new AuditError(
      'corrupt',
      `timestamp_ns of seq=${bad.seq} is not an integer (${bad.value}); the integrity detectors need integer timestamps`,
    )
  const n = parts.reduce((s, p) => s + p.rows, 0)
  const pass = new OrderedPass(n, thresholds)
  pushRows(pass, parts, thresholds.large_gap_sec)
  if (hooks.signal?.aborted) throw new AuditError('cancelled', 'integrity pass cancelled')
  const results = finish(pass, duplicates(source, parts), bursts(parts, thresholds.burst_threshold))
  hooks.onProgress?.(n, n, 'integrity')
  return results
}
