// The entries table's gap rows (issue 35, Wireshark-style): where the seq-ordered listing skips seqs,
// one row stands for the absent ones. Which seqs are absent between two live rows is a fact of the
// listing (seqGaps); before the first or after the last live row a gap row is shown only where the
// verdict or recovery names seqs (a truncation, recovered rows) — the table never guesses how far a
// chain went. Pure, unit-tested; the layout maps the table's display rows onto listing positions.
import type { SeqGap } from '../../../shared/chain-types'
import type { RecoveredRow } from '../../../shared/recovery-types'
import type { VerifyVerdict } from '../../../shared/verify-types'

/** Seqs `from`–`to` that no live row holds, between the live rows `after` and `before` (null: none). */
export interface GapSpan {
  from: number
  to: number
  after: number | null
  before: number | null
}

export function spanOfGap(g: SeqGap): GapSpan {
  return { from: g.after_seq + 1, to: g.before_seq - 1, after: g.after_seq, before: g.before_seq }
}

/** `seq 41 missing`, `seqs 253–260 missing`. */
export function spanTitle(s: GapSpan): string {
  return s.from === s.to ? `seq ${s.from} missing` : `seqs ${s.from}–${s.to} missing`
}

/**
 * Seqs outside the live chain that the evidence names: findings (a truncation against a prior, rows
 * recovered past the head) and recovered rows placed by their links. A `deleted` finding of unplaced
 * rows is left out: its range says where they can be, not where they were.
 */
export function edgeSpans(
  first: number | null,
  last: number | null,
  verdict: VerifyVerdict | null,
  recovered: readonly RecoveredRow[],
): { lead: GapSpan | null; trail: GapSpan | null } {
  if (first === null || last === null) return { lead: null, trail: null }
  let lo: number | null = null
  let hi: number | null = null
  const see = (s: number): void => {
    if (!Number.isSafeInteger(s)) return
    if (s < first && (lo === null || s < lo)) lo = s
    if (s > last && (hi === null || s > hi)) hi = s
  }
  for (const f of verdict?.cancelled ? [] : (verdict?.findings ?? [])) {
    if (f.unplaced !== undefined) continue
    see(f.from_seq)
    see(f.to_seq)
  }
  for (const r of recovered) if (r.seq !== null && r.status !== 'unplaced') see(r.seq)
  return {
    lead: lo === null ? null : { from: lo, to: first - 1, after: null, before: first },
    trail: hi === null ? null : { from: last + 1, to: hi, after: last, before: null },
  }
}

export type DisplayRow = { kind: 'live'; index: number } | { kind: 'gap'; span: GapSpan }

/**
 * Display rows of a seq-ordered listing of `live` rows with its gap rows: in seq_asc order the lead
 * span, the live rows with each gap before the row that follows it, the trail span; seq_desc is the
 * same read backwards.
 */
export class GapLayout {
  readonly count: number
  private readonly lead: number

  constructor(
    readonly live: number,
    private readonly gaps: readonly SeqGap[],
    private readonly edges: { lead: GapSpan | null; trail: GapSpan | null },
    private readonly desc: boolean,
  ) {
    this.lead = edges.lead ? 1 : 0
    this.count = live + gaps.length + this.lead + (edges.trail ? 1 : 0)
  }

  /**
   * Display position (ascending) of gap k, in listing order: computed, not stored, so a layout costs
   * nothing to make however many gaps the chain has.
   */
  private at(k: number): number {
    return this.gaps[k]!.index + k + this.lead
  }

  private asc(d: number): number {
    return this.desc ? this.count - 1 - d : d
  }

  /** Gaps whose display position is before `a` (ascending). */
  private gapsBefore(a: number): number {
    let lo = 0
    let hi = this.gaps.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.at(mid) < a) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** What display row `d` shows (null outside the table). */
  row(d: number): DisplayRow | null {
    if (d < 0 || d >= this.count) return null
    const a = this.asc(d)
    if (this.edges.lead && a === 0) return { kind: 'gap', span: this.edges.lead }
    if (this.edges.trail && a === this.count - 1) return { kind: 'gap', span: this.edges.trail }
    const k = this.gapsBefore(a)
    if (k < this.gaps.length && this.at(k) === a) return { kind: 'gap', span: spanOfGap(this.gaps[k]!) }
    const i = a - this.lead - k
    return { kind: 'live', index: this.desc ? this.live - 1 - i : i }
  }

  /** The listing position shown at or next to display row `d` (for fetching the pages in view). */
  liveNear(d: number): number {
    const a = this.asc(Math.max(0, Math.min(d, this.count - 1)))
    const i = Math.max(0, Math.min(this.live - 1, a - this.lead - this.gapsBefore(a)))
    return this.desc ? this.live - 1 - i : i
  }

  /** The display row of listing position `i` (in the listing's own order). */
  displayOf(i: number): number {
    const ia = this.desc ? this.live - 1 - i : i
    // Gaps placed before live row ia: those with index <= ia.
    let lo = 0
    let hi = this.gaps.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.gaps[mid]!.index <= ia) lo = mid + 1
      else hi = mid
    }
    const a = ia + this.lead + lo
    return this.desc ? this.count - 1 - a : a
  }

  /** The gap row holding `seq`, with its display row (null when a live row or nothing holds it). */
  gapOf(seq: number): { row: number; span: GapSpan } | null {
    const { lead, trail } = this.edges
    if (lead && seq >= lead.from && seq <= lead.to) return { row: this.desc ? this.count - 1 : 0, span: lead }
    if (trail && seq >= trail.from && seq <= trail.to)
      return { row: this.desc ? 0 : this.count - 1, span: trail }
    // The first gap whose before_seq is above seq.
    let lo = 0
    let hi = this.gaps.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.gaps[mid]!.before_seq <= seq) lo = mid + 1
      else hi = mid
    }
    const g = this.gaps[lo]
    if (!g || seq <= g.after_seq) return null
    const a = this.at(lo)
    return { row: this.desc ? this.count - 1 - a : a, span: spanOfGap(g) }
  }
}

/**
 * Whether a seq is a live row, from the listing's gaps: false for a seq inside a gap or outside the
 * live chain, true for one inside and in no gap, null when not known (gaps not loaded, or past the
 * last gap of a list that stopped short).
 */
export function liveness(
  seq: number,
  first: number | null,
  last: number | null,
  gaps: { gaps: readonly SeqGap[]; truncated: boolean } | null,
): boolean | null {
  if (first === null || last === null) return false
  if (seq < first || seq > last) return false
  if (gaps === null) return null
  const layout = new GapLayout(0, gaps.gaps, { lead: null, trail: null }, false)
  if (layout.gapOf(seq) !== null) return false
  const lastGap = gaps.gaps[gaps.gaps.length - 1]
  if (gaps.truncated && (!lastGap || seq > lastGap.before_seq)) return null
  return true
}

/** The span of a missing seq: its gap, or the part outside the live chain from it to the edge. */
export function spanAround(
  seq: number,
  first: number | null,
  last: number | null,
  gaps: readonly SeqGap[],
  edges: { lead: GapSpan | null; trail: GapSpan | null },
): GapSpan | null {
  const inGap = new GapLayout(0, gaps, edges, false).gapOf(seq)
  if (inGap) return inGap.span
  if (first === null || last === null) return null
  // Outside the live chain, where no evidence names seqs: that seq alone (how far the chain went is
  // not known).
  if (seq < first) return { from: seq, to: seq, after: null, before: first }
  if (seq > last) return { from: seq, to: seq, after: last, before: null }
  return null
}
