// The drift tests' one way to run a series: through the handler table, as the app asks for it, on a
// fresh session per call (the last one disposed after each test), polled until the job ends.
import { afterEach, expect } from 'vitest'
import type { DriftSeries, DriftSeriesRequest } from '../../../src/shared/drift-types'
import type { JobStatus } from '../../../src/shared/job-types'
import { createHandlers } from '../../../src/main/handlers/table'
import { AuditSession } from '../../../src/main/session/session'

const ctx = { transport: 'ipc' as const, trusted: true }

/** `series(path, req)`: the drift series of the chain at `path`, the job required to end `done`. */
export function driftSeriesRunner(): (path: string, req: DriftSeriesRequest) => Promise<DriftSeries> {
  let session: AuditSession | null = null
  afterEach(() => session?.dispose())
  return async (path, req) => {
    session?.dispose()
    session = new AuditSession()
    const h = createHandlers(session)
    await session.open(path)
    const { id } = await h.startDriftSeries(req, ctx)
    for (;;) {
      const s = (await h.jobStatus({ id }, ctx)) as JobStatus<DriftSeries>
      if (s.state !== 'running') {
        expect(s.state, s.error ?? '').toBe('done')
        return s.result!
      }
      await new Promise((r) => setTimeout(r, 10))
    }
  }
}
