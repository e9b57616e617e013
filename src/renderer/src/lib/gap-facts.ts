// What is known of seqs no live row holds (a gap row, a missing seq selected): the verdict's findings
// there, in its words, and the recovered rows the files still hold at those seqs. Only what the
// evidence gives: with no verdict the seqs are "not verified yet", never "deleted"; a finding is
// quoted with the verdict (keyed, or the keyless check) that made it; a recovered row keeps its proof.
// Pure, unit-tested.
import type { RecoveredRow } from '../../../shared/recovery-types'
import type { Finding, VerifyVerdict } from '../../../shared/verify-types'
import { formatCount } from './format'
import type { GapSpan } from './gap-rows'
import { findingLabel, findingRange } from './verdict'

export interface GapFact {
  /** The finding's label as the verdict shows it (`sequence gap`, `truncated (vs prior report)`, …). */
  label: string
  /** The sentence: the finding's seqs and what its kind means. */
  text: string
  kind: Finding['kind']
}

export interface GapKnowledge {
  /** Which verdict the facts are from: the keyed one, the keyless check, or none yet. */
  verdict: 'verify' | 'keyless check' | null
  facts: GapFact[]
  /** Recovered rows placed at these seqs (by their sealed links), in seq order. */
  recovered: RecoveredRow[]
  /** Whether the files were searched (null: not yet). */
  searched: boolean | null
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`
}

function seqs(f: Finding): string {
  return f.from_seq === f.to_seq ? `seq ${f.from_seq}` : `seqs ${findingRange(f)}`
}

/** The sentence of a finding at a gap, from its kind's definition (README of the fixtures, §11). */
function factText(f: Finding, span: GapSpan, priorLast: number | null): string {
  switch (f.kind) {
    case 'seq_gap':
      return `${seqs(f)} ${f.from_seq === f.to_seq ? 'does' : 'do'} not follow the seq before ${
        f.from_seq === f.to_seq ? 'it' : 'them'
      } + 1${f.missing !== undefined ? ` (${plural(f.missing, 'seq')} absent)` : ''}.`
    case 'link_mismatch':
      return `the prev_hash of ${seqs(f)} is not the HMAC of the live row before it${
        span.after !== null && f.from_seq === span.before ? ` (seq ${span.after})` : ''
      }.`
    case 'truncated':
      return `${
        priorLast !== null ? `the prior report recorded rows up to seq ${priorLast}; ` : ''
      }${seqs(f)} ${f.missing !== undefined ? `(${plural(f.missing, 'row')}) ` : ''}are not in the live chain.${
        f.unsigned_prior ? ' The prior is unsigned: what it says is only what its author wrote.' : ''
      }`
    case 'deleted':
      if (f.against_prior)
        return `rows the prior report recorded at ${seqs(f)} are gone.${
          f.unsigned_prior ? ' The prior is unsigned: what it says is only what its author wrote.' : ''
        }`
      if (f.segments)
        return `an archive segment given holds rows sealed under a candidate key after rows of the live chain, at ${seqs(f)}, which the live chain lacks.`
      if (f.unplaced !== undefined)
        return `${plural(f.unplaced, 'proven row')} recovered from the files that no sealed link places: they can be anywhere in ${seqs(f)}, not necessarily here.`
      return `proven rows recovered from the files at ${seqs(f)}${
        f.evidence ? `, found in ${plural(f.evidence.length, 'place')}` : ''
      }.`
    default:
      return `${seqs(f)}.`
  }
}

/** Does the finding speak of these seqs: inside them, or at the live row right after them (its join)? */
function concerns(f: Finding, span: GapSpan): boolean {
  if (f.to_seq >= span.from && f.from_seq <= span.to) return true
  return (
    span.before !== null &&
    (f.kind === 'seq_gap' || f.kind === 'link_mismatch') &&
    f.from_seq <= span.before &&
    span.before <= f.to_seq
  )
}

/**
 * What is known of `span`: the findings of `verdict` (the keyed verdict, else the keyless check's)
 * that speak of it, and the recovered rows at its seqs. `searched`: the recovered rows' summary says
 * whether the files were searched (null: no search yet).
 */
export function gapKnowledge(
  span: GapSpan,
  verdict: VerifyVerdict | null,
  recovered: readonly RecoveredRow[],
  searched: boolean | null,
): GapKnowledge {
  const usable = verdict && !verdict.cancelled ? verdict : null
  const priorLast = usable?.prior_check?.prior.last_seq ?? null
  const facts = (usable?.findings ?? [])
    .filter((f) => concerns(f, span))
    .map((f) => ({ label: findingLabel(f), text: factText(f, span, priorLast), kind: f.kind }))
  return {
    verdict: usable ? (usable.hmac_checked === false ? 'keyless check' : 'verify') : null,
    facts,
    recovered: recovered
      .filter((r) => r.seq !== null && r.status !== 'unplaced' && r.seq >= span.from && r.seq <= span.to)
      .sort((a, b) => a.seq! - b.seq!),
    searched,
  }
}

/** One line for the gap row: the verdict's labels and the recovered rows, or "not verified yet". */
export function gapSummary(k: GapKnowledge): string {
  const parts: string[] = []
  if (k.verdict === null) parts.push('not verified yet')
  else if (k.facts.length === 0) parts.push(`${k.verdict}: no finding names these seqs`)
  else parts.push(`${k.verdict}: ${[...new Set(k.facts.map((f) => f.label))].join(', ')}`)
  if (k.recovered.length > 0) {
    const proven = k.recovered.filter((r) => r.key_index !== null).length
    parts.push(`${plural(k.recovered.length, 'recovered row')} (${formatCount(proven)} proven)`)
  }
  return parts.join(' · ')
}
