// What the app says about recovered rows, on what the engine recovers from the shared rec-* files:
// bodies as text (pretty-printed like the live body), where each row was found, its page history in
// file order, and the timeline's marks.
import { describe, expect, it } from 'vitest'
import {
  bodyText,
  linkLabel,
  pageHistory,
  proofLabel,
  recoveredMarks,
  rowKey,
  sourceLabel,
} from '../../../../src/renderer/src/lib/recovered'
import { recoveredBucketOf } from '../../../../src/renderer/src/lib/chart-data'
import type { Timeline } from '../../../../src/shared/chain-types'
import { createHash } from 'node:crypto'
import { recovered, recoveryCase } from '../test/recovered-kit'

describe('recovered rows as the app shows them', () => {
  it('bodies decode to the bytes the canonical_hash names, pretty-printed as JSON', () => {
    const { rows } = recovered('rec-live-rewrite')
    expect(rows.length).toBeGreaterThan(0)
    for (const r of rows) {
      const bytes = Buffer.from(r.body_b64!, 'base64')
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(r.canonical_hash)
      const { text, note } = bodyText(r)
      expect(note).toBeNull()
      expect(JSON.parse(text)).toEqual(JSON.parse(bytes.toString('utf8')))
      expect(text).toBe(JSON.stringify(JSON.parse(bytes.toString('utf8')), null, 2))
    }
  })

  it('a body that did not survive, or is not JSON, says so', () => {
    const r = recovered('rec-live-rewrite').rows[0]!
    const { body_b64: _gone, ...lost } = r
    expect(bodyText(lost)).toEqual({ text: '', note: 'the body did not survive' })
    expect(bodyText({ ...r, body_b64: Buffer.from('<b>not json</b>').toString('base64') })).toEqual({
      text: '<b>not json</b>',
      note: 'the body is not JSON',
    })
  })

  it('labels: proof by key, link, and where it was found (file, kind, page, frame, salt, offset)', () => {
    const { rows } = recovered('rec-live-rewrite')
    const keyless = recovered('rec-live-rewrite', false).rows
    expect(proofLabel(rows[0]!)).toBe('proven · key #1')
    expect(proofLabel(keyless[0]!)).toBe('unproven')
    expect(linkLabel(rows[0]!)).toMatch(/^(live|recovered) seq \d+$/)
    const wal = rows.flatMap((r) => r.sources).find((s) => s.file === 'wal')!
    expect(sourceLabel(wal)).toBe(
      `-wal frame ${wal.frame} (page ${wal.page}, salt ${wal.salt}, generation ${wal.generation}) @ ${wal.offset}`,
    )
    const db = rows[0]!.source
    expect(sourceLabel(db)).toContain(`db page ${db.page}`)
  })

  it('the page history of a rewritten seq runs from an earlier version to the live one, in file order', () => {
    const c = recoveryCase('rec-live-rewrite')
    const { rows } = recovered('rec-live-rewrite')
    for (const want of c.recovered_required) {
      const versions = rows.filter((r) => r.seq === want.seq)
      const h = pageHistory(versions)
      expect(h.steps[0]!.version).toBe(0)
      const last = h.steps[h.steps.length - 1]!
      expect(last).toMatchObject({ version: 'live', now: true })
      const at = versions[0]!.live_at!
      expect(last.place).toBe(at.frame === null ? `db page ${at.page}` : `WAL frame ${at.frame}`)
      // WAL frames of the current generation appear in frame order, after the database file's pages.
      const frames = h.steps
        .filter((s) => s.place.startsWith('WAL frame'))
        .map((s) => Number(s.place.slice(10)))
      expect(frames).toEqual([...frames].sort((a, b) => a - b))
      const firstWal = h.steps.findIndex((s) => s.place.startsWith('WAL'))
      const lastDb = h.steps.map((s) => s.place.startsWith('db')).lastIndexOf(true)
      if (firstWal >= 0 && lastDb >= 0) expect(lastDb).toBeLessThan(firstWal)
      expect(h.change).not.toBeNull()
    }
  })

  it('deleted rows have a history of their own places only', () => {
    for (const r of recovered('rec-deleted-tail').rows) {
      const h = pageHistory([r])
      expect(h.steps.every((s) => s.version === 0)).toBe(true)
      expect(h.change).toBeNull()
    }
  })

  it('marks: one per row with a timestamp; rows after the live span sit in the last bucket', () => {
    const { rows } = recovered('rec-live-truncate')
    const marks = recoveredMarks(rows)
    expect(marks.map((m) => m.key)).toEqual(rows.filter((r) => r.timestamp_ns !== null).map(rowKey))
    const first = BigInt(marks[0]!.ns) - 10_000_000_000n
    const tl: Timeline = {
      from_ns: first.toString(),
      to_ns: (first + 1000n).toString(),
      bucket_ns: '100',
      providers: [],
      buckets: Array.from({ length: 10 }, (_, i) => ({
        start_ns: (first + BigInt(i * 100)).toString(),
        end_ns: (first + BigInt(i * 100 + 99)).toString(),
        count: 1,
        by_provider: {},
      })),
    }
    for (const m of marks) expect(recoveredBucketOf(tl, m.ns)).toBe(9)
    expect(recoveredBucketOf(tl, (first - 5n).toString())).toBe(0)
    expect(recoveredBucketOf(tl, (first + 150n).toString())).toBe(1)
  })
})
