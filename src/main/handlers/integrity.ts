// The handlers of the integrity report (the detectors over the open chain), run at once or as a job,
// and the one reading of a request's integrity options (also `integrity` of the report calls).
import type { ApiName } from '../../shared/contract'
import { INTEGRITY_WINDOW, THRESHOLD_RULES } from '../../shared/integrity-rules'
import type { IntegrityOptions } from '../../shared/integrity-types'
import type { AuditSession } from '../session/session'
import { runIntegrityFor } from './engine'
import type { HandlerTable } from './handler-types'
import { num, obj, optBool, optInt, optObj } from './validate'

type IntegrityCall = Extract<ApiName, 'runIntegrity' | 'startIntegrity'>

export function integrityOptionsFrom(req: unknown): IntegrityOptions {
  const o = obj(req)
  const opts: IntegrityOptions = {}
  const window = optInt(o, 'window', { min: INTEGRITY_WINDOW.min, max: INTEGRITY_WINDOW.max })
  if (window !== undefined) opts.window = window
  if (optBool(o, 'all')) opts.all = true
  const t = optObj(o, 'thresholds')
  if (t) {
    const th: NonNullable<IntegrityOptions['thresholds']> = {}
    // The bounds of resolveThresholds (src/main/integrity/thresholds.ts), checked here so the
    // message names the field as sent (`thresholds.rate_tol`).
    for (const { key: k, min, integer } of THRESHOLD_RULES) {
      if (t[k] === undefined || t[k] === null) continue
      th[k] = num(t, k, { min, integer })
    }
    opts.thresholds = th
  }
  return opts
}

export function integrityHandlers(session: AuditSession): Pick<HandlerTable, IntegrityCall> {
  return {
    runIntegrity: async (req) => {
      const opts = integrityOptionsFrom(req)
      return runIntegrityFor(session, opts, { adopt: true })
    },
    startIntegrity: async (req) => {
      const opts = integrityOptionsFrom(req)
      session.view() // no chain (or a failed open): one clear error now, not a failed job
      // The keys held when the run was asked for: replaced before it ends, its run is not kept.
      const keys = session.keys
      return session.jobs.start('integrity', async (job) => {
        await session.readyForJob(job)
        return runIntegrityFor(session, opts, { job, adopt: true, keys })
      })
    },
  }
}
