// The integrity, replay and report engines as the session uses them: the session's chain, its
// candidate keys (the rotation detector and the row checks need them), and its replay checks.
import type { IntegrityOptions, IntegrityRun } from '../../shared/integrity-types'
import type { ReplayCheck, ReplayCheckRequest } from '../../shared/replay-types'
import type { AuditReport } from '../../shared/report-types'
import { runIntegrityOpened } from '../integrity/direct'
import { checkReplay } from '../replay/check'
import { signReport } from '../custody/sign'
import { buildAuditReport } from '../report'
import { custodyOf } from './custody-state'
import type { JobContext } from './jobs'
import type { AuditSession } from './session'

export async function runIntegrityFor(
  session: AuditSession,
  opts: IntegrityOptions,
  job?: JobContext,
): Promise<IntegrityRun> {
  const opened = await session.ready()
  return runIntegrityOpened(opened.chain, {
    ...opts,
    keys: session.keys,
    ...(session.verdict && !session.verdict.range ? { wholeChainVerdict: session.verdict } : {}),
    ...(job
      ? {
          onProgress: (d: number, t: number, phase?: string) => job.progress(d, t, phase),
          signal: job.signal,
        }
      : {}),
  })
}

export async function checkReplayFor(session: AuditSession, req: ReplayCheckRequest): Promise<ReplayCheck> {
  return checkReplay((await session.ready()).chain, session.keys, req)
}

export async function buildReportFor(session: AuditSession, opts: IntegrityOptions): Promise<AuditReport> {
  const opened = await session.ready()
  const report = await buildAuditReport({
    chain: opened.chain,
    keys: session.keys,
    integrityOptions: opts,
    replayChecks: session.replayChecks,
  })
  // Signed on export when the auditor has chosen a key (kept in this process, issue 25).
  const signing = custodyOf(session).signing
  return signing ? signReport(report, signing.key) : report
}
