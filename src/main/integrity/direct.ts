// The integrity monitor on the direct file reader. Window mode reads only the last leaves; --all
// extracts compact columns on worker threads, then runs the ordered detectors over them, and finds
// duplicate hashes and bursts by sorting typed arrays (no per-row maps, no SQL temp tables).
import type { IntegrityRun, IntegrityThresholds } from '../../shared/integrity-types'
import {
  extractAllColumns,
  extractLastColumns,
  hashFingerprint,
  startColumnWorkers,
  type ColumnsPart,
  type IntegrityColumns,
} from '../chain/direct/columns'
import { endWorkers, type EarlyWorker } from '../chain/index'
import { assertUnchangedSinceOpen, withDirect, type DirectChain } from '../chain/direct/open'
import { RowScanner, withLeaves } from '../chain/direct/scan'
import { AuditError } from '../errors'
import { TsWords } from '../chain/ts-words'
import { estimateRows, layoutOf, verifyDirect } from '../verify/direct'
import type { ChainFile } from '../chain/reader'
import {
  finish,
  OrderedPass,
  runIntegrity,
  type IntegrityHooks,
  type IntegritySource,
  type RunIntegrityOptions,
} from './analyze'
import { duplicateAnomaly } from './hashes'
import type { DetectorResults } from './report'
import { hashKey } from './rows'
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
function duplicates(
  rowsAgain: () => RowScanner,
  parts: IntegrityColumns[],
): DetectorResults['hash_anomalies'] {
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
  const scanner = rowsAgain()
  const ch = scanner.col('canonical_hash')
  const firstSeen = new Map<string, bigint>()
  const out: DetectorResults['hash_anomalies'] = []
  for (let i = 0; i < fps.length; i++) {
    if (!candidates.has(fps[i]!)) continue
    let key: string | null = null
    let fp = NaN
    scanner.find(seqs[i]!, (c) => {
      key = hashKey(c.valueBig(ch))
      fp = hashFingerprint(c, ch)
    })
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

/**
 * The detectors over the rows of leaves [from, to) of `scanner`'s layout: their compact columns (on
 * workers for a large chain), then `detect`. `estimate`: about how many rows that is.
 */
async function columnsRun(
  scanner: RowScanner,
  range: { from: number; to: number; estimate: number },
  thresholds: IntegrityThresholds,
  hooks: IntegrityHooks,
  early: EarlyWorker[] = [],
): Promise<DetectorResults> {
  const parts = await extractAllColumns(
    scanner,
    range.from,
    range.to,
    range.estimate,
    {
      onProgress: (d, t) => hooks.onProgress?.(d, t, 'integrity'),
      ...(hooks.signal ? { signal: hooks.signal } : {}),
    },
    INTEGRITY_COLUMNS,
    early,
  )
  return detect(parts, () => scanner, thresholds, hooks)
}

const INTEGRITY_COLUMNS = { facts: true, integrity: true }

/** What pushRows reads of a part. */
export type OrderedColumns = Pick<
  ColumnsPart,
  'rows' | 'seq' | 'seqBig' | 'ts' | 'provider' | 'providerNames' | 'looseTs'
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
    const names = p.providerNames
    const loose = new Map(p.looseTs)
    const words = new TsWords(p.ts)
    // Quiet rows' providers, counted by id in each half.
    const base = new Float64Array(names.length)
    const curr = new Float64Array(names.length)
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
    names.forEach((name, id) => pass.providers.add(name, base[id]!, curr[id]!))
  }
  if (heldPart !== null) pass.resume(heldPart.seqBig[heldRow]!, heldPart.ts[heldRow]!)
}

/**
 * The ordered detectors over the parts' typed arrays, then duplicates and bursts by sorting;
 * `rowsAgain` gives a scanner that finds the parts' rows by seq (asked for only to confirm
 * fingerprint collisions).
 */
function detect(
  parts: IntegrityColumns[],
  rowsAgain: () => RowScanner,
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
  const results = finish(pass, duplicates(rowsAgain, parts), bursts(parts, thresholds.burst_threshold))
  hooks.onProgress?.(n, n, 'integrity')
  return results
}

async function allRows(
  chain: DirectChain,
  thresholds: IntegrityThresholds,
  hooks: IntegrityHooks,
): Promise<DetectorResults> {
  const scanner = new RowScanner(layoutOf(chain))
  const early = startColumnWorkers(chain, INTEGRITY_COLUMNS)
  try {
    const to = chain.leaves.pages.length
    const estimate = estimateRows(scanner, 0, to)
    const results = await columnsRun(scanner, { from: 0, to, estimate }, thresholds, hooks, early)
    assertUnchangedSinceOpen(chain)
    return results
  } finally {
    scanner.close()
    endWorkers(early) // those not given work, when an error came first
  }
}

/**
 * Window mode: the last `limit` rows by seq, read in one walk back from the tree's right edge (no
 * leaf list of the whole chain, each page read once), through the same detectors as --all.
 */
async function lastRows(
  chain: DirectChain,
  limit: number,
  thresholds: IntegrityThresholds,
): Promise<DetectorResults> {
  const layout = layoutOf(chain)
  const edge = new RowScanner(layout)
  let again = null as RowScanner | null
  try {
    const { part, leaves } = extractLastColumns(edge, chain.root, limit, INTEGRITY_COLUMNS)
    const results = detect(
      [part],
      () => (again ??= new RowScanner(withLeaves(layout, leaves))),
      thresholds,
      {},
    )
    assertUnchangedSinceOpen(chain)
    return results
  } finally {
    edge.close()
    again?.close()
  }
}

export function directSource(chain: DirectChain): IntegritySource {
  return {
    window: (limit, thresholds) => lastRows(chain, limit, thresholds),
    all: (thresholds, hooks) => allRows(chain, thresholds, hooks),
    verify: (keys, opts) => verifyDirect(chain, keys, opts),
  }
}

/** The monitor over a chain opened through its verified private copy: direct on the copy, else SQLite. */
export async function runIntegrityOpened(chain: ChainFile, opts: RunIntegrityOptions): Promise<IntegrityRun> {
  return (
    (await withDirect(chain.snapshot.dbPath, (d) => runIntegrity(directSource(d), opts))) ??
    runIntegrity(chain, opts)
  )
}
