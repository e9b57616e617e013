// The keyless check's words: the breaks it found, and always that the HMACs were not checked — never
// VALID, whatever the verdict's `valid` says (without the key it proves nothing about the seals).
import { describe, expect, it } from 'vitest'
import type { VerifyVerdict } from '../../../../src/shared/verify-types'
import {
  breakSeqs,
  keylessAdvice,
  keylessHeadline,
  keylessSentence,
} from '../../../../src/renderer/src/lib/keyless'

const base: VerifyVerdict = {
  valid: true,
  entries: 240,
  first_seq: 1,
  last_seq: 240,
  head_hmac: null,
  first_bad_seq: null,
  findings: [],
  key_segments: [],
  hmac_checked: false,
}

const broken: VerifyVerdict = {
  ...base,
  valid: false,
  first_bad_seq: 12,
  findings: [
    { kind: 'body_hash_mismatch', from_seq: 12, to_seq: 12, count: 1 },
    { kind: 'body_hash_mismatch', from_seq: 40, to_seq: 40, count: 1 },
    { kind: 'link_mismatch', from_seq: 77, to_seq: 78, count: 2 },
    { kind: 'seq_gap', from_seq: 90, to_seq: 90, count: 1, missing: 3 },
  ],
}

describe('keyless words', () => {
  it('names the breaks and where they are', () => {
    expect(breakSeqs(broken.findings)).toBe('12, 40, 77…')
    expect(keylessHeadline(broken)).toBe(
      'Keyless check: 4 breaks (body hash mismatch, link mismatch, sequence gap) at seq 12, 40, 77…',
    )
    expect(keylessSentence(broken)).toBe(
      'Keyless check finished: 4 breaks, first at seq 12; HMACs not checked.',
    )
  })

  it('a clean structure is "no break found", never VALID', () => {
    const texts = [
      keylessHeadline(base),
      keylessAdvice(base, false),
      keylessAdvice(base, true),
      keylessSentence(base),
    ]
    for (const t of texts) expect(t).not.toMatch(/valid/i)
    expect(keylessHeadline(base)).toBe('Keyless check: no break found')
    expect(keylessAdvice(base, false)).toContain('HMACs not checked')
    expect(keylessAdvice(base, false)).toContain('enter a key to verify the seals')
    expect(keylessAdvice(base, true)).toContain('run Verify chain')
    expect(keylessSentence(base)).toBe(
      'Keyless check finished: no break found in 240 entries; HMACs not checked.',
    )
  })

  it('a stopped check says so', () => {
    expect(keylessHeadline({ ...base, cancelled: true, entries: 12 })).toBe(
      'Keyless check stopped before the end (12 entries read)',
    )
  })
})
