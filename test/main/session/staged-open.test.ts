// A large chain opens in stages: a first overview and timeline from seq and timestamps read in
// place, then the verified copy, evidence hashes and full index. Forced here with a low threshold.
import { afterEach, describe, expect, it } from 'vitest'
import { buildTimeline } from '../../../src/main/chain/views'
import type { JobStatus } from '../../../src/shared/job-types'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { copyFixture, scratchDir } from '../reliability/chainkit'
import { dbPath, expected, fingerprintFolder, secretInputs } from '../testing/fixtures'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'

let session: AuditSession | null = null
afterEach(() => session?.dispose())

describe('staged open', () => {
  it('answers with a pending overview, then completes to the same rows with hashes and providers', async () => {
    const before = fingerprintFolder()
    session = new AuditSession({ stagedOpenRows: 1 })
    const first = await session.open(dbPath('provider-shift'))
    expect(first.pending).toBe(true)
    expect(first.evidence.db.sha256).toBe('')
    expect(first.providers.map((p) => p.name)).toEqual(['(indexing…)'])
    const quickTimeline = buildTimeline(session.view().index, { buckets: 50 })

    const full = await session.ready()
    expect(full.overview.pending).toBeUndefined()
    expect(full.overview.evidence.db.sha256).toMatch(/^[0-9a-f]{64}$/)
    expect(full.overview.providers.map((p) => p.name).sort()).toEqual(['anthropic', 'xai'])
    expect(full.overview.entries).toBe(first.entries)
    expect(full.overview.first_seq).toBe(first.first_seq)
    expect(full.overview.last_time).toBe(first.last_time)
    const fullTimeline = buildTimeline(full.index, { buckets: 50 })
    expect(fullTimeline.buckets.map((b) => b.count)).toEqual(quickTimeline.buckets.map((b) => b.count))
    expect(session.current()?.overview.pending).toBeUndefined()
    expect(fingerprintFolder()).toEqual(before)
  })

  it('a second open while the first is still in its background stage replaces it', async () => {
    session = new AuditSession({ stagedOpenRows: 1 })
    await session.open(dbPath('provider-shift'))
    await session.open(dbPath('clean'))
    const o = await session.ready()
    expect(o.overview.evidence.db.path).toBe(dbPath('clean'))
    expect(o.chain.displayPath).toBe(dbPath('clean'))
  })

  it('a background stage that fails is reported by every later call', async () => {
    const { writeFileSync } = await import('node:fs')
    const scratch = scratchDir('staged')
    try {
      const p = copyFixture('clean', scratch.dir, 'chain.db')
      session = new AuditSession({ stagedOpenRows: 1 })
      const first = await session.open(p)
      expect(first.pending).toBe(true)
      // Replace the file under the background stage: whether its copy sees the old size (changed
      // while read) or the new bytes (not a chain), it must fail.
      writeFileSync(p, 'not a chain any more')
      await expect(session.ready()).rejects.toThrow()
      expect(() => session!.current()).toThrow()
    } finally {
      scratch.cleanup()
    }
  })

  it('a job started during the background stage gets its id at once and can be cancelled there', async () => {
    session = new AuditSession({ stagedOpenRows: 1 })
    const h = createHandlers(session)
    const ctx = { transport: 'http', trusted: true } as const
    await session.open(dbPath('clean'))
    // After the open: keys belong to the chain they are given for (a staged open's background
    // stage keeps them: it is the same chain).
    await h.setSecrets({ secrets: secretInputs(expected('clean').secrets) }, ctx)
    const settled = async (id: string): Promise<JobStatus> => {
      for (;;) {
        const s = await h.jobStatus({ id }, ctx)
        if (s.state !== 'running') return s
        await new Promise((r) => setTimeout(r, 10))
      }
    }
    const first = await h.startVerify({}, ctx)
    // Answered while the copy is still being made, not after it.
    expect(session.current()?.overview.pending).toBe(true)
    expect(first.state).toBe('running')
    await h.cancelJob({ id: first.id }, ctx)
    expect((await settled(first.id)).state).toBe('cancelled')
    const second = await settled((await h.startVerify({}, ctx)).id)
    expect(second.state).toBe('done')
    expect((second.result as VerifyVerdict).valid).toBe(true)
    const integrity = await settled((await h.startIntegrity({}, ctx)).id)
    expect(integrity.state).toBe('done')
  })

  for (const name of ['clean', 'wal-tail', 'odd-non-json-body', 'clock-backward', 'rows-swapped']) {
    it(`${name}: the table and entry detail answer during the background stage, as after it`, async () => {
      const before = fingerprintFolder()
      session = new AuditSession({ stagedOpenRows: 1 })
      const h = createHandlers(session)
      const ctx = { transport: 'http', trusted: true } as const
      const first = await session.open(dbPath(name))
      const mid = Math.floor(first.entries / 2)
      const asked = async () => {
        const pages = []
        for (const sort of ['seq_asc', 'seq_desc', 'time_asc', 'time_desc'] as const)
          for (const [offset, limit] of [
            [0, 7],
            [mid, 1000],
            [first.entries - 3, 10],
          ] as const)
            pages.push(await h.listEntries({ offset, limit, sort }, ctx))
        const from_ns = first.first_timestamp_ns!
        pages.push(await h.listEntries({ offset: 1, limit: 20, filter: { from_ns }, sort: 'time_desc' }, ctx))
        const seq = pages[0]!.rows[3]!.seq
        const located = await h.locateEntry({ seq, sort: 'seq_desc' }, ctx)
        const detail = await h.getEntry({ seq }, ctx)
        const last = await h.getEntry({ seq: first.last_seq! }, ctx)
        return { pages, located, detail, last }
      }
      const during = await asked()
      // Answered while the copy is still being made, not after it.
      expect(session.current()?.overview.pending).toBe(true)
      expect(during.pages[0]!.rows.length).toBeGreaterThan(0)
      await session.ready()
      expect(session.current()?.overview.pending).toBeUndefined()
      expect(during).toEqual(await asked())
      expect(fingerprintFolder()).toEqual(before)
    })
  }

  it('rows read in place during the background stage are refused once the evidence moved', async () => {
    const { utimesSync } = await import('node:fs')
    const scratch = scratchDir('staged')
    try {
      const p = copyFixture('clean', scratch.dir, 'chain.db')
      session = new AuditSession({ stagedOpenRows: 1 })
      const h = createHandlers(session)
      const ctx = { transport: 'http', trusted: true } as const
      await session.open(p)
      expect((await h.listEntries({ offset: 0, limit: 5 }, ctx)).rows).toHaveLength(5)
      // Same bytes, another mtime: a writer may have touched it; the rows read are not trusted.
      utimesSync(p, new Date(), new Date(Date.now() + 60_000))
      expect(session.current()?.overview.pending).toBe(true)
      await expect(h.listEntries({ offset: 0, limit: 5 }, ctx)).rejects.toThrow(/evidence changed/)
      await expect(h.getEntry({ seq: 1 }, ctx)).rejects.toThrow(/evidence changed/)
      await session.ready().catch(() => undefined)
    } finally {
      scratch.cleanup()
    }
  })

  it('a provider filter during the background stage waits for the full index', async () => {
    session = new AuditSession({ stagedOpenRows: 1 })
    const h = createHandlers(session)
    const ctx = { transport: 'http', trusted: true } as const
    await session.open(dbPath('provider-shift'))
    const page = await h.listEntries({ offset: 0, limit: 1000, filter: { provider: 'xai' } }, ctx)
    expect(session.current()?.overview.pending).toBeUndefined()
    expect(page.total).toBeGreaterThan(0)
    expect(page.rows.every((r) => r.provider === 'xai')).toBe(true)
  })

  it('small chains open in one stage by default', async () => {
    session = new AuditSession()
    const ov = await session.open(dbPath('clean'))
    expect(ov.pending).toBeUndefined()
    expect(ov.evidence.db.sha256).toMatch(/^[0-9a-f]{64}$/)
  })
})
