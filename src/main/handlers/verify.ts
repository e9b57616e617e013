// The handlers of the keyed verify: the verify job (a range, archive segments, the prior of a
// comparison), the recovery search, the last verdict, and one row's check.
import type { ApiName } from '../../shared/contract'
import type { VerifyRangeOptions } from '../../shared/verify-types'
import { readSegments } from '../audit/segments'
import { verifyOpened } from '../audit/verify-file'
import { AuditError } from '../base/errors'
import { searchEvidence } from '../recovery/verdict'
import { priorFor } from '../session/custody-state'
import type { AuditSession } from '../session/session'
import { checkRow } from '../verify/row'
import type { CallContext, HandlerTable } from './handler-types'
import { int, obj, optInt, optNs, optObj, type Obj } from './validate'

type VerifyCall = Extract<ApiName, 'startVerify' | 'startRecover' | 'lastVerdict' | 'checkRow'>

function rangeFrom(o: Obj | undefined): VerifyRangeOptions | undefined {
  if (!o) return undefined
  const r: VerifyRangeOptions = {}
  const a = optInt(o, 'seq_start')
  const b = optInt(o, 'seq_end')
  const since = optNs(o, 'since_ns')
  const until = optNs(o, 'until_ns')
  const last = optInt(o, 'last_n', { min: 1 })
  if (a !== undefined) r.seq_start = a
  if (b !== undefined) r.seq_end = b
  if (since !== undefined) r.since_ns = since
  if (until !== undefined) r.until_ns = until
  if (last !== undefined) r.last_n = last
  return Object.keys(r).length > 0 ? r : undefined
}

export function verifyHandlers(session: AuditSession): Pick<HandlerTable, VerifyCall> {
  /** `segments` of a verify request: archive segment paths; a web client only where it may open files. */
  const segmentsFrom = (o: Obj, ctx: CallContext): string[] => {
    const v = o['segments']
    if (v === undefined || v === null) return []
    if (!Array.isArray(v) || v.length > 64 || v.some((p) => typeof p !== 'string' || p.length > 4096))
      throw new AuditError('bad_argument', 'segments must be a list of at most 64 file paths')
    for (const p of v as string[])
      if (ctx.transport === 'http' && !session.mayOpen(p))
        throw new AuditError(
          'bad_argument',
          `reading the segment ${p} is not allowed here: it is outside the folders this server may read`,
        )
    return v as string[]
  }

  return {
    startVerify: async (req, ctx) => {
      session.view() // no chain (or a failed open): one clear error now, not a failed job
      const range = rangeFrom(optObj(obj(req), 'range'))
      const segmentPaths = segmentsFrom(obj(req), ctx)
      const keys = session.keys
      if (keys.length === 0)
        throw new AuditError(
          'no_secret',
          'enter the chain secret first: an HMAC chain cannot be verified without it',
        )
      let opened: Awaited<ReturnType<typeof session.ready>> | null = null
      return session.jobs.start(
        'verify',
        async (job) => {
          const o = (opened = await session.readyForJob(job))
          job.progress(0, o.overview.entries, 'verifying')
          const prior = priorFor(session)
          const segments =
            segmentPaths.length > 0
              ? await readSegments(
                  segmentPaths,
                  undefined,
                  ctx.transport === 'http' ? session.openPolicy() : undefined,
                )
              : undefined
          return verifyOpened(o.chain, keys, {
            ...(range ? { range } : {}),
            ...(prior ? { prior } : {}),
            ...(segments ? { segments } : {}),
            onProgress: (d, t) => job.progress(d, t, 'verifying'),
            // The whole chain's rows are the index's, exactly: the progress bar's denominator.
            ...(range ? {} : { rowsKnown: o.overview.entries }),
            signal: job.signal,
            recover: true,
          })
        },
        (v) => {
          // The chain's verdict is for the keys held now: keys replaced while the job ran (a key
          // typed wrong, then right) make its answer that job's only — adopted, the old key's
          // "HMAC mismatch" would be shown, flagged and reported under the new key.
          if (opened && session.chain === opened && session.keys === keys) session.setVerdict(v)
        },
      )
    },
    startRecover: async () => {
      session.view() // no chain (or a failed open): one clear error now, not a failed job
      const keys = session.keys
      return session.jobs.start('recover', async (job) => {
        const o = await session.readyForJob(job)
        job.progress(0, 1, 'searching the files')
        // The evidence itself, through the descriptors its snapshot holds (the copy's WAL is recovered).
        return (
          await searchEvidence(o.chain.searchTarget(), keys, {
            signal: job.signal,
          })
        ).result
      })
    },
    lastVerdict: async () => session.verdict,
    checkRow: async (req) => {
      const opened = await session.ready()
      return opened.chain.read((source) => checkRow(source, session.keys, int(obj(req), 'seq')))
    },
  }
}
