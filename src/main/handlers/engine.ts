// The integrity, replay and report engines as the session uses them.
import type { IntegrityOptions, IntegrityRun } from '../../shared/integrity-types'
import type { ReplayCheck, ReplayCheckRequest } from '../../shared/replay-types'
import type { AuditReport } from '../../shared/report-types'
import { AuditError } from '../errors'
import type { JobContext } from './jobs'
import type { AuditSession } from './session'

export async function runIntegrityFor(_session: AuditSession, _opts: IntegrityOptions, _job?: JobContext): Promise<IntegrityRun> {
  throw new AuditError('unavailable', 'integrity monitor not wired yet')
}

export async function checkReplayFor(_session: AuditSession, _req: ReplayCheckRequest): Promise<ReplayCheck> {
  throw new AuditError('unavailable', 'replay checker not wired yet')
}

export async function buildReportFor(_session: AuditSession, _opts: IntegrityOptions): Promise<AuditReport> {
  throw new AuditError('unavailable', 'report not wired yet')
}
