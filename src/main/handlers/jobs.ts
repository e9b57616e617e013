// The handlers of the long work's jobs (verify, recover, integrity, search, drift…): status by id
// and cancel by id.
import type { ApiName } from '../../shared/contract'
import type { AuditSession } from '../session/session'
import type { HandlerTable } from './handler-types'
import { obj, str } from './validate'

type JobCall = Extract<ApiName, 'jobStatus' | 'cancelJob'>

export function jobHandlers(session: AuditSession): Pick<HandlerTable, JobCall> {
  return {
    jobStatus: async (req) => session.jobs.status(str(obj(req), 'id', 100)),
    cancelJob: async (req) => session.jobs.cancel(str(obj(req), 'id', 100)),
  }
}
