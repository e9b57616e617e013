// The members of a report's verdict beyond the ones `report verify` re-derives one by one (round 10):
// `notices` (the HTML page prints each as "Notice: …"), `cancelled`, `no_key_matches`, `recovery`,
// `recovered`, `segments`. The schema names them, so a crafted report could carry a notice such as
// "every row verified under the auditor's key" on a chain whose verdict reproduces, and report verify
// read OK: a summary that lies beside a verdict that holds. Each is now held to the re-run verdict.
import type { VerifyVerdict } from '../../shared/verify-types'
import type { FieldList } from './check-fields'

/**
 * Every member of `reported` not in `compared` checked against `now` (null: no key given now, nothing
 * can be re-run). A reported notice must be one the evidence gives now; a notice the evidence gives
 * that the report lacks is listed as such (a report may say less, never other, than the evidence).
 */
export function checkVerdictExtras(
  f: FieldList,
  reported: Record<string, unknown>,
  now: VerifyVerdict | null,
  compared: readonly string[],
): void {
  const at = (k: string): string => `verification.verdict.${k}`
  for (const k of Object.keys(reported)) {
    if (compared.includes(k)) continue
    const value = reported[k]
    if (now === null) {
      f.notChecked(at(k), value, 'no key given: the verdict cannot be re-run')
      continue
    }
    if (k === 'segments') {
      // The archive segments the report was given, as given: report verify takes none, and the
      // findings they proved are compared with the verdict's findings above.
      f.notChecked(
        at(k),
        value,
        'the archive segments the report was given (their findings are compared above)',
        true,
      )
      continue
    }
    if (k !== 'notices' || !Array.isArray(value)) {
      f.compare(at(k), value, (now as unknown as Record<string, unknown>)[k])
      continue
    }
    const given = now.notices ?? []
    value.forEach((n, i) =>
      f.compare(
        `${at(k)}[${i}]`,
        n,
        typeof n === 'string' && given.includes(n) ? n : null,
        given.includes(n as string) ? undefined : 'the evidence gives no such notice now',
      ),
    )
  }
  if (now === null) return
  const stated = Array.isArray(reported['notices']) ? (reported['notices'] as unknown[]) : []
  for (const n of now.notices ?? [])
    if (!stated.includes(n))
      f.notChecked(at('notices'), null, `said by the evidence now, not in the report: ${n}`, true)
}
