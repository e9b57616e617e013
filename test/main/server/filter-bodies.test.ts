// Web mode: a name the chain holds, offered on screen (the filter bar, "filter by this value"), is
// sent back whole as a filter. A span name or model of a megabyte made its filter call a 413
// ('request body is over the 1 MiB limit for this route'): the table, the timeline, the drift
// series and the view export could not be filtered on a name the screen offered. The calls that take
// a filter now take bodies up to the server's largest limit; a name longer than the handler's
// NAME_CHARS is refused in one line (400). Generated names about the old limit (ASCII, three-byte
// and astral code points, controls JSON escapes at six bytes), each filtered on over HTTP; the rows
// written with that name are the oracle.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { EntryPage, Timeline } from '../../../src/shared/chain-types'
import { NAME_CHARS } from '../../../src/main/handlers/filter-request'
import { spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { mulberry32 } from '../testing/prng'
import { serveForSuite, untilJobDone } from '../testing/served'

const MiB = 1 << 20
const rnd = mulberry32(3131)
const PIECES = ['a', 'Z', 'é', '中', '😀', '\u0001', '"', '\\']
function nameOf(bytes: number): string {
  const parts: string[] = []
  let size = 2
  while (size < bytes) {
    const c = PIECES[Math.floor(rnd() * PIECES.length)]!
    parts.push(c)
    size += Buffer.byteLength(JSON.stringify(c)) - 2
  }
  return parts.join('')
}

// Names whose JSON is about the old 1 MiB limit, one over three times it, and short ones.
const NAMES = [MiB - 4096, MiB + 1, MiB + 777, 3 * MiB].map(nameOf)
const counts = new Map<string, { span: number; model: number }>()

const s = serveForSuite({
  prefix: 'bijotel-filter-bodies-',
  openRoots: (dir) => [dir],
  written: (dir) => {
    const rows: RowSpec[] = []
    const t0 = 1_764_000_000_000_000_000n
    for (let i = 0; i < 40; i++) {
      const span = NAMES[Math.floor(rnd() * NAMES.length)]!
      const model = rnd() < 0.3 ? 'short-model' : NAMES[Math.floor(rnd() * NAMES.length)]!
      const row = spanRow({
        timestamp_ns: t0 + BigInt(i) * 1_000_000_000n,
        name: span,
        attributes: { 'gen_ai.provider.name': 'p', 'gen_ai.request.model': model },
      })
      rows.push(row)
      for (const [n, k] of [
        [span, 'span'],
        [model, 'model'],
      ] as const) {
        const c = counts.get(n) ?? { span: 0, model: 0 }
        c[k]++
        counts.set(n, c)
      }
    }
    const path = join(dir, 'long-names.db')
    writeChain(path, Buffer.alloc(32, 3), rows)
    return path
  },
})

const oneLine = (text: string): void => {
  const body = JSON.parse(text) as { error: string }
  expect(body.error.split('\n')).toHaveLength(1)
}

describe('filter calls take every name the chain holds', () => {
  it('listEntries, locateEntry, timeline and the drift series on megabyte names', async () => {
    for (const name of NAMES) {
      const want = counts.get(name) ?? { span: 0, model: 0 }
      const bySpan = await s.call('listEntries', { offset: 0, limit: 100, filter: { span_name: name } })
      expect(bySpan.status, bySpan.text.slice(0, 200)).toBe(200)
      expect((bySpan.json as EntryPage).total).toBe(want.span)
      const byModel = await s.call('listEntries', { offset: 0, limit: 100, filter: { model: name } })
      expect(byModel.status, byModel.text.slice(0, 200)).toBe(200)
      expect((byModel.json as EntryPage).total).toBe(want.model)
      const first = (bySpan.json as EntryPage).rows[0]
      if (first) {
        const at = await s.call('locateEntry', { seq: first.seq, filter: { span_name: name } })
        expect(at.status, at.text.slice(0, 200)).toBe(200)
        expect(at.json).toEqual({ index: 0 })
      }
      const tl = await s.call('timeline', { buckets: 10, model: name })
      expect(tl.status, tl.text.slice(0, 200)).toBe(200)
      const points = (tl.json as Timeline).buckets.reduce((a, b) => a + b.count, 0)
      expect(points).toBe(want.model)
      const drift = await s.call('startDriftSeries', { model: name })
      expect(drift.status, drift.text.slice(0, 200)).toBe(200)
      const done = await untilJobDone((n, r) => s.call(n, r), (drift.json as { id: string }).id)
      expect(done.state, JSON.stringify(done.error ?? null)).toBe('done')
    }
  }, 120_000)

  it('exportView of the rows of one megabyte span name', async () => {
    const name = NAMES[1]!
    const r = await s.call('exportView', { format: 'jsonl', filter: { span_name: name } })
    expect(r.status, r.text.slice(0, 200)).toBe(200)
    const lines = (r.json as { content: string }).content.split('\n').filter((l) => l !== '')
    expect(lines).toHaveLength(counts.get(name)?.span ?? 0)
  }, 60_000)

  it('a name past NAME_CHARS is refused in one line, not cut', async () => {
    const r = await s.call('listEntries', {
      offset: 0,
      limit: 1,
      filter: { span_name: 'x'.repeat(NAME_CHARS + 1) },
    })
    expect(r.status).toBe(400)
    oneLine(r.text)
  }, 60_000)
})
