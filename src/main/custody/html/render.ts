// Placeholder replaced by the HTML report renderer.
import type { AuditReport } from '../../../shared/report-types'

export function renderReportHtml(report: AuditReport): string {
  return `<!doctype html>\n<script type="application/json" id="bijotel-report">${JSON.stringify(report).replace(/</g, '\\u003c')}</script>\n`
}
