// The handlers of the audit report: built and returned (signed only where the caller may sign), or
// saved by the desktop app as JSON, HTML or PDF beside — never over — the evidence.
import { resolve } from 'node:path'
import type { ApiName } from '../../shared/contract'
import { AuditError } from '../base/errors'
import { jsonDocumentPrintable } from '../../shared/printable'
import { renderReportHtml } from '../custody/html/render'
import { AtomicOutput, checkOutputTarget } from '../export/output-file'
import type { AuditSession } from '../session/session'
import { buildReportFor, maySign } from './engine'
import type { HandlerTable, Platform } from './handler-types'
import { integrityOptionsFrom } from './integrity'
import { obj, optEnum, optObj } from './validate'

type ReportCall = Extract<ApiName, 'buildReport' | 'saveReport'>

export function reportHandlers(session: AuditSession, platform: Platform): Pick<HandlerTable, ReportCall> {
  return {
    buildReport: async (req, ctx) =>
      buildReportFor(session, integrityOptionsFrom(optObj(obj(req), 'integrity')), maySign(ctx)),
    saveReport: async (req, ctx) => {
      const opts = integrityOptionsFrom(optObj(obj(req), 'integrity'))
      if (!platform.pickSavePath)
        throw new AuditError('bad_argument', 'no save dialog in web mode: use buildReport and download it')
      const format = optEnum(obj(req), 'format', ['json', 'html', 'pdf'] as const) ?? 'json'
      if (format === 'pdf' && !platform.printToPdf)
        throw new AuditError('bad_argument', 'printing to PDF needs the desktop app')
      const report = await buildReportFor(session, opts, maySign(ctx))
      const path = await platform.pickSavePath(
        `bijotel-report-${report.generated_at.replace(/[:.]/g, '-')}.${format}`,
      )
      if (path === null) return { path: null }
      // The same check as every export (by name, through links, as a hard link), then a temporary
      // file beside it renamed into place: never a write over the evidence (issue 34).
      const target = checkOutputTarget(resolve(path), report.evidence.db.path, 'the report')
      const content =
        format === 'json'
          ? jsonDocumentPrintable(report) + '\n'
          : format === 'html'
            ? renderReportHtml(report)
            : await platform.printToPdf!(renderReportHtml(report))
      const out = new AtomicOutput(target)
      try {
        out.writeBytes(typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content))
      } catch (e) {
        out.abort()
        throw e
      }
      out.commit()
      return { path: target }
    },
  }
}
