// The timeline with `flagged_only`: only the rows a verify finding or an integrity anomaly names (as
// the flagged listing holds them), over the whole chain's time span, asked again as findings change.
import { afterEach, describe, expect, it } from 'vitest'
import type { Timeline } from '../../../src/shared/chain-types'
import type { JobStatus } from '../../../src/shared/job-types'
import { dbPath, expected, secretInputs } from '../testing/fixtures'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'

let session: AuditSession | null = null
afterEach(() => session?.dispose())

const ctx = { transport: 'http', trusted: true } as const

/** Rows counted per bucket, with the bucket's start. */
function bars(t: Timeline): [string, number][] {
  return t.buckets.filter((b) => b.count > 0).map((b) => [b.start_ns, b.count])
}

describe('flagged-only timeline', () => {
  it('counts only the flagged rows, in the buckets of the whole timeline', async () => {
    session = new AuditSession()
    const h = createHandlers(session)
    await session.open(dbPath('body-edit'))
    // After the open: keys belong to the chain they are given for.
    await h.setSecrets({ secrets: secretInputs(expected('body-edit').secrets) }, ctx)
    const all = await h.timeline({ buckets: 40 }, ctx)
    // Nothing is flagged before a verdict or a report: an empty timeline over the same span.
    const none = await h.timeline({ buckets: 40, flagged_only: true }, ctx)
    expect([none.from_ns, none.to_ns, none.bucket_ns]).toEqual([all.from_ns, all.to_ns, all.bucket_ns])
    expect(bars(none)).toEqual([])

    const settled = async (id: string): Promise<JobStatus> => {
      for (;;) {
        const s = await h.jobStatus({ id }, ctx)
        if (s.state !== 'running') return s
        await new Promise((r) => setTimeout(r, 10))
      }
    }
    expect((await settled((await h.startVerify({}, ctx)).id)).state).toBe('done')
    const flagged = await h.timeline({ buckets: 40, flagged_only: true }, ctx)
    const rows = await h.listEntries({ offset: 0, limit: 500, filter: { flagged_only: true } }, ctx)
    // body-edit: seq 57 alone, in the bucket its time falls in.
    expect(rows.rows.map((r) => r.seq)).toEqual([57])
    const t = BigInt(rows.rows[0]!.timestamp_ns)
    const bucket = flagged.buckets.find((b) => BigInt(b.start_ns) <= t && t <= BigInt(b.end_ns))!
    expect(bars(flagged)).toEqual([[bucket.start_ns, 1]])
    expect([flagged.from_ns, flagged.to_ns, flagged.bucket_ns]).toEqual([
      all.from_ns,
      all.to_ns,
      all.bucket_ns,
    ])
    // Restricted like any timeline: a range without seq 57 has none, one with it has it.
    const before = await h.timeline(
      { buckets: 10, flagged_only: true, from_ns: all.from_ns, to_ns: String(t - 1n) },
      ctx,
    )
    expect(bars(before)).toEqual([])
    const around = await h.timeline(
      { buckets: 1, flagged_only: true, from_ns: String(t), to_ns: String(t) },
      ctx,
    )
    expect(bars(around)).toEqual([[String(t), 1]])
  })

  it('follows the integrity report too, and the unfiltered timeline is unchanged by it', async () => {
    session = new AuditSession()
    const h = createHandlers(session)
    await session.open(dbPath('clock-backward'))
    const all = await h.timeline({ buckets: 25 }, ctx)
    const run = await h.runIntegrity({ window: 10_000 }, ctx)
    const named = new Set(run.report.timestamp_anomalies.map((a) => a.seq).filter((s) => s > 0))
    expect(named.size).toBeGreaterThan(0)
    const listed = await h.listEntries({ offset: 0, limit: 1000, filter: { flagged_only: true } }, ctx)
    const flagged = await h.timeline({ buckets: 25, flagged_only: true }, ctx)
    const counted = flagged.buckets.reduce((n, b) => n + b.count, 0)
    expect(counted).toBe(listed.total)
    expect(counted).toBeGreaterThanOrEqual(named.size)
    expect(await h.timeline({ buckets: 25 }, ctx)).toEqual(all)
  })
})
