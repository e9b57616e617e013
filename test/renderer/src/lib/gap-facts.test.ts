// What a gap row says (issue 35): with no verdict only "not verified yet"; a finding is quoted only
// where it names the gap's seqs (or the live row right after it); unplaced rows never make a span
// nor a claim of place; the recovered rows listed are those placed at the gap's seqs. Generated
// verdicts of every finding kind at random places, and the real verdicts of the shared fixtures.
import { describe, expect, it } from 'vitest'
import type { Finding, FindingKind, VerifyVerdict } from '../../../../src/shared/verify-types'
import { gapKnowledge, gapSummary } from '../../../../src/renderer/src/lib/gap-facts'
import { edgeSpans, type GapSpan } from '../../../../src/renderer/src/lib/gap-rows'
import { mulberry32 } from '../../../main/testing/prng'
import { verdictOf } from '../test/recovered-kit'

const KINDS: FindingKind[] = [
  'seq_gap',
  'body_hash_mismatch',
  'link_mismatch',
  'hmac_mismatch',
  'column_mismatch',
  'truncated',
  'rewritten',
  'deleted',
]

function verdict(findings: Finding[], extra: Partial<VerifyVerdict> = {}): VerifyVerdict {
  return {
    valid: findings.length === 0,
    entries: 200,
    first_seq: 1,
    last_seq: 200,
    head_hmac: null,
    first_bad_seq: null,
    findings,
    key_segments: [],
    ...extra,
  }
}

describe('gap knowledge', () => {
  it('quotes exactly the findings that name the gap, from the verdict that made them', () => {
    const rnd = mulberry32(3535)
    for (let round = 0; round < 300; round++) {
      const findings: Finding[] = Array.from({ length: Math.floor(rnd() * 6) }, () => {
        const from = 1 + Math.floor(rnd() * 220)
        const to = from + Math.floor(rnd() * 5)
        return {
          kind: KINDS[Math.floor(rnd() * KINDS.length)]!,
          from_seq: from,
          to_seq: to,
          count: to - from + 1,
        }
      })
      const from = 2 + Math.floor(rnd() * 190)
      const span: GapSpan = { from, to: from + Math.floor(rnd() * 4), after: from - 1, before: 0 }
      span.before = span.to + 1
      const keyless = rnd() < 0.3
      const k = gapKnowledge(span, verdict(findings, keyless ? { hmac_checked: false } : {}), [], true)
      const named = findings.filter(
        (f) =>
          (f.to_seq >= span.from && f.from_seq <= span.to) ||
          ((f.kind === 'seq_gap' || f.kind === 'link_mismatch') &&
            f.from_seq <= span.before! &&
            span.before! <= f.to_seq),
      )
      expect(k.facts.map((f) => f.kind)).toEqual(named.map((f) => f.kind))
      expect(k.verdict).toBe(keyless ? 'keyless check' : 'verify')
      expect(gapSummary(k).startsWith(keyless ? 'keyless check: ' : 'verify: ')).toBe(true)
      if (named.length === 0) expect(gapSummary(k)).toContain('no finding names these seqs')
    }
  })

  it('says "not verified yet" and nothing else without a verdict, or with a cancelled one', () => {
    const span: GapSpan = { from: 40, to: 40, after: 39, before: 41 }
    for (const v of [
      null,
      verdict([{ kind: 'seq_gap', from_seq: 41, to_seq: 41, count: 1, missing: 1 }], { cancelled: true }),
    ]) {
      const k = gapKnowledge(span, v, [], null)
      expect(k).toEqual({ verdict: null, facts: [], recovered: [], searched: null })
      expect(gapSummary(k)).toBe('not verified yet')
    }
  })

  it('never places unplaced rows: no edge span from their range, and their finding says they can be anywhere', () => {
    const unplaced: Finding = { kind: 'deleted', from_seq: 1, to_seq: 230, count: 30, unplaced: 30 }
    expect(edgeSpans(1, 200, verdict([unplaced]), [])).toEqual({ lead: null, trail: null })
    const k = gapKnowledge({ from: 50, to: 50, after: 49, before: 51 }, verdict([unplaced]), [], true)
    expect(k.facts[0]!.text).toContain('not necessarily here')
  })

  it('a deleted finding an archive segment proves names the segment, never "recovered from the files"', () => {
    for (const [from, to] of [
      [50, 50],
      [48, 52],
    ] as const) {
      const f: Finding = {
        kind: 'deleted',
        from_seq: from,
        to_seq: to,
        count: to - from + 1,
        segments: ['/a/seg.db'],
      }
      const k = gapKnowledge({ from, to, after: from - 1, before: to + 1 }, verdict([f]), [], true)
      expect(k.facts[0]!.label).toBe('deleted (archive segment)')
      expect(k.facts[0]!.text).toContain('an archive segment given holds rows sealed')
      expect(k.facts[0]!.text).not.toContain('recovered from the files')
    }
  })

  it('on the real verdict of rec-deleted-middle: a deleted seq lists its recovered rows and the deleted finding', async () => {
    const rec = await verdictOf('rec-deleted-middle')
    const rows = rec.recovered ?? []
    const deleted = rows.filter((r) => r.status === 'deleted')
    expect(deleted.length).toBeGreaterThan(0)
    const s = deleted[0]!.seq!
    const k = gapKnowledge(
      { from: s, to: s, after: s - 1, before: s + 1 },
      rec,
      rows,
      rec.recovery?.searched ?? null,
    )
    expect(k.recovered.map((r) => r.seq)).toEqual(
      rows.filter((r) => r.seq === s && r.status !== 'unplaced').map((r) => r.seq),
    )
    expect(k.facts.some((f) => f.kind === 'deleted')).toBe(true)
    expect(gapSummary(k)).toMatch(/recovered row/)
  })
})
