// The integrity monitor: the six detectors of reference §5.3 over the last N rows (window mode) or
// over the whole chain in one streaming pass (--all). Both modes feed the same per-row detectors;
// --all replaces the two per-row maps (hashes seen, rows per second) by SQL aggregates, so its
// memory does not grow with the chain, and gives exactly the window result for window = row count.
import type Database from 'better-sqlite3'
import type { IntegrityOptions, IntegrityRun, IntegrityThresholds } from '../../shared/integrity-types'
import type { VerifyVerdict } from '../../shared/verify-types'
import type { ChainFile } from '../chain/reader'
import { AuditError, asChainReadError } from '../errors'
import type { KeyMaterial } from '../verify/secrets'
import { verifyChain } from '../verify/verify'
import { DuplicateHashDetector, duplicatesInChain } from './hashes'
import { ProviderSplitDetector } from './providers'
import { RateSplitDetector } from './rate'
import { assembleReport, type DetectorResults } from './report'
import { detectRotation, type RangeVerifier } from './rotation'
import { loadWindow, seqNum, streamRows, type IntegrityRow } from './rows'
import { SequenceGapDetector } from './sequence'
import { checkWindow, DEFAULT_WINDOW, resolveThresholds } from './thresholds'
import { burstsInChain, burstsOf, TimestampStepDetector } from './timestamps'

export type IntegrityProgress = (done: number, total: number, phase?: string) => void

export interface IntegrityHooks {
  /** Rows done / total; phase is 'integrity' for the detector pass, 'rotation' for the key check. */
  onProgress?: IntegrityProgress
  signal?: { aborted: boolean }
}

export interface RunIntegrityOptions extends IntegrityOptions, IntegrityHooks {
  /** Candidate keys: with them the rotation detector verifies the analysed range. */
  keys?: KeyMaterial[]
  /** A verdict over the whole chain, reused by --all for the rotation detector instead of re-verifying. */
  wholeChainVerdict?: VerifyVerdict
}

/** Detectors 1, 2 (steps), 4 and 5, fed one row at a time; `n` must be known up front (the split). */
export class OrderedPass {
  readonly gaps = new SequenceGapDetector()
  readonly steps: TimestampStepDetector
  readonly providers: ProviderSplitDetector
  readonly rate: RateSplitDetector
  rows = 0
  firstSeq: bigint | null = null
  lastSeq: bigint | null = null

  constructor(
    readonly n: number,
    t: IntegrityThresholds,
  ) {
    this.steps = new TimestampStepDetector(t.large_gap_sec)
    this.providers = new ProviderSplitDetector(n, t.provider_shift_pct, t.min_split_size)
    this.rate = new RateSplitDetector(n, t.rate_tol, t.min_split_size)
  }

  push(row: IntegrityRow): void {
    this.pushColumns(row.seq, row.ts, row.provider)
  }

  /** `push` without a row object, for a million rows taken from typed arrays. */
  pushColumns(seq: bigint, ts: bigint, provider: string): void {
    const i = this.rows++
    if (i === 0) this.firstSeq = seq
    this.lastSeq = seq
    this.gaps.push(seq)
    this.steps.push(seq, ts)
    this.providers.push(i, provider)
    this.rate.push(i, ts)
  }

  /**
   * The next row, known to the caller to change no detector but the provider counts: its seq follows
   * the previous row's by one, its timestamp step is neither backward nor a large gap, and the rate
   * detector does not read it (`quietAllowed`). Returns its index; the caller counts its provider
   * (`providers.add`). Before the next `pushColumns`, and at the end, `resume` must give the last
   * such row's seq and timestamp.
   */
  pushQuiet(): number {
    return this.rows++
  }

  /** Whether the next row may go through `pushQuiet` (given that it is quiet). */
  quietAllowed(): boolean {
    return this.rows > 0 && !this.rate.reads(this.rows)
  }

  resume(seq: bigint, ts: bigint): void {
    this.lastSeq = seq
    this.gaps.resume(seq)
    this.steps.resume(seq, ts)
  }
}

export function finish(
  pass: OrderedPass,
  dups: DetectorResults['hash_anomalies'],
  bursts: DetectorResults['timestamp_anomalies'],
): DetectorResults {
  return {
    window: pass.rows,
    first_seq: pass.firstSeq === null ? null : seqNum(pass.firstSeq),
    last_seq: pass.lastSeq === null ? null : seqNum(pass.lastSeq),
    sequence_gaps: pass.gaps.gaps,
    timestamp_anomalies: [...pass.steps.anomalies, ...bursts],
    hash_anomalies: dups,
    provider_shift: pass.providers.result(),
    rate_anomalies: pass.rate.result(),
    rotation_boundaries: [],
  }
}

/** The detectors over rows already in memory (ascending by seq); rotation is left empty. */
export function analyzeRows(rows: IntegrityRow[], thresholds: IntegrityThresholds): DetectorResults {
  const pass = new OrderedPass(rows.length, thresholds)
  const dups = new DuplicateHashDetector()
  for (const r of rows) {
    pass.push(r)
    dups.push(r.seq, r.hashKey)
  }
  return finish(
    pass,
    dups.anomalies,
    burstsOf(
      rows.map((r) => r.ts),
      thresholds.burst_threshold,
    ),
  )
}

/** Window mode: the last `window` rows by seq (2..10000). */
export function analyzeWindow(
  db: Database.Database,
  window: number,
  thresholds: IntegrityThresholds,
): DetectorResults {
  return analyzeRows(loadWindow(db, checkWindow(window)), thresholds)
}

const CHECK_EVERY = 1024

/** --all: one ascending streaming pass plus SQL aggregates for duplicates and bursts. */
export function analyzeAll(
  db: Database.Database,
  thresholds: IntegrityThresholds,
  hooks: IntegrityHooks = {},
): DetectorResults {
  let n: number
  try {
    n = Number(db.prepare('SELECT COUNT(*) FROM chain').pluck().safeIntegers(true).get() as bigint)
  } catch (e) {
    throw asChainReadError(e, 'counting rows')
  }
  const pass = new OrderedPass(n, thresholds)
  const cancelled = (): boolean => hooks.signal?.aborted === true
  hooks.onProgress?.(0, n, 'integrity')
  for (const row of streamRows(db)) {
    pass.push(row)
    if (pass.rows % CHECK_EVERY === 0) {
      if (cancelled())
        throw new AuditError('cancelled', `integrity pass cancelled after ${pass.rows} of ${n} rows`)
      hooks.onProgress?.(pass.rows, n, 'integrity')
    }
  }
  if (pass.rows !== n)
    throw new AuditError(
      'io',
      `the chain changed during the integrity pass (${n} rows counted, ${pass.rows} read)`,
    )
  if (cancelled()) throw new AuditError('cancelled', 'integrity pass cancelled')
  const dups = duplicatesInChain(db)
  const bursts = burstsInChain(db, thresholds.burst_threshold)
  hooks.onProgress?.(n, n, 'integrity')
  return finish(pass, dups, bursts)
}

/** What the monitor reads a chain through: SQLite on a verified copy, or the direct file reader. */
export interface IntegritySource {
  /** The detectors over the last `limit` rows by seq (rotation left empty). */
  window(limit: number, thresholds: IntegrityThresholds): Promise<DetectorResults>
  /** The --all pass. */
  all(thresholds: IntegrityThresholds, hooks: IntegrityHooks): Promise<DetectorResults>
  verify: RangeVerifier
}

export function sqliteSource(chain: ChainFile): IntegritySource {
  return {
    window: (limit, thresholds) => Promise.resolve(analyzeRows(loadWindow(chain.db, limit), thresholds)),
    all: (thresholds, hooks) => Promise.resolve(analyzeAll(chain.db, thresholds, hooks)),
    verify: (keys, opts) => verifyChain(chain, keys, opts),
  }
}

/** The full run: detectors, then (with keys) the rotation detector over the same seq range. */
export async function runIntegrity(
  chain: ChainFile | IntegritySource,
  opts: RunIntegrityOptions = {},
): Promise<IntegrityRun> {
  const source = 'window' in chain ? chain : sqliteSource(chain)
  const thresholds = resolveThresholds(opts.thresholds)
  const mode = opts.all ? 'all' : 'window'
  const hooks: IntegrityHooks = {
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  }
  const window = mode === 'window' ? checkWindow(opts.window ?? DEFAULT_WINDOW) : null
  const results =
    window === null ? await source.all(thresholds, hooks) : await source.window(window, thresholds)
  const keys = opts.keys ?? []
  const progress = opts.onProgress
  const rotation = await detectRotation(source.verify, keys, results.first_seq, results.last_seq, {
    ...(progress ? { onProgress: (d: number, t: number) => progress(d, t, 'rotation') } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(mode === 'all' && opts.wholeChainVerdict ? { verdict: opts.wholeChainVerdict } : {}),
  })
  results.rotation_boundaries = rotation.boundaries
  return {
    report: assembleReport(results),
    mode,
    thresholds,
    rotation_note: rotation.note,
    rotation_checked: keys.length > 0 && results.first_seq !== null,
    ...(window !== null ? { window_requested: window } : {}),
  }
}
