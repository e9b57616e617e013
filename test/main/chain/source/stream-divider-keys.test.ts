// The streaming commands (export, stats, list) and the streamed engines read every row a scan of the
// table reads, on a file whose divider keys mislead a b-tree seek (SQLite file format §1.6) exactly
// where a reader paging by seq (`seq > last`, `seq < last`) would resume: after the first 2000 rows
// going up, and before the last 2000 going down. A stream that seeks there would count, list and
// export fewer rows than SQLite's own scan sees; a verdict-bearing stream (export's chain_signature,
// stats' totals) must never cover fewer rows than SQLite sees.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bijotel, ensureBuilt } from '../../testing/cli'
import { withSqliteCopy } from '../../testing/fixtures'
import { scratchDir } from '../../reliability/chainkit'
import { chainRoot, dividers, leafRowids, SECRET, setKey, smallPageChain, sqliteCounts } from './divider-kit'

const ROWS = 2600
const PAGE = 2048

const scratch = scratchDir('stream-divider-keys')
afterAll(() => scratch.cleanup())

/** The rows SQLite returns for `select` (a rowid seek), on a copy. */
function seekCount(path: string, select: string, p: number): number {
  return withSqliteCopy(path, (db) => db.prepare(`SELECT count(*) FROM (${select})`).pluck().get(p) as number)
}

describe('streaming over divider keys that mislead a seek', () => {
  let path = ''
  beforeAll(() => {
    ensureBuilt()
    path = smallPageChain(scratch.dir, 'misleading.db', ROWS, PAGE)
    const all = dividers(path, chainRoot(path), PAGE)
    const deepest = Math.max(...all.map((d) => d.depth))
    const at = (key: number) => {
      const d = all.find((x) => x.key === key && x.depth === deepest)
      expect(d, `a bottom divider ${key}`).toBeDefined()
      return d!
    }
    // Four rows a leaf here: leaves (1997..2000], (2001..2004], (593..596], (597..600].
    expect(leafRowids(path, at(2004).child, PAGE)).toEqual([2001, 2002, 2003, 2004])
    expect(leafRowids(path, at(600).child, PAGE)).toEqual([597, 598, 599, 600])
    const up = [at(2000), at(2004)]
    const down = [at(596), at(600)]
    expect(new Set([...up, ...down].map((d) => d.page)).size).toBeLessThanOrEqual(2)
    // Going up: a seek for seq > 2000 passes both leaves' lowered keys and lands on 2005.
    for (const d of up) setKey(path, d, 1999)
    // Going down: a seek for seq < 601 stops at the first key above 601 and lands on 596.
    for (const d of down) setKey(path, d, 602)
  })

  it('misleads SQLite’s seeks but not its scans (the hazard is real in this file)', () => {
    const c = sqliteCounts(path, 2001, ROWS)
    expect(c.all).toBe(ROWS)
    expect(c.scan).toBe(ROWS - 2000)
    // A seek up from 2000 and a seek down from 601 each miss the four rows behind the misled keys.
    expect(seekCount(path, 'SELECT seq FROM chain WHERE seq > ?', 2000)).toBe(ROWS - 2000 - 4)
    expect(seekCount(path, 'SELECT seq FROM chain WHERE seq < ? ORDER BY seq DESC', 601)).toBe(600 - 4)
  })

  const envs: Record<string, string>[] = [{}, { BIJOTEL_READER: 'sqlite' }]

  it.each(envs)('stats counts every row (%o)', (env) => {
    const r = bijotel(['stats', '--db', path], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`Total spans:    ${ROWS}\n`)
  })

  it.each(envs)('list lists every row, newest first (%o)', (env) => {
    const r = bijotel(['list', '--db', path, '--limit', '-1'], env)
    expect(r.code, r.stderr).toBe(0)
    const seqs = r.stdout
      .split('\n')
      .filter((l) => /^\d+ /.test(l))
      .map((l) => Number(l.split(' ')[0]))
    expect(seqs).toEqual(Array.from({ length: ROWS }, (_, i) => ROWS - i))
    expect(r.stdout).toContain(`(${ROWS} spans)`)
    // Paging into the rows a seek misses.
    const page = bijotel(['list', '--db', path, '--offset', String(ROWS - 600), '--limit', '8'], env)
    expect(
      page.stdout
        .split('\n')
        .filter((l) => /^\d+ /.test(l))
        .map((l) => Number(l.split(' ')[0])),
    ).toEqual([600, 599, 598, 597, 596, 595, 594, 593])
  })

  it.each(envs)('export writes every row, whole and from inside the rows a seek misses (%o)', (env) => {
    for (const [range, first, last] of [
      [[], 1, ROWS],
      [['--range', `2002:2100`], 2002, 2100],
      [['--range', `1:600`], 1, 600],
    ] as [string[], number, number][]) {
      const out = join(scratch.dir, `export-${env['BIJOTEL_READER'] ?? 'direct'}-${first}.json`)
      const r = bijotel(['export', '--db', path, '-o', out, '--secret-hex', SECRET, ...range], env)
      expect(r.code, r.stderr).toBe(0)
      const x = JSON.parse(readFileSync(out, 'utf8')) as { entries_count: number; entries: { seq: number }[] }
      expect(x.entries_count).toBe(last - first + 1)
      expect(x.entries.map((e) => e.seq)).toEqual(
        Array.from({ length: last - first + 1 }, (_, i) => first + i),
      )
      expect(bijotel(['verify-export', out, '--secret-hex', SECRET]).code).toBe(0)
    }
  })

  it.each(envs)('inspect finds a row whose seek is misled, and links it to the row before it (%o)', (env) => {
    const r = bijotel(['inspect', '--db', path, '--secret-hex', SECRET, '2002'], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('prev_hash is the hmac_hash of seq 2001')
    expect(r.stdout).toContain('Row VERIFIES.')
  })
})
