// The verdict with what the files remember: a post-pass over a finished verdict that lists the
// recovered rows and adds the findings only proof allows (a row is a finding only when a candidate
// key reproduces its HMAC, reference §3.2 — only a key holder can have sealed it):
// - `truncated`: proven rows after the live head (the chain continued; no --prior needed);
// - `rewritten`: seqs whose live row differs from a proven earlier version;
// - `deleted`: proven rows at seqs the live chain no longer has, between its first row and its head
//   (they close a seq_gap);
// all placed by their sealed links only (./place.ts). Rows before the first live row are what
// archiving leaves as much as a deletion: a notice, unless the archive segments are given (then a
// row in a segment is `archived`, and one in none is `deleted`). Unplaced rows are never findings.
import type { RecoveredRow, RecoveryResult, RecoverySource } from '../../shared/recovery-types'
import type { Finding, VerifyVerdict } from '../../shared/verify-types'
import { KIND_ORDER } from '../verify/ranges'
import { statusCounts } from './recover'
import { commitUnproven } from './prove'

export interface LiveExtent {
  first: bigint | null
  last: bigint | null
}

/** Distinct places (file, kind, page, frame) of the rows' sources, in file order. */
export function recoverySourcesOf(rows: RecoveredRow[]): RecoverySource[] {
  const seen = new Map<string, RecoverySource>()
  for (const r of rows)
    for (const s of r.sources) {
      const k = `${s.file}|${s.kind}|${s.page}|${s.frame ?? ''}`
      if (!seen.has(k)) seen.set(k, s)
    }
  return [...seen.values()].sort((a, b) =>
    a.file === b.file ? a.offset - b.offset : a.file === 'db' ? -1 : 1,
  )
}

/** Consecutive seqs of `rows` as findings of `kind`, each with its evidence. */
function runs(kind: 'rewritten' | 'deleted', rows: RecoveredRow[]): Finding[] {
  const bySeq = new Map<number, RecoveredRow[]>()
  for (const r of rows) {
    const list = bySeq.get(r.seq!)
    if (list) list.push(r)
    else bySeq.set(r.seq!, [r])
  }
  const seqs = [...bySeq.keys()].sort((a, b) => a - b)
  const out: Finding[] = []
  for (let i = 0; i < seqs.length;) {
    let j = i
    while (j + 1 < seqs.length && seqs[j + 1] === seqs[j]! + 1) j++
    const span = seqs.slice(i, j + 1)
    out.push({
      kind,
      from_seq: seqs[i]!,
      to_seq: seqs[j]!,
      count: span.length,
      evidence: recoverySourcesOf(span.flatMap((s) => bySeq.get(s)!)),
    })
    i = j + 1
  }
  return out
}

/** Whether a recovered seq lies in the range the verdict covers (a whole-chain verdict covers all). */
function inVerifiedRange(v: VerifyVerdict, seq: number, live: LiveExtent): boolean {
  if (!v.range) return true
  const { from_seq, to_seq, requested } = v.range
  if (from_seq === null || to_seq === null) return false
  if (seq >= from_seq && seq <= to_seq) return true
  // Past the head only when the range runs to the head with no upper bound of its own.
  const open = requested.seq_end === undefined && requested.until_ns === undefined
  return open && seq > to_seq && live.last !== null && BigInt(to_seq) === live.last
}

/** A set of rows' sealed values, asked by `hmac_hash ‖ prev_hash ‖ canonical_hash`. */
export interface SealLookup {
  has(seal: string): boolean
}

/** Every row of the segments given, and those sealed after a given hmac_hash (./segment-rows.ts). */
export interface SegmentIndex extends Iterable<SegmentRow> {
  readonly size: number
  after(prev: string): SegmentRow[]
}

/** A row of an archive segment: its sealed values (its rowid proves nothing, so it is not kept). */
export interface SegmentRow {
  prev: string
  canonical: string
  hmac: string
  /** The segment it is in. */
  path: string
}

/** The archive segments given with `--segment`: their paths and every row's sealed values. */
export interface ArchiveSegments {
  paths: string[]
  /** `hmac_hash ‖ prev_hash ‖ canonical_hash` of every row of every segment. */
  seals: SealLookup
  /** Every row of every segment (../audit/segment-forks.ts places them against the live rows). */
  rows?: SegmentIndex
}

export interface RecoveryContext {
  segments?: ArchiveSegments
}

const sealOf = (r: RecoveredRow): string => `${r.hmac_hash}${r.prev_hash}${r.canonical_hash}`

/** Sorted seqs as `a–b, c` (runs of consecutive seqs joined). */
export function seqRuns(seqs: number[]): string {
  const s = [...new Set(seqs)].sort((a, b) => a - b)
  const out: string[] = []
  for (let i = 0; i < s.length;) {
    let j = i
    while (j + 1 < s.length && s[j + 1] === s[j]! + 1) j++
    out.push(i === j ? `${s[i]}` : `${s[i]}–${s[j]}`)
    i = j + 1
  }
  return out.join(', ')
}

/**
 * The statuses the archive segments decide: a row before the live chain (or one no link places) found
 * in a segment is `archived`. A row placed before the live chain that no segment holds stays
 * `before_live`, a notice, even where a segment holds rows on both sides of it: a segment proves what
 * it holds was archived, nothing of a row it lacks — the writer's archive by date takes the rows
 * sealed before a time (reference §3.5, `timestamp_ns < before_ns`), and a row's end time need not
 * follow its seq (a span that waited for the writer's lock is sealed after one that ended later), so
 * an honest segment can leave rows out that a later archive took. Archiving moves only the rows
 * before the live chain: a row the links place inside it or past its head (deleted, cut from the
 * tail, an earlier version of a live row) stays a finding whatever segment holds it — the segments
 * are handed over by the audited party, and one holding the cut rows would otherwise hide the cut.
 */
function withSegments(rows: RecoveredRow[], segments: ArchiveSegments | undefined): RecoveredRow[] {
  if (!segments) return rows
  return rows.map((r) => {
    const archivable = r.status === 'before_live' || r.status === 'unplaced'
    return archivable && segments.seals.has(sealOf(r)) ? { ...r, status: 'archived' } : r
  })
}

/** `verdict` with the recovered rows listed and the findings their sealed links prove added. */
export function applyRecovery(
  verdict: VerifyVerdict,
  result: RecoveryResult,
  live: LiveExtent,
  ctx: RecoveryContext = {},
): VerifyVerdict {
  const rows = withSegments(
    result.rows.filter((r) => r.seq === null || inVerifiedRange(verdict, r.seq, live)),
    ctx.segments,
  )
  // Only rows a key proves and links place make findings; unplaced, archived and before-live rows never do.
  const proven = rows.filter((r) => r.key_index !== null && r.seq !== null && r.seq_exact === undefined)
  const findings = [...verdict.findings]
  const last = live.last === null ? null : Number(live.last)
  const rewritten = proven.filter((r) => r.status === 'superseded')
  const deleted = proven.filter((r) => r.status === 'deleted' && (last === null || r.seq! <= last))
  const after = proven.filter((r) => r.status === 'deleted' && last !== null && r.seq! > last)
  findings.push(...rewrittenRuns(rewritten), ...runs('deleted', deleted))
  if (after.length > 0) {
    const from = last! + 1
    // A loop, not Math.max(...spread): a truncation of 100k+ recovered rows would overflow the stack.
    let to = last!
    for (const r of after) if (r.seq! > to) to = r.seq!
    const prior = findings.findIndex((f) => f.kind === 'truncated')
    if (prior >= 0) {
      // The --prior witness and the recovered rows: where they say the same thing, one finding (the
      // recovered rows prove it). Seqs only the prior names stay the prior's finding, with its words
      // (an unsigned prior's "per an unsigned prior"): the recovered rows prove nothing past `to`.
      const p = findings.splice(prior, 1)[0]!
      const part = (a: number, b: number): Finding => ({
        ...p,
        from_seq: a,
        to_seq: b,
        count: b - a + 1,
        missing: b - a + 1,
      })
      if (p.from_seq < from) findings.push(part(p.from_seq, Math.min(p.to_seq, from - 1)))
      if (p.to_seq > to) findings.push(part(Math.max(p.from_seq, to + 1), p.to_seq))
    }
    const n = to - from + 1
    findings.push({
      kind: 'truncated',
      from_seq: from,
      to_seq: to,
      count: n,
      missing: n,
      evidence: recoverySourcesOf(after),
    })
  }
  findings.sort((a, b) => a.from_seq - b.from_seq || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind))
  let firstBad: number | null = null
  for (const f of findings) if (firstBad === null || f.from_seq < firstBad) firstBad = f.from_seq
  const notices = [...(verdict.notices ?? [])]
  const before = proven.filter((r) => r.status === 'before_live').map((r) => r.seq!)
  if (before.length > 0)
    notices.push(
      ctx.segments
        ? `rows ${seqRuns(before)} stood before the live chain in this file and are in none of the archive segments given: ` +
            'archived in a segment not given (an archive by date takes rows by their end time, which need not follow ' +
            'their seqs, so a segment may lack rows between those it holds), or deleted; verifying with their segment tells which'
        : `rows ${seqRuns(before)} stood before the live chain in this file and are no longer in it: archived or deleted; ` +
            'verifying with the archive segments tells which',
    )
  // Rows past the head set apart as possibly never committed (./prove.ts mayBeRolledBack): said, never claimed.
  // A proven row withheld as deleted past the live head (both notices below speak of such rows).
  const pastHead = (r: RecoveredRow): boolean =>
    r.status === 'deleted' && r.key_index !== null && last !== null && r.seq !== null && r.seq > last
  const spilled = result.uncommitted.filter(
    (r) =>
      pastHead(r) && r.sources.some((s) => (s.file === 'db' && s.kind === 'freelist') || commitUnproven(s)),
  )
  // Rows past the head only on database pages no commit wrote (./carve.ts pageMarks): said, never claimed.
  const unwritten = result.uncommitted.filter(
    (r) =>
      pastHead(r) &&
      r.sources.every((s) => s.file === 'db' && s.kind === 'superseded_page' && s.committed === false),
  )
  if (unwritten.length > 0)
    notices.push(
      `${unwritten.length} row(s) sealed after the live head (seqs ${seqRuns(unwritten.map((r) => r.seq!))}) lie only ` +
        "on pages of the database file no commit wrote (past the end its header records, or pages a hot journal's " +
        'rollback replaces): a transaction in flight when the writer stopped leaves rows so; so does a header ' +
        'or journal edited by hand; nothing proves they were ever committed, so no finding',
    )
  const forks = result.uncommitted.filter(
    (r) => r.status === 'superseded' && r.key_index !== null && r.seq !== null,
  )
  if (forks.length > 0)
    notices.push(
      `${forks.length} row(s) sealed after the same row as a live row that verifies (seqs ${seqRuns(forks.map((r) => r.seq!))}) ` +
        'lie only on free pages or in WAL frames no commit is known for: an earlier version resealed by a key holder, or a transaction rolled back after its ' +
        'pages spilled to the file and sealed again by the writer; nothing proves the recovered one was ever ' +
        'committed, so no finding',
    )
  if (spilled.length > 0)
    notices.push(
      `${spilled.length} row(s) sealed after the live head (seqs ${seqRuns(spilled.map((r) => r.seq!))}) lie only on ` +
        "free pages or in WAL frames no commit is known for, past the seq the chain's sqlite_sequence records: " +
        'a transaction rolled back after its pages ' +
        'spilled to the file leaves rows so, never committed; so does a cut tail if sqlite_sequence was lowered by ' +
        'hand; nothing proves which, so no finding',
    )
  // Unplaced proven rows whose (unsealed) rowids lie past the head: said, never claimed.
  const past = rows.filter(
    (r) =>
      r.status === 'unplaced' &&
      r.key_index !== null &&
      r.rowid !== undefined &&
      last !== null &&
      r.rowid > last,
  )
  if (past.length > 0)
    notices.push(
      `${past.length} row(s) sealed under a candidate key, with unsealed rowids ${seqRuns(past.map((r) => r.rowid!))} ` +
        `past the live head seq ${last}, link to no row of this chain: a tail cut past a row that is lost, or rows of ` +
        'another chain sealed under the same key; nothing proves which, so no finding',
    )
  const summary = {
    ...result.summary,
    recovered: rows.length,
    proven: rows.filter((r) => r.key_index !== null).length,
    ...statusCounts(rows),
  }
  if (!statusCounts(rows).archived) delete summary.archived
  if (!statusCounts(rows).before_live) delete summary.before_live
  return {
    ...verdict,
    valid: findings.length === 0,
    first_bad_seq: firstBad,
    findings,
    recovery: summary,
    recovered: rows,
    ...(ctx.segments ? { segments: ctx.segments.paths } : {}),
    ...(notices.length > 0 ? { notices } : {}),
  }
}

/**
 * `rewritten` findings; where a recovered version verifies and the live row does not, the finding
 * names the recovered row the original and what the live row changed.
 */
function rewrittenRuns(rows: RecoveredRow[]): Finding[] {
  const plain = rows.filter((r) => !r.original)
  const originals = rows.filter((r) => r.original)
  const out = runs('rewritten', plain)
  for (const f of runs('rewritten', originals)) {
    const changed = new Set<string>()
    for (const r of originals)
      if (r.seq! >= f.from_seq && r.seq! <= f.to_seq) for (const c of r.changed ?? []) changed.add(c)
    out.push({ ...f, original: 'recovered', changed: [...changed] })
  }
  return out
}
