// The key notes beside a verdict (issue 35), against generated verdicts: a note may only say what
// the verdict proves. Attack classes: a break in the middle of a key's run (tampering) must never
// be explained away as a missing rotated key; a cancelled run, no keys, or an empty chain get no
// note; the CLI's sentence exactly when no key reproduces any row.
import { describe, expect, it } from 'vitest'
import type { Finding, KeySegment, VerifyVerdict } from '../../../../src/shared/verify-types'
import { keyLabel, keyNotes, NO_KEY_MATCHES } from '../../../../src/renderer/src/lib/key-notes'

function verdict(
  n: number,
  segments: KeySegment[],
  findings: Finding[],
  extra: Partial<VerifyVerdict> = {},
): VerifyVerdict {
  return {
    valid: findings.length === 0,
    entries: n,
    first_seq: n > 0 ? 1 : null,
    last_seq: n > 0 ? n : null,
    head_hmac: '',
    first_bad_seq: findings[0]?.from_seq ?? null,
    findings,
    key_segments: segments,
    ...extra,
  } as VerifyVerdict
}
const seg = (key_index: number, from_seq: number, to_seq: number): KeySegment => ({
  key_index,
  from_seq,
  to_seq,
  count: to_seq - from_seq + 1,
})
const hmac = (from_seq: number, to_seq: number): Finding => ({
  kind: 'hmac_mismatch',
  from_seq,
  to_seq,
  count: to_seq - from_seq + 1,
})

describe('key notes', () => {
  it('numbers keys from #1, as the CLI does', () => {
    for (let i = 0; i < 40; i++) expect(keyLabel(i)).toBe(`key #${i + 1}`)
  })

  it('no key reproduces any row: the CLI sentence, for every size and key count', () => {
    for (const n of [1, 2, 7, 240, 10_000])
      for (const keys of [1, 2, 5]) {
        const notes = keyNotes(verdict(n, [], [hmac(1, n)]), keys)
        expect(notes.map((x) => x.kind)).toEqual(['no_key_matches'])
        expect(notes[0]!.text.startsWith(NO_KEY_MATCHES)).toBe(true)
      }
  })

  it('an unsealed tail or head after or before a key’s run is named with its range and key', () => {
    for (const n of [10, 240, 5000])
      for (let cut = 2; cut < n; cut += Math.max(1, Math.floor(n / 7))) {
        for (const k of [0, 1, 3]) {
          const tail = keyNotes(verdict(n, [seg(k, 1, cut - 1)], [hmac(cut, n)]), k + 1)
          expect(tail).toHaveLength(1)
          expect(tail[0]!.kind).toBe('unsealed_tail')
          expect(tail[0]!.text).toContain(`seq ${cut}–${n}`)
          expect(tail[0]!.text).toContain(`${keyLabel(k)} sealed up to seq ${cut - 1}`)
          const head = keyNotes(verdict(n, [seg(k, cut, n)], [hmac(1, cut - 1)]), k + 1)
          expect(head.map((x) => x.kind)).toEqual(['unsealed_head'])
          expect(head[0]!.text).toContain(`seq 1–${cut - 1}`)
        }
      }
  })

  it('a break inside a key’s run (rows sealed by the key on both sides) is never explained by a key', () => {
    for (const n of [20, 240, 3000])
      for (let a = 3; a < n - 3; a += Math.max(1, Math.floor(n / 9))) {
        const b = Math.min(n - 2, a + 1 + (a % 5))
        const v = verdict(n, [seg(0, 1, a - 1), seg(0, b + 1, n)], [hmac(a, b)])
        expect(keyNotes(v, 1)).toEqual([])
        // Other kinds of break near the end are not HMAC ranges: no note either.
        const body = verdict(
          n,
          [seg(0, 1, n)],
          [{ kind: 'body_hash_mismatch', from_seq: a, to_seq: n, count: n - a + 1 }],
        )
        expect(keyNotes(body, 1)).toEqual([])
      }
  })

  it('nothing is said for a cancelled run, without keys, or for an empty chain; a VALID one has none', () => {
    expect(keyNotes(verdict(240, [], [hmac(1, 240)], { cancelled: true }), 1)).toEqual([])
    expect(keyNotes(verdict(240, [], [hmac(1, 240)]), 0)).toEqual([])
    expect(keyNotes(verdict(0, [], []), 1)).toEqual([])
    expect(keyNotes(verdict(240, [seg(0, 1, 160), seg(1, 161, 240)], []), 2)).toEqual([])
  })
})
