// The human-readable report of `bijotel integrity` (reference §5.4), line for line as Python
// BIJOTEL prints it. Only when candidate keys were given (Python's rotation detector is a stub) do
// `Rotation:` lines follow, saying what the real detector found; without keys the output ends at
// the `Rate:` line(s), as Python's does, so scripts that compare or parse it keep working.
import type { IntegrityReport, IntegrityRun, ProviderShiftEntry } from '../../shared/integrity-types'
import { PY_STR } from './providers'
import { shiftsByDelta } from '../../shared/provider-shifts'
import { pyFixed, pyFloatStr } from '../python/pyformat'
import { printable } from '../../shared/printable'

const MAX_LISTED = 5

export const EMPTY_LINE = 'Chain integrity: EMPTY CHAIN (nothing to analyze)'

export function headerLine(r: IntegrityReport, mode: IntegrityRun['mode']): string {
  const status = r.clean ? 'CLEAN' : `${r.anomaly_count} ANOMALIES`
  const scope = mode === 'all' ? `all ${r.window} entries` : `last ${r.window} entries`
  return `Chain integrity: ${status} (${scope}, seq ${r.first_seq}..${r.last_seq})`
}

function rotationLines(run: IntegrityRun): string[] {
  const b = run.report.rotation_boundaries
  if (!run.rotation_checked) return []
  if (b.length === 0) return [`Rotation: no key change (${run.rotation_note})`]
  return [`Rotation: ${b.length} key change(s)`, ...b.map((x) => `  WARN  seq=${x.seq}  ${x.detail}`)]
}

/** The whole text output, ending with a newline. */
export function integrityText(run: IntegrityRun): string {
  const r = run.report
  if (r.window === 0) return `${EMPTY_LINE}\n`
  const header = headerLine(r, run.mode)
  const lines = [header, '-'.repeat(header.length)]

  if (r.sequence_gaps.length === 0) lines.push('Sequence: no gaps')
  else {
    lines.push(`Sequence: ${r.sequence_gaps.length} gap(s)`)
    for (const g of r.sequence_gaps)
      lines.push(`  WARN  seq ${g.after_seq} -> ${g.before_seq} (${g.missing_count} missing)`)
  }

  const ts = r.timestamp_anomalies
  if (ts.length === 0) lines.push('Timestamps: no anomalies')
  else {
    const count = (t: string): number => ts.filter((a) => a.type === t).length
    const parts = [
      [count('backward'), 'backward'],
      [count('large_gap'), 'large-gap'],
      [count('burst'), 'burst'],
    ]
      .filter(([k]) => (k as number) > 0)
      .map(([k, label]) => `${k} ${label}`)
    lines.push(`Timestamps: ${parts.join(', ')}`)
    for (const a of ts.slice(0, MAX_LISTED)) lines.push(`  WARN  seq=${a.seq} type=${a.type}  ${a.detail}`)
    if (ts.length > MAX_LISTED) lines.push(`  ... +${ts.length - MAX_LISTED} more`)
  }

  if (r.hash_anomalies.length === 0) lines.push('Hashes: no duplicates')
  else {
    lines.push(`Hashes: ${r.hash_anomalies.length} duplicate(s)`)
    for (const a of r.hash_anomalies.slice(0, MAX_LISTED)) lines.push(`  WARN  seq=${a.seq}  ${a.detail}`)
  }

  if (r.provider_shift === null) lines.push('Provider distribution: stable')
  else {
    lines.push('Provider distribution: SHIFT detected')
    // Descending |delta| (a stable sort); Python breaks ties by its dict order, here shiftItems'.
    const items = shiftsByDelta(r.provider_shift)
    for (const [p, s] of items) {
      const str = (s as ProviderShiftEntry & { [PY_STR]?: string })[PY_STR] ?? p
      lines.push(
        `  WARN  ${printable(str)}: ${pyFloatStr(s.baseline_pct)}% -> ${pyFloatStr(s.current_pct)}% (${pyFixed(s.delta_pct, 1, { sign: true })}pp)`,
      )
    }
  }

  if (r.rate_anomalies.length === 0) lines.push('Rate: stable')
  else {
    for (const a of r.rate_anomalies) {
      lines.push(
        `Rate: ${pyFloatStr(a.baseline_rate)}/h -> ${pyFloatStr(a.current_rate)}/h (${pyFixed(a.change_pct, 1, { sign: true })}%)`,
      )
    }
  }

  lines.push(...rotationLines(run))
  return lines.join('\n') + '\n'
}
