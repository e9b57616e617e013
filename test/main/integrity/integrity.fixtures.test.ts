import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ReaderKind, RowSource } from '../../../src/main/chain/source/row-source'
import {
  dbPath,
  expected,
  FIXTURES,
  fingerprintFolder,
  fixtureNames,
  secretInputs,
} from '../testing/fixtures'
import { parseSecrets } from '../../../src/main/chain/keys'
import { runIntegrity } from '../../../src/main/integrity/analyze'
import { pyJsonDumps, pyJsonLoads } from '../../../src/main/python/pyformat'
import { reportJson } from '../../../src/main/integrity/report'
import { integrityText } from '../../../src/main/integrity/text'
import { READERS, withSource } from '../testing/sources'

let before: Map<string, string>
beforeAll(() => {
  before = fingerprintFolder()
})
afterAll(() => {
  expect(fingerprintFolder()).toEqual(before)
})

/**
 * Python's exact `--json` text for a fixture's expected report: the expected file is parsed with
 * Python's number model (a token with a fraction or exponent is a float, `94.0` stays `94.0`) and
 * dumped compactly, which is what `json.dumps(json.load(f)[key], separators=(',', ':'))` prints.
 */
function pythonText(name: string, key: 'integrity_window_100' | 'integrity_window_500'): string {
  const doc = pyJsonLoads(readFileSync(join(FIXTURES, `${name}.expected.json`), 'utf8'), {
    typed: true,
  }) as Map<string, never>
  return pyJsonDumps(doc.get(key)!)
}

const names = fixtureNames()

// Every test runs through both row sources: the direct reader and SQLite on a verified copy.
describe.each(READERS)('read by %s', (reader: ReaderKind) => {
  const withChain = <T>(name: string, f: (c: RowSource) => Promise<T> | T): Promise<T> =>
    withSource(dbPath(name), reader, f)

  describe('every fixture: integrity JSON equals Python BIJOTEL field for field and byte for byte', () => {
    it('has fixtures', () => expect(names.length).toBeGreaterThan(10))
    for (const name of names) {
      for (const [window, key] of [
        [100, 'integrity_window_100'],
        [500, 'integrity_window_500'],
      ] as const) {
        it(`${name} window ${window}`, async () => {
          const run = await withChain(name, (c) => runIntegrity(c, { window }))
          expect(run.report).toEqual(expected(name)[key])
          expect(reportJson(run.report)).toBe(pythonText(name, key))
          expect(run.mode).toBe('window')
          expect(run.rotation_checked).toBe(false)
        })
      }
    }
  })

  describe('--all equals window mode with window >= rows', () => {
    for (const name of names) {
      it(name, async () => {
        await withChain(name, async (c) => {
          const all = (await runIntegrity(c, { all: true })).report
          const win = (await runIntegrity(c, { window: 10_000 })).report
          expect(all).toEqual(win)
          expect(all).toEqual(expected(name).integrity_window_500)
          expect(reportJson(all)).toBe(pythonText(name, 'integrity_window_500'))
        })
      })
    }
    it('reports progress and honours cancellation', async () => {
      await withChain('clean', async (c) => {
        const seen: [number, number, string | undefined][] = []
        const run = await runIntegrity(c, { all: true, onProgress: (d, t, p) => seen.push([d, t, p]) })
        expect(run.mode).toBe('all')
        expect(seen[0]![0]).toBe(0)
        expect(seen[0]![2]).toBe('integrity')
        expect(seen[seen.length - 1]).toEqual([240, 240, 'integrity'])
        await expect(runIntegrity(c, { all: true, signal: { aborted: true } })).rejects.toMatchObject({
          code: 'cancelled',
        })
      })
    })
  })

  describe('rotation boundaries (detector 6) with candidate keys', () => {
    const keys = () => parseSecrets(secretInputs(['primary', 'rotated']))
    it('rotation.db: boundary at 161 in the whole chain and in the last 100 (141..240)', async () => {
      await withChain('rotation', async (c) => {
        for (const opts of [{ window: 500 }, { window: 100 }, { all: true }]) {
          const run = await runIntegrity(c, { ...opts, keys: keys() })
          expect(run.report.rotation_boundaries).toEqual([
            { seq: 161, detail: 'sealing key changed from key #1 to key #2 at seq=161' },
          ])
          expect(run.report.clean).toBe(false)
          expect(run.report.anomaly_count).toBe(1)
          expect(run.rotation_checked).toBe(true)
          expect(run.rotation_note).toContain('2 key segments, 1 boundary')
        }
      })
    })
    it('rotation.db: no boundary in windows that do not contain 160 -> 161', async () => {
      await withChain('rotation', async (c) => {
        // last 80 = 161..240 (all key #2); last 81 = 160..240 contains the change
        const r80 = await runIntegrity(c, { window: 80, keys: keys() })
        expect(r80.report.first_seq).toBe(161)
        expect(r80.report.rotation_boundaries).toEqual([])
        expect(r80.report.clean).toBe(true)
        expect(r80.rotation_note).toContain('1 key segment, 0 boundaries')
        const r81 = await runIntegrity(c, { window: 81, keys: keys() })
        expect(r81.report.first_seq).toBe(160)
        expect(r81.report.rotation_boundaries.map((b) => b.seq)).toEqual([161])
      })
    })
    it('rotation.db without keys: empty list, and the note says why', async () => {
      await withChain('rotation', async (c) => {
        const run = await runIntegrity(c, { window: 500 })
        expect(run.report.rotation_boundaries).toEqual([])
        expect(run.rotation_note).toMatch(/^not checked: no candidate keys/)
        expect(integrityText(run)).not.toContain('Rotation')
      })
    })
    it('rotation.db with the primary key only: no boundary, unsealed rows mentioned', async () => {
      await withChain('rotation', async (c) => {
        const run = await runIntegrity(c, { window: 500, keys: parseSecrets(secretInputs(['primary'])) })
        expect(run.report.rotation_boundaries).toEqual([])
        expect(run.rotation_note).toContain('80 of 240 rows reproduced by no candidate key')
      })
    })
    it('every other fixture with its own key set: no boundaries, report otherwise as expected', async () => {
      for (const name of names.filter((n) => n !== 'rotation')) {
        const exp = expected(name)
        const run = await withChain(name, (c) =>
          runIntegrity(c, { window: 500, keys: parseSecrets(secretInputs(exp.secrets)) }),
        )
        expect(run.report, name).toEqual(exp.integrity_window_500)
      }
    })
  })

  describe('text output on fixtures', () => {
    it('provider-shift window 100', async () => {
      const run = await withChain('provider-shift', (c) => runIntegrity(c, { window: 100 }))
      expect(integrityText(run)).toBe(
        [
          'Chain integrity: 1 ANOMALIES (last 100 entries, seq 141..240)',
          '-'.repeat('Chain integrity: 1 ANOMALIES (last 100 entries, seq 141..240)'.length),
          'Sequence: no gaps',
          'Timestamps: no anomalies',
          'Hashes: no duplicates',
          'Provider distribution: SHIFT detected',
          '  WARN  anthropic: 94.0% -> 50.0% (-44.0pp)',
          '  WARN  xai: 6.0% -> 50.0% (+44.0pp)',
          'Rate: stable',
          '',
        ].join('\n'),
      )
    })
    it('ts-column-edit, rate-drop, duplicate-body, row-deleted, burst', async () => {
      const text = async (name: string, window: number) =>
        integrityText(await withChain(name, (c) => runIntegrity(c, { window })))
      expect(await text('ts-column-edit', 100)).toContain(
        [
          'Timestamps: 1 backward, 1 large-gap',
          '  WARN  seq=210 type=backward  timestamp went back 7200.000s vs seq=209',
          '  WARN  seq=211 type=large_gap  125.3 min gap since seq=210',
        ].join('\n'),
      )
      expect(await text('rate-drop', 100)).toContain('Rate: 20.41/h -> 8.54/h (-58.1%)\n')
      expect(await text('duplicate-body', 100)).toContain(
        'Hashes: 1 duplicate(s)\n  WARN  seq=241  same canonical_hash as seq=240\n',
      )
      expect(await text('row-deleted', 500)).toContain(
        'Sequence: 1 gap(s)\n  WARN  seq 39 -> 41 (1 missing)\n',
      )
      expect(await text('burst', 100)).toContain(
        'Timestamps: 1 burst\n  WARN  seq=0 type=burst  15 entries in 1 second at epoch 1764035891\n',
      )
      expect(await text('clean', 100)).toMatch(
        /^Chain integrity: CLEAN \(last 100 entries, seq 141\.\.240\)\n-{55}\nSequence/,
      )
      const all = integrityText(await withChain('clean', (c) => runIntegrity(c, { all: true })))
      expect(all.split('\n')[0]).toBe('Chain integrity: CLEAN (all 240 entries, seq 1..240)')
    })
  })
})
