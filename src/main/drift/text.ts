// `bijotel regression`'s text, as the reference's cmd_regression prints it (§8): per dimension
// `[<dim>] no anomalies detected`, or a blank line, `[<dim>] <k> anomalies:` and a table (seq,
// timestamp, value and baseline mean to 4 decimals, z-score and IQR distance signed to 2 decimals or
// `N/A`, severity), then a blank line and `Total anomalies: <n>`.
import type { DriftAnomaly, RegressionResult } from '../../shared/drift-types'
import { padPy } from '../browse/list'
import { pyFixed } from '../python/pyformat'

function anomalyLine(a: DriftAnomaly): string {
  const z = a.z_score !== null ? pyFixed(a.z_score, 2, { sign: true }) : 'N/A'
  const iqr = a.iqr_distance !== null ? pyFixed(a.iqr_distance, 2, { sign: true }) : 'N/A'
  return (
    `  ${padPy(String(a.seq), 6)} ${padPy(a.timestamp, 22)} ${padPy(pyFixed(a.value, 4), 14)} ` +
    `${padPy(pyFixed(a.baseline_mean, 4), 14)} ${padPy(z, 10)} ${padPy(iqr, 10)} ${padPy(a.severity, 10)}`
  )
}

export function regressionText(r: RegressionResult): string {
  const out: string[] = []
  for (const d of r.dimensions) {
    if (d.anomalies.length === 0) {
      out.push(`[${d.dimension}] no anomalies detected`)
      continue
    }
    out.push('', `[${d.dimension}] ${d.anomalies.length} anomalies:`)
    out.push(
      `  ${padPy('seq', 6)} ${padPy('timestamp', 22)} ${padPy('value', 14)} ${padPy('baseline', 14)} ` +
        `${padPy('z-score', 10)} ${padPy('iqr-dist', 10)} ${padPy('severity', 10)}`,
    )
    out.push('  ' + '-'.repeat(90))
    for (const a of d.anomalies) out.push(anomalyLine(a))
  }
  out.push('', `Total anomalies: ${r.total_anomalies}`)
  return out.join('\n') + '\n'
}
