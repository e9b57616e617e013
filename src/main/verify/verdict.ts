// Assembling the verdict, in the shape of the fixtures' `verify` object, from the results of the
// runs a range was verified in (in scan order).
import type { RowsDigest } from '../../shared/custody-types'
import type {
  Finding,
  FindingKind,
  PriorHead,
  VerifyBoundary,
  VerifyVerdict,
} from '../../shared/verify-types'
import { priorRowFindings } from '../chain/rows-digest'
import type { PartitionResult } from './partition'
import { mergeAdjacent, toFindings, toKeySegments, type OrdRange } from './ranges'
import { hasRange, type VerifyOptions } from './options'

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
  opts: Pick<VerifyOptions, 'range' | 'prior' | 'priorLinked'>,
  totalInChain: number,
  /** With a report prior: the digest of the same rows as they are now (`digestRows`). */
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
    prior_check = checkPrior(lookupHmac, opts.prior, last?.lastSeq ?? null, opts.priorLinked === true)
    const lastSeq = last?.lastSeq ?? 0
    const cut = opts.prior.last_seq > lastSeq
    const before = beforeBoundary(opts.prior, parts, lookupHmac)
    if (!prior_check.found && before !== null) prior_check.detail = before
    // A report prior locates a changed or deleted head among its rows (below): only a cut is truncation.
    else if (!prior_check.found && (cut || !opts.prior.rows)) {
      findings.push({
        kind: 'truncated',
        from_seq: cut ? lastSeq + 1 : opts.prior.last_seq,
        to_seq: opts.prior.last_seq,
        count: cut ? opts.prior.last_seq - lastSeq : 1,
        missing: cut ? opts.prior.last_seq - lastSeq : 0,
      })
    }
    if (opts.prior.rows && rowsNow)
      Object.assign(prior_check, compareRows(opts.prior.rows, rowsNow, findings, first?.firstSeq ?? null))
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
      from_seq: first?.firstSeq ?? null,
      to_seq: last?.lastSeq ?? null,
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

/**
 * A prior (verdict, or head alone) whose head lies before the first row of a chain whose first row
 * links to a row this file does not hold (the `trusted` boundary: rows before it archived, as the
 * writer's archive moves them to segment files, or deleted): the head is not in this file because
 * of that boundary, which verify already states, and a prior of another chain under the same key
 * reads the same. A cut (`truncated`) says rows were removed after the head; nothing here shows
 * that, so no finding is made: the words say what would compare it (the archive segment). Null
 * otherwise. A report prior's rows digest is compared block by block (compareRows) as before.
 */
function beforeBoundary(
  prior: PriorHead,
  parts: PartitionResult[],
  lookupHmac: (seq: number) => unknown,
): string | null {
  const firstPart = parts.find((p) => p.rows > 0)
  if (!firstPart || firstPart.boundary?.kind !== 'trusted' || firstPart.firstSeq === null) return null
  // Only a head no row of this file holds (a row there with another hmac_hash is compared as before).
  if (prior.last_seq >= firstPart.firstSeq || lookupHmac(prior.last_seq) !== undefined) return null
  return `the prior head seq=${prior.last_seq} lies before this chain's first row (seq ${firstPart.firstSeq}), which links to a row this file does not hold (rows before it archived or deleted, as the boundary says): nothing in this file can be compared with the prior, and it is no finding — verify-continuity with the archive segment that holds seq ${prior.last_seq} compares it`
}

/** What a prior lets verify compare, said wherever a prior "matches". */
export const PRIOR_COMPARES =
  'the report records only seq and hmac_hash, so it cannot tell a body, prev_hash or canonical_hash edit that kept the hmac_hash: the body hash and HMAC checks of this verify are what find those'

/** The rows a report prior covered, against the same rows now: findings added, and words for prior_check. */
function compareRows(
  prior: RowsDigest,
  now: RowsDigest,
  findings: Finding[],
  /** The live chain's first seq (null: no rows). */
  firstSeq: number | null,
): { rows_unchanged: boolean; rows_detail: string } {
  const found = priorRowFindings(prior, now)
  for (const f of found) findings.push({ ...f, against_prior: true })
  const span =
    prior.first_seq === null ? 'no rows' : `${prior.count} rows, seq ${prior.first_seq}-${prior.last_seq}`
  // The digest holds seq and hmac_hash only (rows-digest.ts): a match says those two, nothing of the
  // bodies, prev_hash or canonical_hash — never "unchanged" for what was not compared (issue 35).
  if (prior.digest === now.digest && prior.count === now.count)
    return {
      rows_unchanged: true,
      rows_detail: `every row the report covered (${span}) is still there with the seq and hmac_hash it recorded (${PRIOR_COMPARES})`,
    }
  const first = found[0]
  return {
    rows_unchanged: false,
    rows_detail: first
      ? `the rows differ from the report's record (${span}): first change found in seq ${first.from_seq}-${first.to_seq} (${first.kind})`
      : now.last_seq === null && firstSeq !== null && prior.last_seq !== null && prior.last_seq < firstSeq
        ? `none of the rows the report covered (${span}) is in this file: they lie before this chain's first row (seq ${firstSeq}); no row it recorded differs`
        : `the chain now ends at seq ${now.last_seq ?? 'none'}, before the report's head; no other change found among the rows before it`,
  }
}

function checkPrior(
  lookupHmac: (seq: number) => unknown,
  prior: PriorHead,
  lastSeq: number | null,
  linked: boolean,
): NonNullable<VerifyVerdict['prior_check']> {
  const row = lookupHmac(prior.last_seq)
  const named = prior.first !== undefined || prior.rows !== undefined
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
          ? `chain truncated: the prior head seq=${prior.last_seq} is gone; the chain now ends at seq=${lastSeq}${named || linked ? '' : headOnly(lastSeq)}`
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
    detail: `the prior head seq=${prior.last_seq} is still in the chain with the head_hmac the prior recorded (the only field of it the prior holds)${afterPrior(prior, lastSeq)}`,
  }
}

/**
 * What a prior of its head alone proves when the chain ends before that head (round 8's decision):
 * a verdict written before `verify --json` named its first row, or a report before its coverage
 * block, holds no row of this chain to compare (./prior-chain.ts refuses a prior with one that
 * differs), so it says its author saw a chain under these keys reach that seq, not that this chain
 * did. Its author's word is the finding (the shared fixture truncated-tail's head-only verdict makes
 * the cut visible); the words say the rest: a prior of another, longer chain under the same key
 * reads the same.
 */
function headOnly(lastSeq: number): string {
  return `; this prior records its head alone (no first row, no rows digest): nothing in it ties it to this chain, so this is its author's word that they saw this chain reach that seq — a prior of another chain under the same key, longer than seq=${lastSeq}, reads the same`
}

/**
 * What a prior cannot say: the rows sealed after its head. Rows sealed after it and since cut from
 * the tail, with a later prior withheld and this older one handed over instead, leave a chain this
 * prior finds unchanged; one document cannot show that a later one exists (docs/custody.md).
 */
function afterPrior(prior: PriorHead, lastSeq: number | null): string {
  if (lastSeq === null || lastSeq <= prior.last_seq) return ''
  const when = prior.source?.generated_at !== undefined ? ` (written ${prior.source.generated_at})` : ''
  return `; this prior${when} says nothing of the rows after it (seq ${prior.last_seq + 1}-${lastSeq}) nor of rows sealed after it and since cut from the tail: a later prior withheld in favour of this one cannot be told from it`
}
