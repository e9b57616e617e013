// `bin/bijotel integrity` text on every shared fixture equals the text the reference prints (§5.4):
// the expected text is rendered here, independently of src/main/integrity/text.ts, from the
// fixture's expected report (`integrity_window_100`, `integrity_window_500`: Python's own numbers),
// and must equal stdout byte for byte — ending at the `Rate:` line, with no `Evidence:` line unless
// `--evidence` is given (issue 36).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { dbPath, FIXTURES, fixtureNames } from '../testing/fixtures'
import { bijotel, ensureBuilt } from './testcli'
import { splitEvidence } from '../testing/evidence'

beforeAll(() => ensureBuilt())

interface Report {
  window: number
  first_seq: number | null
  last_seq: number | null
  clean: boolean
  anomaly_count: number
  sequence_gaps: { after_seq: number; before_seq: number; missing_count: number }[]
  timestamp_anomalies: { seq: number; type: string; detail: string }[]
  hash_anomalies: { seq: number; detail: string }[]
  provider_shift: {
    shifts: Record<string, { baseline_pct: number; current_pct: number; delta_pct: number }>
  } | null
  rate_anomalies: { baseline_rate: number; current_rate: number; change_pct: number }[]
}

/** Python's repr of a float that JSON gave back as a number (these are all floats in Python). */
function pyFloat(x: number): string {
  expect(Math.abs(x)).toBeLessThan(1e16) // beyond, repr switches to an exponent; never in the fixtures
  return Number.isInteger(x) ? x.toFixed(1) : String(x)
}

/** f"{x:+.1f}" for a value Python already rounded to one decimal. */
function signed1(x: number): string {
  return (x >= 0 && !Object.is(x, -0) ? '+' : '') + x.toFixed(1)
}

/** §5.4, line by line. */
function referenceText(r: Report): string {
  if (r.window === 0) return 'Chain integrity: EMPTY CHAIN (nothing to analyze)\n'
  const head = `Chain integrity: ${r.clean ? 'CLEAN' : `${r.anomaly_count} ANOMALIES`} (last ${r.window} entries, seq ${r.first_seq}..${r.last_seq})`
  const out = [head, '-'.repeat(head.length)]
  if (r.sequence_gaps.length === 0) out.push('Sequence: no gaps')
  else {
    out.push(`Sequence: ${r.sequence_gaps.length} gap(s)`)
    for (const g of r.sequence_gaps)
      out.push(`  WARN  seq ${g.after_seq} -> ${g.before_seq} (${g.missing_count} missing)`)
  }
  const ts = r.timestamp_anomalies
  if (ts.length === 0) out.push('Timestamps: no anomalies')
  else {
    const parts: string[] = []
    for (const [type, label] of [
      ['backward', 'backward'],
      ['large_gap', 'large-gap'],
      ['burst', 'burst'],
    ] as const) {
      const k = ts.filter((a) => a.type === type).length
      if (k > 0) parts.push(`${k} ${label}`)
    }
    out.push(`Timestamps: ${parts.join(', ')}`)
    for (const a of ts.slice(0, 5)) out.push(`  WARN  seq=${a.seq} type=${a.type}  ${a.detail}`)
    if (ts.length > 5) out.push(`  ... +${ts.length - 5} more`)
  }
  if (r.hash_anomalies.length === 0) out.push('Hashes: no duplicates')
  else {
    out.push(`Hashes: ${r.hash_anomalies.length} duplicate(s)`)
    for (const a of r.hash_anomalies.slice(0, 5)) out.push(`  WARN  seq=${a.seq}  ${a.detail}`)
  }
  if (r.provider_shift === null) out.push('Provider distribution: stable')
  else {
    out.push('Provider distribution: SHIFT detected')
    const s = r.provider_shift.shifts
    // Python sorts by descending |delta| and leaves ties in its set order, which is randomised per
    // process (§5.3.4), so any order of a tie is the reference's; the Auditor's is by name.
    const names = Object.keys(s).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    names.sort((a, b) => Math.abs(s[b]!.delta_pct) - Math.abs(s[a]!.delta_pct))
    for (const n of names)
      out.push(
        `  WARN  ${n}: ${pyFloat(s[n]!.baseline_pct)}% -> ${pyFloat(s[n]!.current_pct)}% (${signed1(s[n]!.delta_pct)}pp)`,
      )
  }
  if (r.rate_anomalies.length === 0) out.push('Rate: stable')
  else
    for (const a of r.rate_anomalies)
      out.push(
        `Rate: ${pyFloat(a.baseline_rate)}/h -> ${pyFloat(a.current_rate)}/h (${signed1(a.change_pct)}%)`,
      )
  return out.join('\n') + '\n'
}

function expectedReport(name: string, key: 'integrity_window_100' | 'integrity_window_500'): Report {
  return (
    JSON.parse(readFileSync(join(FIXTURES, `${name}.expected.json`), 'utf8')) as Record<string, Report>
  )[key]!
}

describe("integrity text equals the reference's on every shared fixture", () => {
  const seen = new Set<string>()
  for (const name of fixtureNames()) {
    it(name, () => {
      for (const [window, key] of [
        ['100', 'integrity_window_100'],
        ['500', 'integrity_window_500'],
      ] as const) {
        const report = expectedReport(name, key)
        const want = referenceText(report)
        const args = ['integrity', '--db', dbPath(name), ...(window === '100' ? [] : ['--window', window])]
        const r = bijotel(args)
        expect(r.stdout, `${name} window ${window}`).toBe(want)
        expect(r.stderr).toBe('')
        expect(r.code).toBe(report.clean ? 0 : 1)
        for (const line of want.split('\n')) seen.add(line)
        // --evidence: the same text, then one Evidence: line.
        if (window === '100') expect(splitEvidence(bijotel([...args, '--evidence']).stdout).before).toBe(want)
      }
    })
  }
  it('the fixtures exercise every section of the text, not only the clean lines', () => {
    const lines = [...seen]
    for (const re of [
      /^Sequence: \d+ gap\(s\)$/,
      /^Timestamps: \d+ backward/,
      /large-gap/,
      /^Hashes: \d+ duplicate\(s\)$/,
      /^Provider distribution: SHIFT detected$/,
      /^Rate: [\d.]+\/h -> /,
    ])
      expect(
        lines.some((l) => re.test(l)),
        String(re),
      ).toBe(true)
  })
})
