// The sentences a screen reader hears when a job ends (LiveRegion): the verdict in words, the
// integrity monitor's count, or why a job stopped.
import type { IntegrityRun } from '../../../shared/integrity-types'
import type { VerifyVerdict } from '../../../shared/verify-types'
import { counted } from './format'

export function verdictSentence(v: VerifyVerdict, what = 'Verification'): string {
  if (v.valid) return `${what} finished: chain VALID, ${counted(v.entries, 'entry', 'entries')}.`
  const first = v.first_bad_seq !== null ? `, first bad seq ${v.first_bad_seq}` : ''
  const n = v.findings.length
  return `${what} finished: chain BROKEN${first}, ${n} finding${n === 1 ? '' : 's'}.`
}

export function integritySentence(r: IntegrityRun): string {
  const n = r.report.anomaly_count
  return n === 0
    ? 'Integrity monitor finished: no anomalies.'
    : `Integrity monitor finished: ${n} anomal${n === 1 ? 'y' : 'ies'}.`
}

export function jobEndSentence(job: string, error: string | null): string {
  return error === 'cancelled' ? `${job} cancelled.` : `${job} failed: ${error ?? 'unknown error'}.`
}
