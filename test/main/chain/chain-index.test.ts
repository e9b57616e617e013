import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dbPath, fixtureNames } from '../testing/fixtures'
import { modelOf, parseBody, providerOfBytes } from '../../../src/main/chain/body'
import { buildChainIndex, mergeParts, positionOfSeq } from '../../../src/main/chain/chain-index'
import { INDEX_COLUMNS } from '../../../src/main/chain/columns/types'
import { OpenedChain } from '../../../src/main/chain/source/opened-chain'
import { buildOverview, buildTimeline, overviewMeta, selectPositions } from '../../../src/main/chain/views'
import { READERS, withSource } from '../testing/sources'

let chain: OpenedChain
beforeAll(async () => {
  chain = await OpenedChain.open(dbPath('provider-shift'))
})
afterAll(() => chain.close())

describe('chain index', () => {
  it('holds every row with the provider and model a full parse gives', async () => {
    const idx = await buildChainIndex(chain.copy)
    expect(idx.rows).toBe(240)
    const rows = chain.file.db
      .prepare('SELECT seq, canonical_body FROM chain ORDER BY seq')
      .raw(true)
      .all() as [number, Buffer][]
    rows.forEach(([seq, body], i) => {
      const parsed = parseBody(body)
      expect(idx.seq[i]).toBe(seq)
      expect(idx.providerNames[idx.provider[i]!]).toBe(providerOfBytes(body, parsed))
      expect(idx.modelNames[idx.model[i]!]).toBe(modelOf(parsed) ?? '(none)')
    })
    expect(positionOfSeq(idx, 120)).toBe(119)
    expect(positionOfSeq(idx, 9999)).toBeNull()
  })

  it('merges partitions exactly as one pass', async () => {
    const src = chain.copy
    const whole = mergeParts([src.columns({ from: 0, to: 240 }, 16, INDEX_COLUMNS)])
    const parts = mergeParts([
      src.columns({ from: 0, to: 77 }, 16, INDEX_COLUMNS),
      src.columns({ from: 77, to: 160 }, 16, INDEX_COLUMNS),
      src.columns({ from: 160, to: 240 }, 16, INDEX_COLUMNS),
    ])
    expect(parts.rows).toBe(whole.rows)
    for (let i = 0; i < whole.rows; i++) {
      expect(parts.seq[i]).toBe(whole.seq[i])
      expect(parts.ts[i]).toBe(whole.ts[i])
      expect(parts.providerNames[parts.provider[i]!]).toBe(whole.providerNames[whole.provider[i]!])
      expect(parts.modelNames[parts.model[i]!]).toBe(whole.modelNames[whole.model[i]!])
    }
  })

  it('feeds the overview, filters and the timeline', async () => {
    const idx = await buildChainIndex(chain.copy)
    const ov = buildOverview(overviewMeta(chain.copy.facts()), idx)
    expect(ov.entries).toBe(240)
    expect(ov.first_seq).toBe(1)
    expect(ov.last_seq).toBe(240)
    expect(ov.providers.reduce((n, p) => n + p.count, 0)).toBe(240)
    const xai = selectPositions(idx, { provider: 'xai' }, 'seq_asc', null)
    expect(xai.length).toBe(ov.providers.find((p) => p.name === 'xai')!.count)
    const desc = selectPositions(idx, undefined, 'seq_desc', null)
    expect(idx.seq[desc[0]!]).toBe(240)
    const tl = buildTimeline(idx, { buckets: 24 })
    expect(tl.buckets.reduce((n, b) => n + b.count, 0)).toBe(240)
    expect(tl.buckets.reduce((n, b) => n + (b.by_provider['xai'] ?? 0), 0)).toBe(xai.length)
  })
})

describe('index read directly from the pages = index through SQLite', () => {
  for (const name of fixtureNames()) {
    it(name, async () => {
      const [direct, viaSqlite] = await Promise.all(
        READERS.map((r) => withSource(dbPath(name), r, buildChainIndex)),
      )
      expect(direct).toEqual(viaSqlite)
      expect(direct!.rows).toBeGreaterThan(0)
    })
  }
})
