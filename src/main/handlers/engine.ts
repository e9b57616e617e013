// The integrity, replay and report engines as the session uses them: the session's chain, its
// candidate keys (the rotation detector and the row checks need them), and its replay checks.
import type { IntegrityOptions, IntegrityRun } from '../../shared/integrity-types'
import type { ReplayCheck, ReplayCheckRequest } from '../../shared/replay-types'
import type { AuditReport } from '../../shared/report-types'
import { runIntegrity } from '../integrity/analyze'
import { checkReplay } from '../replay/check'
import { signReport } from '../custody/sign'
import { buildAuditReport } from '../audit/build-report'
import { announceSigned, custodyOf } from '../session/custody-state'
import type { JobContext } from '../session/jobs'
import type { AuditSession } from '../session/session'

export async function runIntegrityFor(
  session: AuditSession,
  opts: IntegrityOptions,
  job?: JobContext,
): Promise<IntegrityRun> {
  const opened = await session.ready()
  const options = {
    ...opts,
    keys: session.keys,
    ...(session.verdict && !session.verdict.range ? { wholeChainVerdict: session.verdict } : {}),
    ...(job
      ? {
          onProgress: (d: number, t: number, phase?: string) => job.progress(d, t, phase),
          signal: job.signal,
        }
      : {}),
  }
  return opened.chain.read((source) => runIntegrity(source, options))
}

export async function checkReplayFor(session: AuditSession, req: ReplayCheckRequest): Promise<ReplayCheck> {
  const opened = await session.ready()
  return opened.chain.read((source) => checkReplay(source, session.keys, req))
}

/**
 * The report, signed with the auditor's key when one is held and `sign` says the caller may have it
 * signed (the desktop app; in web mode only a request carrying the API key). Every signature made
 * is announced to the session's listeners (the UI's `reportSigned`, the server's stderr).
 */
export async function buildReportFor(
  session: AuditSession,
  opts: IntegrityOptions,
  sign: boolean,
): Promise<AuditReport> {
  const opened = await session.ready()
  const report = await buildAuditReport({
    chain: opened.chain,
    keys: session.keys,
    integrityOptions: opts,
    replayChecks: session.replayChecks,
  })
  const signing = custodyOf(session).signing
  if (!signing || !sign) return report
  const signed = signReport(report, signing.key)
  announceSigned(session, { fingerprint: signing.info.fingerprint, generated_at: signed.generated_at })
  return signed
}

/** Whether a call may have a report signed with the auditor's key (issue 34). */
export function maySign(ctx: { transport: 'ipc' | 'http'; apiKey?: boolean }): boolean {
  return ctx.transport === 'ipc' || ctx.apiKey === true
}
