import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dbPath, fixtureNames } from '../testing/fixtures'
import { modelOf, parseBody, providerOf } from '../../../src/main/chain/body'
import {
  buildChainIndex,
  directIndex,
  indexRange,
  mergeParts,
  positionOfSeq,
  sqliteIndex,
} from '../../../src/main/chain/index'
import { ChainFile } from '../../../src/main/chain/reader'
import { buildOverview, buildTimeline, selectPositions } from '../../../src/main/chain/views'

let chain: ChainFile
beforeAll(async () => {
  chain = await ChainFile.open(dbPath('provider-shift'))
})
afterAll(() => chain.close())

describe('chain index', () => {
  it('holds every row with the provider and model a full parse gives', async () => {
    const idx = await buildChainIndex(chain)
    expect(idx.rows).toBe(240)
    const rows = chain.db.prepare('SELECT seq, canonical_body FROM chain ORDER BY seq').raw(true).all() as [
      number,
      Buffer,
    ][]
    rows.forEach(([seq, body], i) => {
      const parsed = parseBody(body)
      expect(idx.seq[i]).toBe(seq)
      expect(idx.providerNames[idx.provider[i]!]).toBe(providerOf(parsed))
      expect(idx.modelNames[idx.model[i]!]).toBe(modelOf(parsed) ?? '(none)')
    })
    expect(positionOfSeq(idx, 120)).toBe(119)
    expect(positionOfSeq(idx, 9999)).toBeNull()
  })

  it('merges partitions exactly as one pass', async () => {
    const whole = mergeParts([await indexRange(chain.db, 1n, 240n)])
    const parts = mergeParts([
      await indexRange(chain.db, 1n, 77n),
      await indexRange(chain.db, 78n, 160n),
      await indexRange(chain.db, 161n, 240n),
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
    const idx = await buildChainIndex(chain)
    const ov = buildOverview(chain, idx)
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
      const c = await ChainFile.open(dbPath(name))
      try {
        const viaSqlite = await sqliteIndex(c)
        const direct = await directIndex(c.snapshot.dbPath)
        expect(direct).toEqual(viaSqlite)
        expect(direct.rows).toBeGreaterThan(0)
      } finally {
        c.close()
      }
    })
  }
})
