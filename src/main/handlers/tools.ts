// The handlers of the auditor's working tools (issue 26): the keyless verify started on open,
// search, typed time ranges, export of the rows in view, payload drift. Spread into the table by
// createHandlers (./table.ts).
import type { HandlerTable, Platform } from './table'
import type { AuditSession } from './session'
import { AuditError } from '../errors'

type ToolCalls =
  'keylessVerdict' | 'startSearch' | 'resolveTimeRange' | 'exportView' | 'saveViewExport' | 'startDriftSeries'

const notYet = async (): Promise<never> => {
  throw new AuditError('unavailable', 'not implemented yet')
}

export function toolHandlers(_session: AuditSession, _platform: Platform): Pick<HandlerTable, ToolCalls> {
  return {
    keylessVerdict: notYet,
    startSearch: notYet,
    resolveTimeRange: notYet,
    exportView: notYet,
    saveViewExport: notYet,
    startDriftSeries: notYet,
  }
}
