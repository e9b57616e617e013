// A lowered divider key in an interior page (SQLite file format §1.6: an interior table cell holds
// a child pointer and the largest rowid of that child's subtree) makes a b-tree seek skip rows that
// a scan reads. SQLite itself then disagrees with itself: `count(*)` walks every leaf, `WHERE seq
// BETWEEN …` seeks and misses rows. The copy path once split its work by seq value and read each
// part with such a seek, and said VALID over fewer rows than the table holds. Both row sources must
// read every row a scan reads: never a verdict over fewer rows than SQLite counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildChainIndex } from '../../../../src/main/chain/chain-index'
import { runIntegrity } from '../../../../src/main/integrity/analyze'
import { parseSecrets } from '../../../../src/main/chain/keys'
import { verifyRows } from '../../../../src/main/verify/verify'
import { bijotel, ensureBuilt } from '../../testing/cli'
import { READERS, withSource } from '../../testing/sources'
import { scratchDir } from '../../reliability/chainkit'
import {
  chainRoot,
  dividers,
  SECRET,
  setKey,
  smallPageChain,
  sqliteCounts,
  type Divider,
} from './divider-kit'

const ROWS = 600

const scratch = scratchDir('divider-keys')
afterAll(() => scratch.cleanup())

describe('a lowered divider key', () => {
  let path = ''
  let lowered: Divider
  /** The rows a seek misses: (lowered key, true key]. */
  let missedFrom = 0
  let missedTo = 0
  beforeAll(() => {
    ensureBuilt()
    path = smallPageChain(scratch.dir, 'lowered.db', ROWS)
    const all = dividers(path, chainRoot(path))
    // The tree has interior pages above interior pages, so a root divider guards a whole subtree.
    expect(Math.max(...all.map((d) => d.depth))).toBeGreaterThanOrEqual(1)
    // A divider of the root, with a 2-byte key well inside the chain: lowered by 25.
    lowered = all.find((d) => d.depth === 0 && d.len === 2 && d.key > 200 && d.key < ROWS - 50)!
    expect(lowered).toBeDefined()
    missedFrom = lowered.key - 24
    missedTo = lowered.key
    setKey(path, lowered, lowered.key - 25)
  })

  it('makes SQLite seek past rows its own scan counts (the hazard is real in this file)', () => {
    // A seek for a seq above the lowered key goes to the right of it, past the rows still left of it.
    const c = sqliteCounts(path, missedFrom + 3, missedTo + 10)
    expect(c.all).toBe(ROWS)
    expect(c.scan).toBe(32)
    expect(c.seek).toBe(10)
    // From below the lowered key, a seek lands left of it and steps through every row.
    expect(sqliteCounts(path, missedFrom - 10, missedTo + 10).seek).toBe(45)
  })

  it.each(READERS)('verify through %s reads every row, whole and in runs, in every range', async (reader) => {
    const keys = parseSecrets([{ encoding: 'hex', value: SECRET }])
    const ranges = [
      undefined,
      { seq_start: missedFrom - 10, seq_end: missedTo + 10 },
      { seq_start: missedFrom + 3, seq_end: missedTo + 10 },
      { seq_start: missedFrom + 3 },
      { seq_end: missedTo - 2 },
      { last_n: ROWS - missedFrom + 5 },
    ]
    await withSource(path, reader, async (source) => {
      for (const range of ranges)
        for (const runs of [1, 2, 7]) {
          const v = await verifyRows(source, keys, { ...(range ? { range } : {}), runs })
          const what = `${reader} ${JSON.stringify(range)} in ${runs} runs`
          const from = v.range?.from_seq ?? 1
          const to = v.range?.to_seq ?? ROWS
          expect(v.entries, what).toBe(range ? sqliteCounts(path, from, to).scan : ROWS)
          expect(v.valid, what).toBe(true)
          if (range?.seq_start !== undefined) expect(v.range?.from_seq, what).toBe(range.seq_start)
        }
    })
  })

  it.each(READERS)('integrity --all and the index read every row through %s', async (reader) => {
    await withSource(path, reader, async (source) => {
      expect((await runIntegrity(source, { all: true })).report.window).toBe(ROWS)
      expect((await buildChainIndex(source)).rows).toBe(ROWS)
    })
  })

  it.each(READERS)('a single row is found by seq through %s, under the lowered key too', async (reader) => {
    await withSource(path, reader, (source) => {
      const mac = source.col('hmac_hash')
      for (let seq = 1; seq <= ROWS; seq++) {
        let got: unknown = null
        expect(source.find(BigInt(seq), (c) => (got = [c.rowid, c.value(mac)]), ['seq', 'hmac_hash'])).toBe(
          true,
        )
        expect((got as [number, unknown])[0], `seq ${seq}`).toBe(seq)
        expect(typeof (got as [number, unknown])[1]).toBe('string')
      }
      // Absent seqs, below, inside the lowered key's span and above: a miss is confirmed, not assumed.
      for (const seq of [0, -5, ROWS + 1, ROWS + 1000])
        expect(source.find(BigInt(seq), () => undefined)).toBe(false)
      expect(source.before(BigInt(missedFrom + 3))?.seq).toBe(BigInt(missedFrom + 2))
    })
  })

  it('the CLI, direct and through SQLite: never VALID with fewer entries than SQLite counts', () => {
    const envs: Record<string, string>[] = [
      {},
      { BIJOTEL_READER: 'sqlite' },
      { BIJOTEL_READER: 'sqlite', BIJOTEL_WORKERS: '2' },
    ]
    for (const env of envs) {
      for (const range of [[], ['--range', `${missedFrom + 3}:${missedTo + 10}`]]) {
        const r = bijotel(['verify', '--db', path, '--secret-hex', SECRET, '--json', ...range], env)
        expect(r.code, r.stderr).toBe(0)
        const v = JSON.parse(r.stdout) as { valid: boolean; entries: number }
        expect(v.entries, JSON.stringify({ env, range })).toBe(range.length === 0 ? ROWS : 32)
      }
    }
  })
})
