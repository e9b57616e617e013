// The app's drift series says why a dimension has no value (issue 35: "cost: 0 values" beside rows
// that each record bijotel.cost_usd). The cost dimension is the reference's (§8): tokens × the price
// table's price for gen_ai.request.model — a model the table lacks gives no datapoint, as in
// Python's `regression`. SQLite on a private copy is the oracle for what the rows hold; generated
// chains mix priced and unpriced models, token counts as text, missing attributes and recorded
// costs, and every count in the note must be the oracle's.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { DriftSeries } from '../../../src/shared/drift-types'
import { PRICES } from '../../../src/main/python/py-body'
import { scratchDir, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { dbPath, fingerprintFolder, SECRETS, withSqliteCopy } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'
import { driftSeriesRunner } from './drift-kit'

const before = fingerprintFolder()
const scratch = scratchDir('drift-series')
afterAll(() => {
  scratch.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})

const runSeries = driftSeriesRunner()
const series = (path: string, window?: number): Promise<DriftSeries> =>
  runSeries(path, { buckets: 10, ...(window !== undefined ? { window } : {}) })

interface Oracle {
  rows: number
  priced: number
  unpriced: number
  noTokens: number
  recorded: number
  models: Set<string>
}

/** What the rows of each model hold, read by SQLite. */
function oracle(path: string): Map<string, Oracle> {
  return withSqliteCopy(path, (db) => {
    const out = new Map<string, Oracle>()
    for (const { canonical_body } of db.prepare('SELECT canonical_body FROM chain').all() as {
      canonical_body: Buffer | string
    }[]) {
      const a = (JSON.parse(String(canonical_body)) as { attributes: Record<string, unknown> }).attributes
      const model = typeof a['gen_ai.request.model'] === 'string' ? (a['gen_ai.request.model'] as string) : ''
      const o = out.get(model) ?? {
        rows: 0,
        priced: 0,
        unpriced: 0,
        noTokens: 0,
        recorded: 0,
        models: new Set(),
      }
      o.rows++
      const tokens =
        typeof a['gen_ai.usage.input_tokens'] === 'number' &&
        typeof a['gen_ai.usage.output_tokens'] === 'number'
      const price = model !== '' && PRICES.get(model) !== undefined
      if (price && tokens) o.priced++
      else {
        if (!price) {
          o.unpriced++
          o.models.add(model === '' ? '(none)' : model)
        } else o.noTokens++
        if (typeof a['bijotel.cost_usd'] === 'number') o.recorded++
      }
      out.set(model, o)
    }
    return out
  })
}

function expectNotes(s: DriftSeries, truth: Map<string, Oracle>): void {
  for (const g of s.groups) {
    const o = truth.get(g.model ?? '')!
    expect(g.rows).toBe(o.rows)
    const cost = g.dimensions.find((d) => d.dimension === 'cost')!
    expect(cost.points, g.model ?? '').toBe(o.priced)
    if (o.priced === o.rows) {
      expect(cost.no_value).toBeUndefined()
      continue
    }
    const note = cost.no_value!
    expect(note).toContain('tokens × price per 1K tokens')
    if (o.unpriced > 0) {
      expect(note).toContain(`${o.unpriced} row${o.unpriced === 1 ? '' : 's'}: no price for`)
      for (const m of o.models) expect(note).toContain(m)
    } else expect(note).not.toContain('no price for')
    if (o.noTokens > 0)
      expect(note).toContain(`${o.noTokens} row${o.noTokens === 1 ? '' : 's'}: a token count`)
    if (o.recorded > 0)
      expect(note).toContain(
        `${o.recorded} row${o.recorded === 1 ? '' : 's'} of them record bijotel.cost_usd`,
      )
    else expect(note).not.toContain('bijotel.cost_usd')
    // Every other dimension with fewer values than rows says why too.
    for (const d of g.dimensions)
      if (d.points < g.rows) expect(d.no_value, d.dimension).toMatch(/^no value for /)
  }
}

describe('drift series: why a dimension has no value', () => {
  it('clean.db: the unpriced models say so, and that their recorded bijotel.cost_usd is not read', async () => {
    const s = await series(dbPath('clean'))
    const truth = oracle(dbPath('clean'))
    // The fixture holds both: a priced model (values) and unpriced ones (none, each explained).
    expect(s.groups.some((g) => g.dimensions.find((d) => d.dimension === 'cost')!.points > 0)).toBe(true)
    expect(s.groups.some((g) => g.dimensions.find((d) => d.dimension === 'cost')!.points === 0)).toBe(true)
    expectNotes(s, truth)
  })

  it('generated chains: priced and unpriced models, tokens as text, missing tokens, recorded costs', async () => {
    const priced = [...PRICES.keys()]
    const models = [priced[0]!, priced[1]!, 'gpt-4o-mini', 'grok-3-mini', null]
    for (let seed = 1; seed <= 4; seed++) {
      const rnd = mulberry32(seed)
      const t0 = 1_764_000_000_000_000_000n
      const rows: RowSpec[] = Array.from({ length: 60 }, (_, i) => {
        const model = models[Math.floor(rnd() * models.length)]
        const attrs: Record<string, unknown> = { 'gen_ai.provider.name': 'p' }
        if (model !== null) attrs['gen_ai.request.model'] = model
        const r = rnd()
        // Text token counts: Python's arithmetic on a str raises, so no cost datapoint.
        attrs['gen_ai.usage.input_tokens'] = r < 0.15 ? '677' : r < 0.25 ? undefined : 100 + i
        attrs['gen_ai.usage.output_tokens'] = 50 + i
        if (rnd() < 0.7) attrs['bijotel.cost_usd'] = rnd() < 0.2 ? '0.01' : 0.0001 * i
        for (const k of Object.keys(attrs)) if (attrs[k] === undefined) delete attrs[k]
        return spanRow({ timestamp_ns: t0 + BigInt(i) * 1_000_000_000n, attributes: attrs })
      })
      const path = join(scratch.dir, `gen-${seed}.db`)
      writeChain(path, Buffer.from(SECRETS['primary']!, 'hex'), rows)
      expectNotes(await series(path), oracle(path))
    }
  })
})

// A value is flagged only when its z-score and its IQR fences both fire (§8): against a block whose
// values are all equal (no standard deviation) or whose middle half is (IQR 0) neither can, so the
// panel's "no anomaly" must say those values were not judged — as `regression`'s stderr note does.
// Generated: blocks of a window's values, each flat, with a flat middle half, or spread; what each
// later block is judged against is known from the construction.
describe('drift series: values judged against a baseline without spread are named', () => {
  type Block = 'flat' | 'iqr0' | 'spread'
  const W = 10
  function blockValues(kind: Block, rnd: () => number): number[] {
    if (kind === 'flat') return Array.from({ length: W }, () => 500)
    if (kind === 'iqr0') {
      // Eight equal values and two apart: the 25th and 75th percentiles are the common value.
      const v = Array.from({ length: W }, () => 500)
      v[Math.floor(rnd() * W)] = 10
      const j = v.indexOf(500, Math.floor(rnd() * (W - 2)))
      v[j] = 9000
      return v
    }
    // Distinct values: a spread in both senses.
    const v = Array.from({ length: W }, (_, i) => 100 + i * 53)
    for (let i = W - 1; i > 0; i--) {
      const k = Math.floor(rnd() * (i + 1))
      ;[v[i], v[k]] = [v[k]!, v[i]!]
    }
    return v
  }

  it('generated blocks: the note iff some value met a flat baseline, with the counts', async () => {
    const kinds: Block[] = ['flat', 'iqr0', 'spread']
    const t0 = 1_764_000_000_000_000_000n
    const branches = new Set<string>()
    for (let seed = 1; seed <= 8; seed++) {
      const rnd = mulberry32(1000 + seed)
      // The first two are fixed (every baseline spread; none), the rest drawn.
      const blocks: Block[] =
        seed === 1
          ? ['spread', 'spread', 'spread', 'spread']
          : seed === 2
            ? ['flat', 'iqr0', 'flat', 'spread']
            : Array.from({ length: 4 }, () => kinds[Math.floor(rnd() * kinds.length)]!)
      const input = blocks.flatMap((b) => blockValues(b, rnd))
      const rows: RowSpec[] = input.map((v, i) =>
        spanRow({
          timestamp_ns: t0 + BigInt(i) * 1_000_000_000n,
          attributes: {
            'gen_ai.provider.name': 'p',
            'gen_ai.request.model': 'm',
            'gen_ai.usage.input_tokens': v,
            'gen_ai.usage.output_tokens': 100 + ((i * 37) % 89),
          },
        }),
      )
      const path = join(scratch.dir, `flat-${seed}.db`)
      writeChain(path, Buffer.from(SECRETS['primary']!, 'hex'), rows)
      const s = await series(path, W)
      const d = s.groups[0]!.dimensions.find((x) => x.dimension === 'input_tokens')!
      // Block k (k ≥ 1) is judged against block k − 1.
      let flat = 0
      let judged = 0
      for (let k = 1; k < blocks.length; k++) {
        if (blocks[k - 1] === 'spread') judged += W
        else flat += W
      }
      const what = blocks.join(',')
      branches.add(flat === 0 ? 'none' : judged === 0 ? 'all' : 'some')
      if (flat === 0) expect(d.not_judged, what).toBeUndefined()
      else if (judged === 0)
        expect(d.not_judged, what).toMatch(
          new RegExp(`^every baseline had no spread.*: ${flat} values judged`),
        )
      else
        expect(d.not_judged, what).toContain(
          `${flat} values of ${flat + judged} judged against a baseline without spread`,
        )
      // No value that met a flat baseline is ever an anomaly.
      for (const a of d.anomalies) expect(blocks[Math.floor((a.seq - 1) / W) - 1], what).toBe('spread')
    }
    expect([...branches].sort()).toEqual(['all', 'none', 'some'])
  })
})
