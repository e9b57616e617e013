// Whole-chain or segment verification: resolves the range, verifies it (in one pass or in parallel
// partitions), and assembles the verdict in the shape of the fixtures' `verify` object.
import type Database from 'better-sqlite3'
import type { RowsDigest } from '../../shared/custody-types'
import type {
  Finding,
  FindingKind,
  PriorHead,
  VerifyBoundary,
  VerifyRangeOptions,
  VerifyVerdict,
} from '../../shared/verify-types'
import type { ChainFile } from '../chain/reader'
import { digestRowsSql, priorBounds, priorRowFindings } from '../custody/rows-digest'
import { AuditError, asChainReadError } from '../errors'
import { INT64_MAX, INT64_MIN, verifyPartition, type PartitionResult, type PartitionSpec } from './partition'
import { mergeAdjacent, toFindings, toKeySegments, type OrdRange } from './ranges'
import { defaultWorkerCount, PARALLEL_MIN_ROWS, runPartitionsOnWorkers, verifyWorkerScript } from './parallel'
import type { KeyMaterial } from './secrets'

export interface ResolvedRange {
  fromSeq: bigint
  toSeq: bigint
  rows: number
  empty: boolean
}

export interface VerifyOptions {
  range?: VerifyRangeOptions
  prior?: PriorHead
  onProgress?: (done: number, total: number) => void
  signal?: { aborted: boolean }
  /** Worker threads to use for large ranges (default: the cores available; 1 = this thread only). */
  workers?: number
  /**
   * Allow an empty key set: body hashes, links, seqs and columns are checked, HMACs are not (no
   * hmac_mismatch, no key segments). Only verify-continuity asks for it, and says so in its output.
   */
  keyless?: boolean
}

/** The refusal of an empty key set, unless the caller asked for a keyless check. */
export function requireKeys(keys: KeyMaterial[], opts: VerifyOptions): void {
  if (keys.length === 0 && !opts.keyless)
    throw new AuditError('no_secret', 'no candidate key: an HMAC chain cannot be verified without its secret')
}

export function hasRange(r: VerifyRangeOptions | undefined): boolean {
  return (
    r !== undefined &&
    (r.seq_start !== undefined ||
      r.seq_end !== undefined ||
      r.since_ns !== undefined ||
      r.until_ns !== undefined ||
      r.last_n !== undefined)
  )
}

function big(v: number | string | undefined, dflt: bigint): bigint {
  if (v === undefined) return dflt
  return BigInt(v)
}

/**
 * Resolve range options to one contiguous seq range. Time bounds select the seqs of the first and
 * last rows inside the window and verify everything between them, linked to the row before: unlike
 * the reference (§3.3), a window that skips the chain's first rows is not a false "chain broken".
 */
export function resolveRange(db: Database.Database, range: VerifyRangeOptions | undefined): ResolvedRange {
  let from = big(range?.seq_start, INT64_MIN)
  let to = big(range?.seq_end, INT64_MAX)
  const q = (sql: string, ...params: unknown[]): unknown[] | undefined =>
    db
      .prepare(sql)
      .raw(true)
      .safeIntegers(true)
      .get(...params) as unknown[] | undefined
  try {
    if (range?.since_ns !== undefined || range?.until_ns !== undefined) {
      // A date outside the years timestamp_ns can hold (1677-2262 as int64 nanoseconds) selects
      // nothing or everything; SQLite cannot bind such a number (Python raises OverflowError).
      const since = big(range.since_ns, INT64_MIN)
      const until = big(range.until_ns, INT64_MAX)
      if (since > INT64_MAX || until < INT64_MIN || since > until)
        return { fromSeq: 0n, toSeq: -1n, rows: 0, empty: true }
      const row = q(
        `SELECT MIN(seq), MAX(seq) FROM chain
          WHERE seq >= ? AND seq <= ? AND timestamp_ns >= ? AND timestamp_ns <= ?`,
        from,
        to,
        since < INT64_MIN ? INT64_MIN : since,
        until > INT64_MAX ? INT64_MAX : until,
      )
      if (!row || row[0] === null) return { fromSeq: 0n, toSeq: -1n, rows: 0, empty: true }
      from = row[0] as bigint
      to = row[1] as bigint
    }
    if (range?.last_n !== undefined) {
      const n = Math.max(1, Math.floor(range.last_n))
      const row = q(
        'SELECT seq FROM chain WHERE seq >= ? AND seq <= ? ORDER BY seq DESC LIMIT 1 OFFSET ?',
        from,
        to,
        n - 1,
      )
      if (row) from = row[0] as bigint
    }
    const count = q('SELECT COUNT(*) FROM chain WHERE seq >= ? AND seq <= ?', from, to)
    const rows = Number((count?.[0] as bigint | undefined) ?? 0n)
    return { fromSeq: from, toSeq: to, rows, empty: rows === 0 }
  } catch (e) {
    throw asChainReadError(e, 'resolving the verify range')
  }
}

/**
 * Split a range into `n` partitions by seq value (chains are dense in seq, so this balances rows
 * without an O(n) OFFSET scan). Ordinals are fixed up after the partitions return (`shiftOrdinals`).
 */
export function planPartitions(db: Database.Database, r: ResolvedRange, n: number): PartitionSpec[] {
  if (r.empty || n <= 1) return [{ fromSeq: r.fromSeq, toSeq: r.toSeq, firstOrd: 0, first: true }]
  const bounds = db
    .prepare('SELECT MIN(seq), MAX(seq) FROM chain WHERE seq >= ? AND seq <= ?')
    .raw(true)
    .safeIntegers(true)
    .get(r.fromSeq, r.toSeq) as [bigint, bigint]
  const lo = bounds[0]
  const hi = bounds[1]
  const span = hi - lo + 1n
  const parts = BigInt(n)
  const specs: PartitionSpec[] = []
  for (let i = 0n; i < parts; i++) {
    const from = i === 0n ? r.fromSeq : lo + (span * i) / parts
    const to = i === parts - 1n ? r.toSeq : lo + (span * (i + 1n)) / parts - 1n
    if (to >= from) specs.push({ fromSeq: from, toSeq: to, firstOrd: 0, first: specs.length === 0 })
  }
  return specs
}

/** Give each partition's rows their ordinals in the whole range (partitions are in seq order). */
export function shiftOrdinals(parts: PartitionResult[]): PartitionResult[] {
  let base = 0
  return parts.map((p) => {
    const shift = <T>(rs: OrdRange<T>[]) =>
      rs.map((r) => ({ ...r, firstOrd: r.firstOrd + base, lastOrd: r.lastOrd + base }))
    const out = { ...p, findings: shift(p.findings), segments: shift(p.segments) }
    base += p.rows
    return out
  })
}

const BOUNDARY_DETAIL = {
  genesis: 'first row links to GENESIS (64 zeros)',
  predecessor: 'first row of the segment is linked to its predecessor in this file',
  trusted:
    'no predecessor in this file: the stored prev_hash is trusted as the boundary (rows before it were archived or deleted; use an archive segment to confirm)',
} as const

export function assembleVerdict(
  parts: PartitionResult[],
  /** The stored hmac_hash of the row with this seq (undefined when there is none), for the prior check. */
  lookupHmac: (seq: number) => unknown,
  opts: VerifyOptions,
  resolved: ResolvedRange,
  totalInChain: number,
  /** With a report prior: the digest of the same rows as they are now (`priorRowsNow`). */
  rowsNow?: RowsDigest,
): VerifyVerdict {
  const findingRanges: OrdRange<FindingKind>[] = mergeAdjacent(parts.flatMap((p) => p.findings))
  const segments = toKeySegments(mergeAdjacent(parts.flatMap((p) => p.segments)))
  const withRows = parts.filter((p) => p.rows > 0)
  const first = withRows[0]
  const last = withRows[withRows.length - 1]
  const entries = parts.reduce((n, p) => n + p.rows, 0)
  const findings = toFindings(findingRanges)

  let prior_check: VerifyVerdict['prior_check']
  if (opts.prior) {
    prior_check = checkPrior(lookupHmac, opts.prior, last?.lastSeq ?? null)
    const lastSeq = last?.lastSeq ?? 0
    const cut = opts.prior.last_seq > lastSeq
    // A report prior locates a changed or deleted head among its rows (below): only a cut is truncation.
    if (!prior_check.found && (cut || !opts.prior.rows)) {
      findings.push({
        kind: 'truncated',
        from_seq: cut ? lastSeq + 1 : opts.prior.last_seq,
        to_seq: opts.prior.last_seq,
        count: cut ? opts.prior.last_seq - lastSeq : 1,
        missing: cut ? opts.prior.last_seq - lastSeq : 0,
      })
    }
    if (opts.prior.rows && rowsNow)
      Object.assign(prior_check, compareRows(opts.prior.rows, rowsNow, findings))
  }

  // A loop, not Math.min(...spread): a chain with >~120k separate findings would overflow the stack.
  let firstBad: number | null = null
  for (const f of findings) if (firstBad === null || f.from_seq < firstBad) firstBad = f.from_seq
  const verdict: VerifyVerdict = {
    valid: findings.length === 0,
    entries,
    first_seq: first?.firstSeq ?? null,
    last_seq: last?.lastSeq ?? null,
    head_hmac: last?.lastHmac ?? null,
    first_bad_seq: firstBad,
    findings,
    key_segments: segments,
  }
  if (hasRange(opts.range)) {
    verdict.range = {
      requested: opts.range!,
      from_seq: resolved.empty ? null : (first?.firstSeq ?? null),
      to_seq: resolved.empty ? null : (last?.lastSeq ?? null),
      total_in_chain: totalInChain,
    }
  }
  const b = parts.find((p) => p.rows > 0)?.boundary
  if (b) {
    const boundary: VerifyBoundary = { ...b, detail: BOUNDARY_DETAIL[b.kind] }
    verdict.boundary = boundary
  }
  if (prior_check) verdict.prior_check = prior_check
  return verdict
}

/** The rows a report prior covered, against the same rows now: findings added, and words for prior_check. */
function compareRows(
  prior: RowsDigest,
  now: RowsDigest,
  findings: Finding[],
): { rows_unchanged: boolean; rows_detail: string } {
  const found = priorRowFindings(prior, now)
  for (const f of found) findings.push({ ...f, against_prior: true })
  const span =
    prior.first_seq === null ? 'no rows' : `${prior.count} rows, seq ${prior.first_seq}-${prior.last_seq}`
  if (prior.digest === now.digest && prior.count === now.count)
    return {
      rows_unchanged: true,
      rows_detail: `every row the report covered (${span}) is still there, unchanged`,
    }
  const first = found[0]
  return {
    rows_unchanged: false,
    rows_detail: first
      ? `the rows differ from the report's record (${span}): first change found in seq ${first.from_seq}-${first.to_seq} (${first.kind})`
      : `the chain now ends at seq ${now.last_seq ?? 'none'}, before the report's head; no other change found among the rows before it`,
  }
}

function checkPrior(
  lookupHmac: (seq: number) => unknown,
  prior: PriorHead,
  lastSeq: number | null,
): NonNullable<VerifyVerdict['prior_check']> {
  const row = lookupHmac(prior.last_seq)
  prior = {
    last_seq: prior.last_seq,
    head_hmac: prior.head_hmac,
    ...(prior.source ? { source: prior.source } : {}),
  }
  if (row === undefined) {
    return {
      prior,
      found: false,
      detail:
        lastSeq !== null && prior.last_seq > lastSeq
          ? `chain truncated: the prior head seq=${prior.last_seq} is gone; the chain now ends at seq=${lastSeq}`
          : `the prior head seq=${prior.last_seq} is no longer in the chain`,
    }
  }
  if (row !== prior.head_hmac) {
    return {
      prior,
      found: false,
      detail: `the row at the prior head seq=${prior.last_seq} no longer carries the prior head_hmac`,
    }
  }
  return {
    prior,
    found: true,
    detail: `the prior head seq=${prior.last_seq} is still in the chain, unchanged`,
  }
}

export function countRows(db: Database.Database): number {
  try {
    return Number(db.prepare('SELECT COUNT(*) FROM chain').pluck().safeIntegers(true).get() as bigint)
  } catch (e) {
    throw asChainReadError(e, 'counting rows')
  }
}

/** Verify a chain (or a segment of it) against a candidate key set. */
export async function verifyChain(
  chain: ChainFile,
  keys: KeyMaterial[],
  opts: VerifyOptions = {},
): Promise<VerifyVerdict> {
  requireKeys(keys, opts)
  const total = countRows(chain.db)
  const resolved = resolveRange(chain.db, opts.range)
  let parts: PartitionResult[]
  const workers = opts.workers ?? defaultWorkerCount()
  const script = verifyWorkerScript()
  if (script && workers > 1 && resolved.rows >= PARALLEL_MIN_ROWS) {
    const specs = planPartitions(chain.db, resolved, workers)
    parts = shiftOrdinals(
      await runPartitionsOnWorkers(
        script,
        { copyPath: chain.snapshot.dbPath, displayPath: chain.displayPath },
        specs.map((spec) => ({ spec })),
        keys,
        (n) => opts.onProgress?.(n, resolved.rows),
        opts.signal,
      ),
    )
  } else {
    const spec: PartitionSpec = { fromSeq: resolved.fromSeq, toSeq: resolved.toSeq, firstOrd: 0, first: true }
    parts = resolved.empty
      ? []
      : [
          verifyPartition(chain.db, chain.columns, keys, spec, {
            onRows: (n) => opts.onProgress?.(n, resolved.rows),
            signal: opts.signal,
          }),
        ]
  }
  const lookup = (seq: number): unknown =>
    chain.db.prepare('SELECT hmac_hash FROM chain WHERE seq = ?').pluck().get(seq) as unknown
  const p = opts.prior?.rows
  const rowsNow = p ? digestRowsSql(chain.db, p.block_size, priorBounds(p)) : undefined
  return assembleVerdict(parts, lookup, opts, resolved, total, rowsNow)
}
