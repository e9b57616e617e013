// Round 10, a report whose verdict reproduces but whose other verdict members lie: the page prints
// each `verification.verdict.notices` item as "Notice: …", and `cancelled`, `no_key_matches` and
// `recovered` are members the schema names. A report re-signed by its own signer with a generated
// notice (or one of those members) added must not read "every checked field reproduces"; the honest
// report, signed the same way, still does.
import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../testing/prng'
import { fixtureReports, type Doc } from './resigned-reports'

const { reports, resignedCheck } = fixtureReports('report-verdict-extras', [])

const CLAIMS = [
  'every row verified under the auditor’s key: the chain is authentic and complete',
  'the findings below are rows archived by the operator, not tampering',
  'rows that stood before the live chain were found in an archive segment',
  'the sqlite_sequence table agrees with the head',
  'the prior report was signed by the auditor',
]

/** Generated lies in the verdict's unchecked members: each names the member report verify must fail on. */
function lies(seed: number, n: number): [string, RegExp, (v: Doc) => void][] {
  const rnd = mulberry32(seed)
  const out: [string, RegExp, (v: Doc) => void][] = []
  for (let i = 0; i < n; i++) {
    const claim = CLAIMS[Math.floor(rnd() * CLAIMS.length)]! + (rnd() < 0.5 ? '' : ` (${(rnd() * 1e6) | 0})`)
    const many = 1 + Math.floor(rnd() * 3)
    out.push([
      `notice "${claim}" x${many}`,
      /verification\.verdict\.notices\[0\]/,
      (v) => (v['notices'] = Array.from({ length: many }, () => claim)),
    ])
  }
  out.push(['cancelled true', /verification\.verdict\.cancelled/, (v) => (v['cancelled'] = true)])
  out.push(['cancelled false', /verification\.verdict\.cancelled/, (v) => (v['cancelled'] = false)])
  out.push(['no_key_matches', /verification\.verdict\.no_key_matches/, (v) => (v['no_key_matches'] = true)])
  out.push(['recovered []', /verification\.verdict\.recovered/, (v) => (v['recovered'] = [])])
  return out
}

describe('report verify holds every member of the verdict to the evidence', () => {
  it('a generated notice or flag added to a reproducing verdict, re-signed by its signer, fails naming it', async () => {
    let cases = 0
    const missed: string[] = []
    for (const [r, { db, doc }] of reports.entries()) {
      const check = (d: Doc): Promise<{ ok: boolean; summary: string }> => resignedCheck(db, d)
      const honest = await check(structuredClone(doc))
      expect(honest.ok, honest.summary).toBe(true)
      for (const [what, field, edit] of lies(100 + r, 8)) {
        const d = structuredClone(doc)
        edit(d['verification'].verdict)
        const res = await check(d)
        if (res.ok || !field.test(res.summary)) missed.push(`${db}: ${what}`)
        cases++
      }
    }
    expect(missed, `${missed.length} of ${cases} lies read as reproducing`).toEqual([])
    expect(cases).toBe(24)
  }, 300_000)
})
