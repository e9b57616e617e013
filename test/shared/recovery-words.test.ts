// The recovered-row status word (issue 35): generated rows and findings; "truncated" exactly where a
// `truncated` finding covers a deleted row, never for any other status or outside the finding.
import { describe, expect, it } from 'vitest'
import type { RecoveredRow } from '../../src/shared/recovery-types'
import type { Finding, FindingKind } from '../../src/shared/verify-types'
import { recoveredStatusWord, SOURCE_KIND_WORDS } from '../../src/shared/recovery-words'
import { mulberry32 } from '../main/testing/prng'

const STATUSES: RecoveredRow['status'][] = ['deleted', 'superseded', 'before_live', 'archived', 'unplaced']
const KINDS: FindingKind[] = [
  'truncated',
  'deleted',
  'rewritten',
  'seq_gap',
  'hmac_mismatch',
  'link_mismatch',
]

describe('recoveredStatusWord', () => {
  it('generated cases: truncated only for a deleted row inside a truncated finding', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const rnd = mulberry32(seed)
      const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!
      const findings: Pick<Finding, 'kind' | 'from_seq' | 'to_seq'>[] = []
      for (let i = Math.floor(rnd() * 4); i > 0; i--) {
        const from = 1 + Math.floor(rnd() * 50)
        findings.push({ kind: pick(KINDS), from_seq: from, to_seq: from + Math.floor(rnd() * 10) })
      }
      for (let k = 0; k < 30; k++) {
        const row = { status: pick(STATUSES), seq: rnd() < 0.1 ? null : Math.floor(rnd() * 70) }
        const covered =
          row.seq !== null &&
          findings.some((f) => f.kind === 'truncated' && row.seq! >= f.from_seq && row.seq! <= f.to_seq)
        const word = recoveredStatusWord(row, findings)
        expect(word, `seed ${seed}`).toBe(row.status === 'deleted' && covered ? 'truncated' : row.status)
      }
    }
  })

  it('"superseded" is a row status only, never a place', () => {
    for (const w of Object.values(SOURCE_KIND_WORDS)) expect(w).not.toMatch(/supersed/i)
  })
})
