// The report's two ways out of a workspace (its export and its copy as JSON), apart from the
// workspace store so that the store keeps to the state it holds.
import type { ApiClient } from '../../../../shared/contract'
import type { ReportFormat } from '../../../../shared/custody-types'
import type { IntegrityOptions } from '../../../../shared/integrity-types'
import { copyText, downloadJson, downloadText } from '../download'
import { errorMessage, reportFileName } from '../format'
import { jsonDocumentPrintable } from '../../../../shared/printable'

export interface ReportActionEnv {
  api: ApiClient
  hasDialogs: boolean
  notify: (text: string, kind?: 'info' | 'error') => void
  /** The integrity window and thresholds of the run shown (the report's integrity section). */
  integrity: () => IntegrityOptions
  /** Whether an export is under way (the buttons say so). */
  exporting: (busy: boolean) => void
}

/**
 * The report (signed by the engine when a signing key is chosen): the desktop app asks where to
 * save it as JSON, as the HTML page, or printed to PDF; web mode downloads the JSON or the page.
 */
export async function exportReport(e: ReportActionEnv, format: ReportFormat = 'json'): Promise<void> {
  const req = { integrity: e.integrity() }
  e.exporting(true)
  try {
    if (e.hasDialogs) {
      const { path } = await e.api.saveReport({ ...req, format })
      e.notify(path ? `Report saved to ${path}` : 'Export cancelled')
    } else if (format === 'html') {
      const { html, file_name } = await e.api.buildReportHtml(req)
      downloadText(file_name, html, 'text/html')
      e.notify(`Report downloaded as ${file_name}`)
    } else if (format === 'json') {
      const report = await e.api.buildReport(req)
      const name = reportFileName(report.generated_at)
      downloadJson(name, report)
      e.notify(`Report downloaded as ${name}`)
    } else {
      e.notify('Printing to PDF needs the desktop app: export as HTML and print it', 'error')
    }
  } catch (err) {
    e.notify(`Export failed: ${errorMessage(err)}`, 'error')
  } finally {
    e.exporting(false)
  }
}

/** The report copied to the clipboard as JSON. */
export async function copyReport(e: ReportActionEnv): Promise<void> {
  e.exporting(true)
  try {
    const report = await e.api.buildReport({ integrity: e.integrity() })
    await copyText(jsonDocumentPrintable(report))
    e.notify('Report copied to the clipboard as JSON')
  } catch (err) {
    e.notify(`Copy failed: ${errorMessage(err)}`, 'error')
  } finally {
    e.exporting(false)
  }
}
